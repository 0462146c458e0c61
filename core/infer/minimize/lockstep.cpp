#include "infer/minimize/lockstep.hpp"

#include <thread>

#include "hfcore/backend.hpp"

namespace hf::infer::detail {

void Lockstep::run(const std::vector<std::function<void()>>& tasks) {
    if (tasks.empty()) return;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        live_ = tasks.size();
    }
    std::vector<std::thread> threads;
    threads.reserve(tasks.size());
    for (const auto& task : tasks)
        threads.emplace_back([this, &task] {
            std::exception_ptr e;
            try {
                task();
            } catch (...) {
                e = std::current_exception();
            }
            std::lock_guard<std::mutex> lock(mutex_);
            if (e && !error_) error_ = e;
            --live_;
            all_waiting_.notify_one();
        });
    std::vector<Request*> batch;
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            // Every live task is waiting on a request (or none is left): nothing else can arrive before these are
            // served, so the batch is the same whatever the threads' timing.
            all_waiting_.wait(lock, [this] { return pending_.size() == live_; });
            if (live_ == 0) break;
            batch.swap(pending_);
        }
        serve(batch);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            for (Request* r : batch) r->done = true;
        }
        batch.clear();
        served_.notify_all();
    }
    for (auto& t : threads) t.join();
    if (error_) std::rethrow_exception(error_);
}

void Lockstep::serve(std::vector<Request*>& batch) {
    std::vector<Request*> points;
    for (Request* r : batch) {
        if (!r->fn) {
            points.push_back(r);
            continue;
        }
        try {
            (*r->fn)();
        } catch (...) {
            r->error = std::current_exception();
        }
    }
    if (points.empty()) return;
    auto& be = *model_.backend();
    const std::int64_t n = static_cast<std::int64_t>(points.size());
    const std::int64_t np = static_cast<std::int64_t>(points.front()->x->size());
    std::vector<double> pars(static_cast<std::size_t>(n * np));
    for (std::int64_t j = 0; j < n; ++j) std::copy(points[j]->x->begin(), points[j]->x->end(), pars.begin() + j * np);
    bool any_grad = false;
    for (Request* r : points) any_grad = any_grad || r->grad;
    Tensor g;
    const auto lp = be.to_host_double(lik_.logpdf(be.from_host(pars, {n, np}), any_grad ? &g : nullptr));
    std::vector<double> gh;
    if (any_grad) gh = be.to_host_double(g);
    for (std::int64_t j = 0; j < n; ++j) {
        points[j]->value = lp[static_cast<std::size_t>(j)];
        if (points[j]->grad) points[j]->grad->assign(gh.begin() + j * np, gh.begin() + (j + 1) * np);
    }
}

void Lockstep::wait_for(Request& r) {
    std::unique_lock<std::mutex> lock(mutex_);
    pending_.push_back(&r);
    if (pending_.size() == live_) all_waiting_.notify_one();
    served_.wait(lock, [&r] { return r.done; });
}

double Lockstep::logpdf(const std::vector<double>& x, std::vector<double>* grad) {
    Request r;
    r.x = &x;
    r.grad = grad;
    wait_for(r);
    return r.value;
}

void Lockstep::on_host(const std::function<void()>& fn) {
    Request r;
    r.fn = &fn;
    wait_for(r);
    if (r.error) std::rethrow_exception(r.error);
}

}  // namespace hf::infer::detail

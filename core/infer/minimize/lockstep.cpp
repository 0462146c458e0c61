#include "infer/minimize/lockstep.hpp"

#include <ucontext.h>

#include <cstdint>

#include "hfcore/backend.hpp"

namespace hf::infer::detail {

struct Lockstep::Scheduler {
    ucontext_t context;
};

struct Lockstep::Fiber {
    // NLopt's L-BFGS and the Newton polish keep their work on the heap; the deepest stack is a backend call,
    // which runs on the calling thread's stack instead (serve).
    static constexpr std::size_t kStack = 256 * 1024;
    ucontext_t context;
    const std::function<void()>* task = nullptr;
    Request* request = nullptr;  // what it waits for; null once it has returned
    bool finished = false;
    std::exception_ptr error;
};

Lockstep::Lockstep(const Model& model, const BoundLikelihood& lik)
    : model_(model), lik_(lik), scheduler_(std::make_unique<Scheduler>()) {}

Lockstep::~Lockstep() = default;

void Lockstep::enter(unsigned hi, unsigned lo) {
    auto* f = reinterpret_cast<Fiber*>((static_cast<std::uintptr_t>(hi) << 32) | static_cast<std::uintptr_t>(lo));
    try {
        (*f->task)();
    } catch (...) {
        f->error = std::current_exception();
    }
    f->finished = true;
    // Returning ends the fiber on uc_link: the scheduler.
}

void Lockstep::run(const std::vector<std::function<void()>>& tasks) {
    fibers_.clear();
    // Every fiber's stack in one block, not cleared: only the pages a fiber uses are ever touched.
    const std::unique_ptr<char[]> stacks(new char[tasks.size() * Fiber::kStack]);
    for (const auto& task : tasks) {
        auto f = std::make_unique<Fiber>();
        f->task = &task;
        getcontext(&f->context);
        f->context.uc_stack.ss_sp = stacks.get() + fibers_.size() * Fiber::kStack;
        f->context.uc_stack.ss_size = Fiber::kStack;
        f->context.uc_link = &scheduler_->context;
        const auto ptr = reinterpret_cast<std::uintptr_t>(f.get());
        makecontext(&f->context, reinterpret_cast<void (*)()>(&Lockstep::enter), 2,
                    static_cast<unsigned>(ptr >> 32), static_cast<unsigned>(ptr & 0xffffffffu));
        fibers_.push_back(std::move(f));
    }
    std::vector<Request*> batch;
    for (;;) {
        // Each unfinished fiber runs until it waits on a request or returns: then every request of this step is
        // known, in the fibers' order, whatever the tasks.
        batch.clear();
        for (auto& f : fibers_) {
            if (f->finished) continue;
            current_ = f.get();
            swapcontext(&scheduler_->context, &f->context);
            current_ = nullptr;
            if (!f->finished) batch.push_back(f->request);
        }
        if (batch.empty()) break;
        serve(batch);
    }
    std::exception_ptr error;
    for (auto& f : fibers_)
        if (f->error && !error) error = f->error;
    fibers_.clear();
    if (error) std::rethrow_exception(error);
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
    bool any_grad = false;
    for (std::int64_t j = 0; j < n; ++j) {
        std::copy(points[j]->x->begin(), points[j]->x->end(), pars.begin() + j * np);
        any_grad = any_grad || points[j]->grad;
    }
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
    Fiber* f = current_;
    f->request = &r;
    swapcontext(&f->context, &scheduler_->context);
    f->request = nullptr;
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

#include "infer/minimize/routines_on_fibers.hpp"

#include <ucontext.h>

#include <cstdint>

#include "hfcore/backend.hpp"

// The sanitizers follow a thread's stack, not ucontext's switches: each switch is announced to them (their
// fiber interfaces), or ASan would take a fiber's frames for overflows of the thread's stack and TSan would mix
// the fibers' histories. Nothing to announce without them.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HF_LOCKSTEP_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define HF_LOCKSTEP_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(HF_LOCKSTEP_ASAN)
#define HF_LOCKSTEP_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__) && !defined(HF_LOCKSTEP_TSAN)
#define HF_LOCKSTEP_TSAN 1
#endif
#ifdef HF_LOCKSTEP_ASAN
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef HF_LOCKSTEP_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace hf::infer::detail {

namespace {

// One side of a context switch as the sanitizers see it: the stack it runs on, and what they keep per fiber.
struct SwitchState {
    const void* stack = nullptr;  // lowest address (ASan); the thread's own stack once a fiber has learnt it
    std::size_t stack_size = 0;
    void* fake_stack = nullptr;   // ASan's fake stack of the side switched away from
    void* tsan_fiber = nullptr;   // TSan's fiber
};

// Before switching from `from` to `to`; `from_ends`: from will never run again (its fake stack is freed).
void before_switch([[maybe_unused]] SwitchState& from, [[maybe_unused]] const SwitchState& to,
                   [[maybe_unused]] bool from_ends) {
#ifdef HF_LOCKSTEP_ASAN
    __sanitizer_start_switch_fiber(from_ends ? nullptr : &from.fake_stack, to.stack, to.stack_size);
#endif
#ifdef HF_LOCKSTEP_TSAN
    __tsan_switch_to_fiber(to.tsan_fiber, 0);
#endif
}

// Back on `self` after a switch; `other` learns the stack of the side that switched here.
void after_switch([[maybe_unused]] SwitchState& self, [[maybe_unused]] SwitchState* other) {
#ifdef HF_LOCKSTEP_ASAN
    const void* bottom = nullptr;
    std::size_t size = 0;
    __sanitizer_finish_switch_fiber(self.fake_stack, &bottom, &size);
    if (other && !other->stack) {
        other->stack = bottom;
        other->stack_size = size;
    }
#endif
}

}  // namespace

struct Lockstep::Scheduler {
    ucontext_t context;
    SwitchState sanitizers;  // the calling thread's stack
};

struct Lockstep::Fiber {
    // NLopt's L-BFGS and the Newton polish keep their work on the heap; the deepest stack is a backend call,
    // which runs on the calling thread's stack instead (serve).
#if defined(HF_LOCKSTEP_ASAN) || defined(HF_LOCKSTEP_TSAN)
    static constexpr std::size_t kStack = 1024 * 1024;  // instrumented frames are larger
#else
    static constexpr std::size_t kStack = 256 * 1024;
#endif
    ucontext_t context;
    SwitchState sanitizers;
    Lockstep* owner = nullptr;
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
    Lockstep& self = *f->owner;
    after_switch(f->sanitizers, &self.scheduler_->sanitizers);
    try {
        (*f->task)();
    } catch (...) {
        f->error = std::current_exception();
    }
    f->finished = true;
    // Back to the scheduler for good (explicitly, not through uc_link, so that the sanitizers hear of it first).
    before_switch(f->sanitizers, self.scheduler_->sanitizers, true);
    setcontext(&self.scheduler_->context);
}

void Lockstep::run(const std::vector<std::function<void()>>& tasks) {
    fibers_.clear();
    // Every fiber's stack in one block, not cleared: only the pages a fiber uses are ever touched.
    const std::unique_ptr<char[]> stacks(new char[tasks.size() * Fiber::kStack]);
#ifdef HF_LOCKSTEP_TSAN
    scheduler_->sanitizers.tsan_fiber = __tsan_get_current_fiber();
#endif
    for (const auto& task : tasks) {
        auto f = std::make_unique<Fiber>();
        f->task = &task;
        f->owner = this;
        f->sanitizers.stack = stacks.get() + fibers_.size() * Fiber::kStack;
        f->sanitizers.stack_size = Fiber::kStack;
#ifdef HF_LOCKSTEP_TSAN
        f->sanitizers.tsan_fiber = __tsan_create_fiber(0);
#endif
        getcontext(&f->context);
        f->context.uc_stack.ss_sp = stacks.get() + fibers_.size() * Fiber::kStack;
        f->context.uc_stack.ss_size = Fiber::kStack;
        f->context.uc_link = nullptr;  // enter() never returns
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
            before_switch(scheduler_->sanitizers, f->sanitizers, false);
            swapcontext(&scheduler_->context, &f->context);
            after_switch(scheduler_->sanitizers, nullptr);
            current_ = nullptr;
            if (!f->finished) batch.push_back(f->request);
        }
        if (batch.empty()) break;
        serve(batch);
    }
    std::exception_ptr error;
    for (auto& f : fibers_) {
        if (f->error && !error) error = f->error;
#ifdef HF_LOCKSTEP_TSAN
        __tsan_destroy_fiber(f->sanitizers.tsan_fiber);
#endif
    }
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
    before_switch(f->sanitizers, scheduler_->sanitizers, false);
    swapcontext(&f->context, &scheduler_->context);
    after_switch(f->sanitizers, nullptr);
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

// Many single-fit routines of one likelihood run as one batched computation: each routine (a held fit's basin
// search: search_basins, NLopt's descents and the Newton polish) runs as a fiber (a stack of its own, switched to
// and from on the calling thread) whose Problem routes its backend work here (Problem::lockstep). Once every
// routine is waiting, their one-point evaluations run as one batched Model::logpdf, and any other backend work
// they asked for (finite-difference Hessians, the turning test) runs in turn. Each routine sees exactly the
// values it would see alone, in the same order, so it takes the same steps and ends where it would alone; only the
// number of likelihood calls changes (one per step of all the routines, instead of one per step of each). Fibers,
// not threads: a step of a small model costs microseconds, about what waking a thread does. The held fits use it
// where the backend says batched calls pay (PluginBackend::batched_calls_pay: a device's latency per call); on
// the cpu plugin a point costs the same alone or batched and the searches run one at a time
// (docs/decisions/held-basin-search-lockstep.md). Switches are announced to ASan and TSan (routines_on_fibers.cpp).
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include "hfcore/bound_likelihood.hpp"
#include "hfcore/model.hpp"

namespace hf::infer::detail {

class Lockstep {
public:
    // `lik`: the likelihood every routine's Problem is bound to, on `model` (the calling thread's).
    Lockstep(const Model& model, const BoundLikelihood& lik);
    ~Lockstep();

    // Runs every task until all have returned; the first exception a task throws is rethrown here (after the
    // others have finished).
    void run(const std::vector<std::function<void()>>& tasks);

    // From a task: logpdf at the parameter point x and, when grad is given, its gradient (BoundLikelihood::logpdf
    // of one point).
    double logpdf(const std::vector<double>& x, std::vector<double>* grad);
    // From a task: fn() once every task waits (other backend work; its exception is rethrown here).
    void on_host(const std::function<void()>& fn);

private:
    struct Fiber;
    struct Scheduler;  // the calling thread's context while a fiber runs
    struct Request {
        const std::vector<double>* x = nullptr;     // a logpdf request, or
        const std::function<void()>* fn = nullptr;  // other work
        std::vector<double>* grad = nullptr;
        double value = 0.0;
        std::exception_ptr error;  // fn's
    };
    static void enter(unsigned hi, unsigned lo);  // a fiber's entry (makecontext passes ints)
    void wait_for(Request& r);                    // from the running fiber: back to run() until r is served
    void serve(std::vector<Request*>& batch);

    const Model& model_;
    BoundLikelihood lik_;
    std::vector<std::unique_ptr<Fiber>> fibers_;
    Fiber* current_ = nullptr;
    std::unique_ptr<Scheduler> scheduler_;
};

}  // namespace hf::infer::detail

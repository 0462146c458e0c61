// Many single-fit routines of one likelihood run as one batched computation: each routine (a held fit's basin
// search: search_basins, NLopt's descents and the Newton polish) runs on a thread of its own whose Problem routes
// its backend work here (Problem::lockstep); once every routine is waiting, their one-point evaluations run as one
// batched Model::logpdf on the calling thread, and any other backend work they asked for (finite-difference
// Hessians, the turning test) runs there too, one request after another. Each routine sees exactly the values it
// would see alone, in the same order, so it takes the same steps and ends where it would alone; only the number
// of likelihood calls changes (one per step of all the routines, instead of one per step of each).
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <vector>

#include "hfcore/bound_likelihood.hpp"
#include "hfcore/model.hpp"

namespace hf::infer::detail {

class Lockstep {
public:
    // `lik`: the likelihood every routine's Problem is bound to, on `model` (the calling thread's).
    Lockstep(const Model& model, const BoundLikelihood& lik) : model_(model), lik_(lik) {}

    // Runs every task, each on a thread of its own, until all have returned; the first exception a task throws is
    // rethrown here.
    void run(const std::vector<std::function<void()>>& tasks);

    // From a task: logpdf at the parameter point x and, when grad is given, its gradient (BoundLikelihood::logpdf
    // of one point).
    double logpdf(const std::vector<double>& x, std::vector<double>* grad);
    // From a task: fn() on the calling thread (other backend work).
    void on_host(const std::function<void()>& fn);

private:
    struct Request {
        const std::vector<double>* x = nullptr;  // a logpdf request, or
        const std::function<void()>* fn = nullptr;  // other work
        std::vector<double>* grad = nullptr;
        double value = 0.0;
        std::exception_ptr error;  // fn's, rethrown in its task
        bool done = false;
    };
    void wait_for(Request& r);
    void serve(std::vector<Request*>& batch);

    const Model& model_;
    BoundLikelihood lik_;
    std::mutex mutex_;
    std::condition_variable all_waiting_, served_;
    std::vector<Request*> pending_;
    std::size_t live_ = 0;
    std::exception_ptr error_;
};

}  // namespace hf::infer::detail

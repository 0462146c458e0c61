// `hfcore yields`: pre- or post-fit yields per channel, sample and bin, with the total's uncertainty by linear
// error propagation (cabinetry model_utils.yield_stdev), and the data.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_options.hpp"

namespace {

struct Options {
    hf::cli::ModelOptions model;
    bool postfit = false;
    bool hessian = false;
};

const hf::cli::Register reg(
    "yields", "Pre-fit (or post-fit) yields with uncertainty bands, and the data, per channel and bin.",
    [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        hf::cli::add_convention_flag(sub, o->hessian);
        sub.add_flag("--postfit", o->postfit, "At the best fit, with the fit's covariance (default: pre-fit)");
        return [o]() {
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            hf::infer::DiagnosticOptions d;
            d.uncertainties = hf::cli::convention(o->hessian);
            const auto r = hf::infer::yields(*lm.model, lm.data, o->postfit, d);
            const bool ok = !r.fit || r.fit->converged;
            if (!ok) hf::cli::warn("the fit did not converge: " + r.fit->reason);
            hf::cli::emit(hf::infer::to_json(r), o->model);
            return ok ? 0 : 1;
        };
    });

}  // namespace

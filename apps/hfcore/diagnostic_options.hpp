// Options shared by the diagnostic subcommands (pulls, ranking, yields, profile, gof, fit --minos).
#pragma once

#include <CLI/CLI.hpp>
#include "hfcore/diagnostics.hpp"

namespace hf::cli {

// --threads and --no-batch: how the fits with parameters held (ranking, profile, minos) run.
struct FixedFitOptions {
    int threads = 0;
    bool no_batch = false;
    void add_to(CLI::App& sub);
    infer::DiagnosticOptions diagnostic_options() const;
};

// --hessian-uncertainties: post-fit uncertainties from the Hessian instead of Minuit's (cabinetry's) convention.
void add_convention_flag(CLI::App& sub, bool& hessian);
inline infer::UncertaintyConvention convention(bool hessian) {
    return hessian ? infer::UncertaintyConvention::hessian : infer::UncertaintyConvention::minuit;
}

}  // namespace hf::cli

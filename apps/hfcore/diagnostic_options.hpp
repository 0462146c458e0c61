// Options shared by the diagnostic subcommands (pulls, ranking, yields, profile, gof, fit --minos).
#pragma once

#include <CLI/CLI.hpp>
#include "hfcore/diagnostics.hpp"
#include "progress_bar.hpp"

namespace hf::cli {

// --no-batch and (fit --minos) --threads: how the fits with parameters held (ranking, profile, minos) run.
// ranking and profile take --threads from RunOptions: their fits run through the executor.
struct HeldFitOptions {
    int threads = 0;
    bool no_batch = false;
    void add_to(CLI::App& sub, bool with_threads = true);
    infer::DiagnosticOptions diagnostic_options() const;
};

// A progress callback that draws `bar` under `label` (the diagnostics report their fits as "fits").
inline infer::ProgressFn progress_as(ProgressBar& bar, const std::string& label) {
    return [cb = bar.callback(), label](std::int64_t done, std::int64_t total, const std::string&) {
        cb(done, total, label);
    };
}

// --hessian-uncertainties: post-fit uncertainties from the Hessian instead of Minuit's (cabinetry's) convention.
void add_convention_flag(CLI::App& sub, bool& hessian);
inline infer::UncertaintyConvention convention(bool hessian) {
    return hessian ? infer::UncertaintyConvention::hessian : infer::UncertaintyConvention::minuit;
}

}  // namespace hf::cli

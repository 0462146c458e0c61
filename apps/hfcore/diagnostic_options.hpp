// Options and JSON pieces shared by the diagnostic subcommands (pulls, ranking, yields, profile, gof, fit --minos).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <vector>

#include "hfcore/diagnostics.hpp"
#include "hfcore/json.hpp"

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

// A number, or null when it is absent or not finite (JSON has no NaN).
json::Value number_or_null(std::optional<double> v);
// {"par_names": [...], "matrix": [[...], ...]} of a row-major [P, P] correlation matrix.
json::Value correlations_json(const std::vector<std::string>& names, const std::vector<double>& matrix);
// The fit's twice_nll, converged and reason, for the outputs that fit first.
void add_fit_summary(json::Object& out, const infer::FitResult& fit);

}  // namespace hf::cli

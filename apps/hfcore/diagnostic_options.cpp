#include "diagnostic_options.hpp"

#include <cmath>

namespace hf::cli {

void FixedFitOptions::add_to(CLI::App& sub) {
    sub.add_option("--threads", threads,
                   "Worker threads for fits run alone (default: the number of CPUs)")
        ->capture_default_str();
    sub.add_flag("--no-batch", no_batch,
                 "Run every fit with parameters held alone (NLopt + Newton) instead of as one batched fit");
}

infer::DiagnosticOptions FixedFitOptions::diagnostic_options() const {
    infer::DiagnosticOptions o;
    o.threads = threads;
    o.batched = !no_batch;
    return o;
}

void add_convention_flag(CLI::App& sub, bool& hessian) {
    sub.add_flag("--hessian-uncertainties", hessian,
                 "Post-fit uncertainties from the inverse Hessian itself, not as Minuit (and cabinetry) report "
                 "them for bounded parameters");
}

json::Value number_or_null(std::optional<double> v) {
    if (!v || !std::isfinite(*v)) return json::Value();
    return json::Value(*v);
}

json::Value correlations_json(const std::vector<std::string>& names, const std::vector<double>& matrix) {
    const std::size_t n = names.size();
    json::Array rows;
    for (std::size_t i = 0; i < n; ++i) {
        json::Array row;
        for (std::size_t j = 0; j < n; ++j) row.emplace_back(matrix[i * n + j]);
        rows.emplace_back(std::move(row));
    }
    json::Array par_names;
    for (const auto& s : names) par_names.emplace_back(s);
    json::Object corr;
    corr.set("par_names", json::Value(std::move(par_names)));
    corr.set("matrix", json::Value(std::move(rows)));
    return corr;
}

void add_fit_summary(json::Object& out, const infer::FitResult& fit) {
    out.set("twice_nll", fit.twice_nll);
    out.set("fit_converged", fit.converged);
    out.set("fit_reason", json::Value(fit.reason));
}

}  // namespace hf::cli

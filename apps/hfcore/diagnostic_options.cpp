#include "diagnostic_options.hpp"

namespace hf::cli {

void HeldFitOptions::add_to(CLI::App& sub, bool with_threads) {
    if (with_threads)
        sub.add_option("--threads", threads,
                       "Worker threads for fits run alone (default: the number of CPUs)")
            ->capture_default_str()
            ->check(CLI::Range(0, 4096));
    sub.add_flag("--no-batch", no_batch,
                 "Run every fit with parameters held alone (NLopt + Newton) instead of as one batched fit");
}

infer::DiagnosticOptions HeldFitOptions::diagnostic_options() const {
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

}  // namespace hf::cli

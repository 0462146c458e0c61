// FitConfig: pyhf's init_pars / par_bounds / fixed_params, with pyhf's validation.
#include <cmath>
#include <sstream>

#include "common/names.hpp"
#include "hfcore/infer.hpp"

namespace hf::infer {

namespace {
// (Built with a stream: GCC 12 warns falsely (-Wrestrict) on chained std::string operator+ here.)
std::string index_path(const char* name, std::size_t i) {
    std::ostringstream os;
    os << name << '[' << i << ']';
    return os.str();
}
}  // namespace

namespace {
const hf::detail::Names<FitAlgorithm, 3> kAlgorithms{
    {{{FitAlgorithm::automatic, "auto"}, {FitAlgorithm::lbfgs, "lbfgs"}, {FitAlgorithm::slsqp, "slsqp"}}}};
}  // namespace

FitAlgorithm parse_fit_algorithm(const std::string& name) {
    return kAlgorithms.parse(name, "fit", "algorithm",
                             "unknown fit algorithm '" + name + "' (expected " + kAlgorithms.list() + ")");
}

const char* fit_algorithm_name(FitAlgorithm algorithm) { return kAlgorithms.name(algorithm); }

FitConfig FitConfig::suggested(const Model& model) {
    return FitConfig{model.suggested_init(), model.suggested_bounds(), model.suggested_fixed()};
}

FitConfig FitConfig::resolved(const Model& model) const {
    FitConfig out;
    out.init = init.empty() ? model.suggested_init() : init;
    out.bounds = bounds.empty() ? model.suggested_bounds() : bounds;
    out.fixed = fixed.empty() ? model.suggested_fixed() : fixed;
    const auto np = static_cast<std::size_t>(model.n_pars());
    auto check_len = [&](std::size_t n, const char* what) {
        if (n != np) {
            std::ostringstream os;
            os << what << " has " << n << " entries but the model has " << np << " parameters";
            throw InputError("fit", what, os.str());
        }
    };
    check_len(out.init.size(), "init_pars");
    check_len(out.bounds.size(), "par_bounds");
    check_len(out.fixed.size(), "fixed_params");
    const auto names = model.par_names();
    for (std::size_t i = 0; i < np; ++i) {
        const double v = out.init[i];
        const auto [lo, hi] = out.bounds[i];
        if (!(lo <= v && v <= hi)) {
            std::ostringstream os;
            os.precision(17);
            os << "fit initialization parameter (index: " << i << ", name: " << names[i] << ", value: " << v
               << ") lies outside of its bounds: [" << lo << ", " << hi
               << "]. Adjust the initialization values in the model spec or those given to the fit, or the "
                  "parameter bounds.";
            throw InputError("fit", index_path("init_pars", i), os.str());
        }
        if (!std::isfinite(v)) throw InputError("fit", index_path("init_pars", i), "not finite");
    }
    return out;
}

}  // namespace hf::infer

// Pre-fit widths, constraint centres and Asimov values of the parameters, as cabinetry.model_utils defines
// them; and parameter lookups by name for the diagnostics.
#include <cmath>
#include <sstream>

#include "infer/diagnostics/parameter_lookup.hpp"
#include "hfcore/observed_data.hpp"

namespace hf::infer {

namespace detail {

std::int64_t parameter_index(const Model& model, const std::string& name, const std::string& command) {
    const auto names = model.par_names();
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == name) return static_cast<std::int64_t>(i);
    std::ostringstream os;
    os << "unknown parameter '" << name << "'; the model's parameters are:";
    for (std::size_t i = 0; i < names.size() && i < 40; ++i) os << (i ? ", " : " ") << names[i];
    if (names.size() > 40) os << ", ... (" << names.size() << " in all)";
    throw InputError(command, "parameter", os.str());
}

std::vector<ParameterRef> parameter_refs(const Model& model) {
    std::vector<ParameterRef> refs(static_cast<std::size_t>(model.n_pars()));
    for (const auto& ps : model.parameter_sets())
        for (std::int64_t i = 0; i < ps.n; ++i)
            refs[static_cast<std::size_t>(ps.offset + i)] = {&ps, static_cast<std::size_t>(i)};
    return refs;
}

}  // namespace detail

std::vector<double> prefit_uncertainties(const Model& model) {
    std::vector<double> w(static_cast<std::size_t>(model.n_pars()), 0.0);
    for (const auto& ps : model.parameter_sets()) {
        if (!ps.constrained) continue;
        for (std::int64_t i = 0; i < ps.n; ++i) {
            const auto c = static_cast<std::size_t>(i);
            if (c < ps.fixed.size() && ps.fixed[c]) continue;
            double width = 0.0;
            if (ps.constraint == "normal" && c < ps.sigmas.size()) width = ps.sigmas[c];
            if (ps.constraint == "poisson" && c < ps.factors.size() && ps.factors[c] > 0) width = 1.0 / std::sqrt(ps.factors[c]);
            w[static_cast<std::size_t>(ps.offset + i)] = width;
        }
    }
    return w;
}

std::vector<double> constraint_centres(const Model& model, const std::vector<double>& data) {
    const auto n_main = static_cast<std::size_t>(model.n_main());
    check_observed_data(model, data, "diagnostics");
    std::vector<double> centre(static_cast<std::size_t>(model.n_pars()), 0.0);
    std::size_t aux = n_main;  // the aux data follow the constrained parameter sets in parameter order
    for (const auto& ps : model.parameter_sets()) {
        for (std::int64_t i = 0; i < ps.n; ++i) {
            const auto c = static_cast<std::size_t>(i);
            double& v = centre[static_cast<std::size_t>(ps.offset + i)];
            if (!ps.constrained) {
                v = c < ps.inits.size() ? ps.inits[c] : 0.0;
                continue;
            }
            const double a = data[aux++];
            v = ps.constraint == "poisson" && c < ps.factors.size() && ps.factors[c] > 0 ? a / ps.factors[c] : a;
        }
    }
    return centre;
}

std::vector<double> asimov_parameters(const Model& model) {
    std::vector<double> pars(static_cast<std::size_t>(model.n_pars()), 0.0);
    for (const auto& ps : model.parameter_sets())
        for (std::int64_t i = 0; i < ps.n; ++i) {
            const auto c = static_cast<std::size_t>(i);
            double v = 1.0;
            if (!ps.constrained)
                v = c < ps.inits.size() ? ps.inits[c] : 1.0;
            else if (ps.modifier_type == ModifierType::histosys || ps.modifier_type == ModifierType::normsys)
                v = 0.0;
            pars[static_cast<std::size_t>(ps.offset + i)] = v;
        }
    return pars;
}

}  // namespace hf::infer

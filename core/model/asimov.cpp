// Asimov data sets of a model: its expected data (main and auxiliary) taken as the observation.
#include <sstream>

#include "hfcore/errors.hpp"
#include "hfcore/asimov.hpp"

namespace hf {

std::vector<double> asimov_data(const Model& model, const std::vector<double>& pars) {
    if (pars.size() != static_cast<std::size_t>(model.n_pars()))
        throw InputError("asimov_data", "pars",
                         std::to_string(pars.size()) + " parameters for a model of " + std::to_string(model.n_pars()));
    return model.expected_data(pars, true);
}

std::vector<double> asimov_data(const Model& model, double poi_value) {
    if (model.poi_index() < 0) throw InputError("asimov_data", "poi", "the model has no POI (the measurement names none)");
    const auto poi = static_cast<std::size_t>(model.poi_index());
    const auto [lo, hi] = model.suggested_bounds()[poi];
    if (!(poi_value >= lo && poi_value <= hi)) {
        std::ostringstream os;
        os.precision(17);
        os << "the POI '" << model.poi_name() << "' = " << poi_value << " lies outside its bounds [" << lo << ", " << hi
           << "]";
        throw InputError("asimov_data", "poi", os.str());
    }
    auto pars = model.suggested_init();
    pars[poi] = poi_value;
    return asimov_data(model, pars);
}

}  // namespace hf

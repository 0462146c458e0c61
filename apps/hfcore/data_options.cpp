// --data observed|asimov, --asimov-mu, --asimov-np nominal|fitted and --blind PATTERN: which data a command
// analyses (pyhf infer.calculators.generate_asimov_data for the fitted Asimov set) and which channels' data it
// must not show.
#include <fnmatch.h>

#include <algorithm>
#include <sstream>

#include "common_options.hpp"
#include "hfcore/asimov.hpp"
#include "option_checks.hpp"

namespace hf::cli {

void ModelOptions::add_data_options(CLI::App& sub) {
    data.declared = true;
    // Two-valued options: the value shown in --help, and nothing else accepted.
    auto choice = [&](const char* name, std::string& value, const char* help, std::vector<std::string> allowed) {
        sub.add_option(name, value, help)->capture_default_str()->check(CLI::IsMember(std::move(allowed)));
    };
    choice("--data", data.kind,
           "observed: the workspace's observations; asimov: the expected data at --asimov-mu with the nuisance "
           "parameters as --asimov-np says (auxiliary data included)",
           {"observed", "asimov"});
    choice("--asimov-np", data.asimov_np,
           "Nuisance parameters of the Asimov data: nominal (their suggested init) or fitted (to the observed data "
           "with the POI held at --asimov-mu, as pyhf's generate_asimov_data)",
           {"nominal", "fitted"});
    sub.add_option("--asimov-mu", data.asimov_mu,
                   "POI value of the Asimov data (default: the POI's suggested init); must lie within the POI's "
                   "bounds")
        ->check(kFiniteNumber);
    sub.add_option("--blind", data.blind,
                   "Hide the POI's fitted (observed) value and the observed data of the channels matching this "
                   "glob pattern (repeatable) from every output; a pattern matching no channel is an error");
}

std::vector<double> asimov_from_options(const Model& model, const std::vector<double>& observed,
                                        const DataOptions& o) {
    const bool has_poi = model.poi_index() >= 0;
    if (o.asimov_mu && !has_poi)
        throw InputError("--asimov-mu", "", "the model has no POI (the measurement names none)");
    const std::size_t poi = has_poi ? static_cast<std::size_t>(model.poi_index()) : 0;
    const double mu = o.asimov_mu ? *o.asimov_mu : has_poi ? model.suggested_init()[poi] : 0.0;
    if (has_poi) check_poi_value(model, mu, "--asimov-mu");
    auto pars = model.suggested_init();
    if (o.asimov_np == "fitted") {
        const auto fit = has_poi ? infer::fixed_poi_fit(mu, model, observed) : infer::fit(model, observed);
        if (!fit.converged)
            warn("the fit of the nuisance parameters for the Asimov data did not converge: " + fit.reason);
        pars = fit.bestfit;
    }
    if (has_poi) pars[poi] = mu;
    return asimov_data(model, pars);
}

void check_data_options(const DataOptions& o) {
    if (o.kind == "observed" && (o.asimov_mu || o.asimov_np != "nominal"))
        throw InputError(o.asimov_mu ? "--asimov-mu" : "--asimov-np", "", "applies only with --data asimov");
}

std::vector<std::string> blinded_channels(const std::vector<std::string>& channels, const DataOptions& o) {
    std::vector<std::string> out;
    for (const auto& pattern : o.blind) {
        bool any = false;
        for (const auto& c : channels)
            if (fnmatch(pattern.c_str(), c.c_str(), 0) == 0) {
                any = true;
                if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
            }
        if (!any) {
            std::string names;
            for (const auto& c : channels) names += (names.empty() ? "" : ", ") + c;
            throw InputError("--blind", "", "the pattern '" + pattern + "' matches no channel (channels: " + names +
                                                ")");
        }
    }
    return out;
}

void describe_data(json::Value& v, std::optional<double> poi_init, const DataOptions& o) {
    if (o.kind != "asimov" || !v.is_object()) return;
    json::Object d;
    d.set("kind", json::Value("asimov"));
    const std::optional<double> mu = o.asimov_mu ? o.asimov_mu : poi_init;
    d.set("asimov_mu", mu ? json::Value(*mu) : json::Value());  // null: each model's POI init (scan)
    d.set("asimov_np", json::Value(o.asimov_np));
    v.as_object().set("dataset", json::Value(std::move(d)));
}

std::string asimov_description(const Model& model, const DataOptions& o) {
    std::ostringstream os;
    os.precision(12);
    os << "data: the Asimov data set";
    if (model.poi_index() >= 0)
        os << " at " << model.poi_name() << " = "
           << (o.asimov_mu ? *o.asimov_mu : model.suggested_init()[static_cast<std::size_t>(model.poi_index())]);
    os << ", nuisance parameters "
       << (o.asimov_np == "fitted" ? "fitted to the observed data with the POI held" : "at their nominal values");
    return os.str();
}

json::Value presented(json::Value v, const ModelOptions& options, const LoadedModel& lm) {
    const auto poi = lm.model->poi_index();
    describe_data(v, poi >= 0 ? std::optional<double>(lm.model->suggested_init()[static_cast<std::size_t>(poi)])
                              : std::nullopt,
                  options.data);
    if (!lm.blinded.empty()) blind_json(v, lm.model->poi_name(), lm.blinded);
    return v;
}

}  // namespace hf::cli

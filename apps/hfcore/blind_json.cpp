// --blind: what a command's JSON result must not show. Observed results of the POI (its fitted value, the observed
// CLs, limits, p-values and significances, the POI's profile and MINOS interval) and the observed data of the
// blinded channels become the string "blinded"; the result says what was hidden. Expected results stay.
#include <algorithm>
#include <set>

#include "common_options.hpp"

namespace hf::cli {

namespace {

const char* const kBlinded = "blinded";

// Keys that hold an observed result of the POI, wherever they appear (cls, upper-limit, significance, scan,
// ranking).
const std::set<std::string>& observed_keys() {
    static const std::set<std::string> keys{"CLs_obs", "obs", "p0_obs", "significance_obs", "n_excluded_obs",
                                            "poi_hat"};
    return keys;
}

bool contains(const json::Value& names, const std::string& name) {
    if (!names.is_array()) return false;
    const auto& a = names.as_array();
    return std::any_of(a.begin(), a.end(), [&](const json::Value& v) { return v.is_string() && v.as_string() == name; });
}

struct Blinder {
    const std::string& poi;
    const std::vector<std::string>& channels;

    void walk(json::Value& v) const {
        if (v.is_array()) {
            for (auto& x : v.as_array()) walk(x);
            return;
        }
        if (!v.is_object()) return;
        auto& o = v.as_object();
        const json::Value* name = o.find("name");
        const bool is_poi_entry = !poi.empty() && name && name->is_string() && name->as_string() == poi;
        const bool is_blinded_channel = name && name->is_string() && o.find("samples") &&
                                        std::find(channels.begin(), channels.end(), name->as_string()) != channels.end();
        // A profile of the POI: its points and intervals locate the fitted value.
        const bool poi_profile = !poi.empty() && o.find("pars") && contains(*o.find("pars"), poi);
        for (auto& [key, value] : o) {
            if (observed_keys().count(key) || (is_blinded_channel && key == "data") ||
                (is_poi_entry && (key == "value" || key == "pull" || key == "lower" || key == "upper")) ||
                (poi_profile && (key == "points" || key == "intervals" || key == "bestfit"))) {
                value = json::Value(kBlinded);
                continue;
            }
            // {parameter name: values} maps (fit's mle_parameters, minos) keyed by the POI.
            if ((key == "mle_parameters" || key == "minos" || key == "minos_details") && value.is_object())
                if (auto* x = value.as_object().find(poi); x && !poi.empty()) *x = json::Value(kBlinded);
            walk(value);
        }
    }
};

}  // namespace

void blind_json(json::Value& v, const std::string& poi, const std::vector<std::string>& channels) {
    Blinder{poi, channels}.walk(v);
    if (!v.is_object()) return;
    json::Object b;
    b.set("channels", to_json(channels));
    b.set("hidden", json::Value("the POI's fitted value and observed results; the observed data of these channels"));
    v.as_object().set("blinded", json::Value(std::move(b)));
}

}  // namespace hf::cli

#include "registry.hpp"

#include <iostream>
#include <map>
#include <memory>
#include <utility>

#include "hfcore/loader.hpp"

namespace hf::bench {

namespace {

const std::string kErjrPatch = "patch.ERJR_100p0_20p0.json";
const std::string kSbottom = "sbottom_regionA_1300_205_60";
// The synthetic model: 1 channel of 1000 bins, 100 nuisance parameters (normsys and histosys; see
// synthetic_workspace for the recipe).
constexpr std::int64_t kSyntheticBins = 1000, kSyntheticNuisance = 100;

std::string erjr_dir() { return shared_dir() + "/data/atlas-3l-erjr"; }
std::string sbottom_file() { return shared_dir() + "/validation/pyhf-validation/" + kSbottom + "/workspace.json"; }

}  // namespace

std::vector<BackendChoice> usable_backends() {
    std::vector<BackendChoice> out;
    for (const auto& p : list_plugins()) {
        if (!p.loaded) {
            std::cerr << "skipped backend " << p.name << ": " << p.load_error << "\n";
            continue;
        }
        if (!p.probe.usable) {
            std::cerr << "skipped backend " << p.name << ": " << p.probe.reason << "\n";
            continue;
        }
        for (const char* prec : {"64b", "32b"}) {
            try {
                LoadOptions lo;
                lo.precision = hf::parse_precision(prec);
                (void)load_backend(p.name, lo);
                out.push_back({p.name, prec});
            } catch (const std::exception& e) {
                std::cerr << "skipped backend " << p.name << "/" << prec << ": " << e.what() << "\n";
            }
        }
    }
    return out;
}

std::vector<WorkloadChoice> workload_choices() {
    std::vector<WorkloadChoice> out;
    const std::string erjr_bkg = erjr_dir() + "/BkgOnly.json";
    if (file_exists(erjr_bkg) && file_exists(erjr_dir() + "/" + kErjrPatch))
        out.push_back({"erjr", true, ""});
    else
        out.push_back({"erjr", false, erjr_bkg + " not found (set HFCORE_SHARED_DIR)"});
    if (file_exists(sbottom_file()))
        out.push_back({"sbottom", true, ""});
    else
        out.push_back({"sbottom", false, sbottom_file() + " not found (set HFCORE_SHARED_DIR)"});
    out.push_back({"synthetic", true, ""});
    return out;
}

const Workload& workload(const std::string& name, const BackendChoice& backend) {
    static std::map<std::pair<std::string, std::string>, std::unique_ptr<Workload>> cache;
    auto key = std::make_pair(name, backend.label());
    auto it = cache.find(key);
    if (it != cache.end()) return *it->second;
    LoadOptions lo;
    lo.precision = hf::parse_precision(backend.precision);
    BackendPtr b = load_backend(backend.plugin, lo);
    Workload w;
    if (name == "erjr")
        w = load_workload(name, erjr_dir() + "/BkgOnly.json", {erjr_dir() + "/" + kErjrPatch}, b);
    else if (name == "sbottom")
        w = load_workload(name, sbottom_file(), {}, b);
    else
        w = load_workload_from_string(name, synthetic_workspace(kSyntheticBins, kSyntheticNuisance), b);
    return *cache.emplace(key, std::make_unique<Workload>(std::move(w))).first->second;
}

}  // namespace hf::bench

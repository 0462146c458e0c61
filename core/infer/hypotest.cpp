// pyhf.infer.hypotest: checks, calculator, observed and expected p-values. For q0 the reported value is the
// discovery p-value p0 (CLsb) and its expected band, as pyhf returns.
#include <string>

#include "common/names.hpp"
#include "hfcore/infer.hpp"
#include "infer/toys.hpp"
#include "hfcore/observed_data.hpp"

namespace hf::infer {

CalcType parse_calctype(const std::string& name) {
    if (name == "asymptotics") return CalcType::asymptotics;
    if (name == "toybased") return CalcType::toybased;
    throw InputError("", "calctype", "unknown calculator '" + name + "' (expected asymptotics or toybased)");
}

namespace {
const hf::detail::Names<BaseDist, 2> kBaseDists{
    {{{BaseDist::normal, "normal"}, {BaseDist::clipped_normal, "clipped_normal"}}}};
}  // namespace

BaseDist parse_base_dist(const std::string& name) {
    return kBaseDists.parse(name, "", "calc_base_dist", "unknown base distribution for asymptotics '" + name + "'");
}

const char* base_dist_name(BaseDist dist) { return kBaseDists.name(dist); }

HypotestResult hypotest(double poi_test, const Model& model, const std::vector<double>& data,
                        const HypotestOptions& options) {
    check_observed_data(model, data, "hypotest");
    const std::int64_t poi = model.poi_index();
    if (poi < 0) throw InputError("", "poi", "No POI is defined. A POI is required to run a hypothesis test.");
    const FitConfig cfg = options.config.resolved(model);
    if (cfg.fixed[poi])
        throw InputError("", "fixed_params[" + std::to_string(poi) + "]",
                         "POI at index [" + std::to_string(poi) +
                             "] is set as fixed, which makes profile likelihood ratio based inference impossible. "
                             "Please unfix the POI to continue.");
    HypotestOptions opts = options;
    opts.config = cfg;
    HypotestResult r;
    if (options.calctype == CalcType::asymptotics) {
        AsymptoticCalculator calc(model, data, opts);
        const double t = calc.teststatistic(poi_test);
        r = calc.details();
        auto p = calc.pvalues(t);
        r.CLsb_obs = p[0];
        r.CLb_obs = p[1];
        r.CLs_obs = p[2];
        auto e = calc.expected_pvalues();
        for (int i = 0; i < 5; ++i) {
            r.CLsb_exp[i] = e[i][0];
            r.CLb_exp[i] = e[i][1];
            r.CLs_exp[i] = e[i][2];
        }
    } else {
        if (options.ntoys < 1) throw InputError("", "ntoys", "ntoys must be at least 1");
        r = detail::toy_hypotest(poi_test, model, data, opts, cfg);
    }
    const bool q0 = options.test_stat == TestStat::q0;
    r.obs = q0 ? r.CLsb_obs : r.CLs_obs;
    r.exp = q0 ? r.CLsb_exp : r.CLs_exp;
    return r;
}

}  // namespace hf::infer

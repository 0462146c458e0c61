// The diagnostics' results as JSON (the CLI's output, the Python module's dicts): one place for the keys of
// docs/diagnostics.md.
#include <cmath>

#include "hfcore/diagnostics.hpp"

namespace hf::infer {

namespace {

json::Value number_or_null(std::optional<double> v) {
    if (!v || !std::isfinite(*v)) return json::Value();
    return json::Value(*v);
}

json::Value array(const std::vector<double>& v) {
    json::Array a;
    a.reserve(v.size());
    for (double x : v) a.emplace_back(x);
    return a;
}

json::Value strings(const std::vector<std::string>& v) {
    json::Array a;
    for (const auto& x : v) a.emplace_back(x);
    return a;
}

// The free fit that a diagnostic made first: -2 log L, converged and why.
void add_fit(json::Object& o, const FitResult& fit) {
    o.set("twice_nll", fit.twice_nll);
    o.set("fit_converged", fit.converged);
    o.set("fit_reason", json::Value(fit.reason));
}

json::Value matrix(const std::vector<std::string>& names, const std::vector<double>& m) {
    const std::size_t n = names.size();
    json::Array rows;
    for (std::size_t i = 0; i < n; ++i)
        rows.emplace_back(array(std::vector<double>(m.begin() + static_cast<std::ptrdiff_t>(i * n),
                                                    m.begin() + static_cast<std::ptrdiff_t>((i + 1) * n))));
    json::Object o;
    o.set("par_names", strings(names));
    o.set("matrix", json::Value(std::move(rows)));
    return o;
}

}  // namespace

json::Value to_json(const PullsResult& r, bool with_correlations) {
    json::Array pars;
    std::vector<std::string> names;
    for (const auto& p : r.parameters) {
        names.push_back(p.name);
        json::Object e;
        e.set("name", json::Value(p.name));
        e.set("value", p.value);
        e.set("uncertainty", p.uncertainty);
        e.set("pull", number_or_null(p.pull));
        e.set("constraint", number_or_null(p.constraint));
        e.set("hessian_uncertainty", p.hessian_uncertainty);
        e.set("constrained", p.constrained);
        e.set("fixed", p.fixed);
        e.set("centre", p.centre);
        e.set("prefit_uncertainty", p.prefit_uncertainty);
        pars.emplace_back(std::move(e));
    }
    json::Object out;
    out.set("parameters", json::Value(std::move(pars)));
    add_fit(out, r.fit);
    if (with_correlations) out.set("correlations", matrix(names, r.correlations));
    return out;
}

json::Value to_json(const RankingResult& r) {
    json::Array rows;
    for (const auto& e : r.ranking) {
        json::Object j;
        j.set("name", json::Value(e.name));
        j.set("value", e.value);
        j.set("uncertainty", e.uncertainty);
        j.set("prefit_uncertainty", e.prefit_uncertainty);
        j.set("centre", e.centre);
        j.set("impact_prefit_up", e.impact_prefit_up);
        j.set("impact_prefit_down", e.impact_prefit_down);
        j.set("impact_postfit_up", e.impact_postfit_up);
        j.set("impact_postfit_down", e.impact_postfit_down);
        j.set("converged", e.converged);
        if (!e.reason.empty()) j.set("reason", json::Value(e.reason));
        rows.emplace_back(std::move(j));
    }
    json::Object out;
    out.set("poi", json::Value(r.poi));
    out.set("poi_hat", r.poi_hat);
    out.set("poi_uncertainty", r.poi_uncertainty);
    out.set("ranking", json::Value(std::move(rows)));
    out.set("converged", r.converged);
    out.set("n_fits", json::Value(r.n_fits));
    out.set("n_batched", json::Value(r.n_batched));
    out.set("n_refits", json::Value(r.n_refits));
    add_fit(out, r.fit);
    return out;
}

json::Value to_json(const YieldsResult& r) {
    json::Array channels;
    for (const auto& c : r.channels) {
        json::Array samples;
        for (std::size_t s = 0; s < c.samples.size(); ++s) {
            json::Object so;
            so.set("name", json::Value(c.samples[s]));
            so.set("yields", array(c.yields[s]));
            so.set("stdev", array(c.stdev[s]));
            so.set("channel_sum", c.sample_sums[s]);
            so.set("channel_sum_stdev", c.sample_sums_stdev[s]);
            samples.emplace_back(std::move(so));
        }
        json::Object co;
        co.set("name", json::Value(c.name));
        co.set("samples", json::Value(std::move(samples)));
        co.set("total", array(c.total));
        co.set("total_stdev", array(c.total_stdev));
        co.set("data", array(c.data));
        co.set("channel_total", c.channel_total);
        co.set("channel_total_stdev", c.channel_total_stdev);
        channels.emplace_back(std::move(co));
    }
    json::Object out;
    out.set("postfit", r.postfit);
    out.set("channels", json::Value(std::move(channels)));
    if (r.fit) add_fit(out, *r.fit);
    return out;
}

json::Value to_json(const ProfileResult& r) {
    json::Array points;
    for (const auto& p : r.points) {
        json::Object j;
        j.set("values", array(p.values));
        j.set("delta_twice_nll", p.delta_twice_nll);
        j.set("twice_nll", p.twice_nll);
        j.set("converged", p.converged);
        points.emplace_back(std::move(j));
    }
    json::Object out;
    out.set("pars", strings(r.pars));
    out.set("points", json::Value(std::move(points)));
    if (!r.intervals.empty()) {
        json::Object iv;
        for (const auto& [level, ends] : r.intervals)
            iv.set(level, json::Value(json::Array{number_or_null(ends.first), number_or_null(ends.second)}));
        out.set("intervals", json::Value(std::move(iv)));
    }
    out.set("bestfit", array(r.bestfit));
    out.set("twice_nll_min", r.twice_nll_min);
    out.set("converged", r.converged);
    add_fit(out, r.free_fit);
    return out;
}

json::Value to_json(const GofResult& r) {
    json::Object out;
    out.set("twice_nll", r.twice_nll);
    out.set("twice_nll_saturated", r.twice_nll_saturated);
    out.set("chi2", r.chi2);
    out.set("ndof", json::Value(r.ndof));
    out.set("p_value", number_or_null(r.p_value));
    out.set("fit_converged", r.fit.converged);
    out.set("fit_reason", json::Value(r.fit.reason));
    return out;
}

json::Value to_json(const std::vector<MinosInterval>& r) {
    json::Object ends, details;
    for (const auto& iv : r) {
        ends.set(iv.name, json::Value(json::Array{json::Value(iv.lower), json::Value(iv.upper)}));
        json::Object d;
        d.set("value", iv.value);
        d.set("lower_at_bound", iv.lower_at_bound);
        d.set("upper_at_bound", iv.upper_at_bound);
        d.set("valid", iv.valid);
        d.set("n_fits", json::Value(iv.n_fits));
        if (!iv.valid) d.set("reason", json::Value(iv.reason));
        details.set(iv.name, json::Value(std::move(d)));
    }
    json::Object out;
    out.set("minos", json::Value(std::move(ends)));
    out.set("minos_details", json::Value(std::move(details)));
    return out;
}

}  // namespace hf::infer

// The statistics of a toy study (hfcore/toy_study.hpp): per injected value the bias and pulls of each
// parameter and the POI's coverage, and the linearity of the POI over the injected values; and the summary as
// JSON.
#include <cmath>
#include <initializer_list>
#include <limits>
#include <utility>

#include "hfcore/toy_study.hpp"

namespace hf::infer {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Mean and sample standard deviation (n - 1) of a sample; NaN where it is too small for them.
struct Moments {
    std::int64_t n = 0;
    double mean = kNaN, sd = kNaN;
};

Moments moments(const std::vector<double>& v) {
    Moments m;
    m.n = static_cast<std::int64_t>(v.size());
    if (v.empty()) return m;
    double s = 0.0;
    for (double x : v) s += x;
    m.mean = s / static_cast<double>(v.size());
    if (v.size() < 2) return m;
    double ss = 0.0;
    for (double x : v) ss += (x - m.mean) * (x - m.mean);
    m.sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
    return m;
}

double error_of_mean(const Moments& m) { return m.n >= 2 ? m.sd / std::sqrt(static_cast<double>(m.n)) : kNaN; }
// The standard error of a normal sample's standard deviation.
double error_of_width(const Moments& m) {
    return m.n >= 2 ? m.sd / std::sqrt(2.0 * static_cast<double>(m.n - 1)) : kNaN;
}

ParameterPulls parameter_pulls(const ToyStudyPoint& point, std::int64_t i, std::int64_t np, const std::string& name,
                               bool fixed) {
    ParameterPulls s;
    s.name = name;
    s.fixed = fixed;
    s.truth = point.truth[i];
    std::vector<double> fitted, pulls, sigmas;
    const auto& t = point.toys;
    for (std::int64_t k = 0; k < t.size(); ++k) {
        if (!t.converged[k]) continue;
        const double x = t.bestfit[k * np + i], sigma = t.uncertainties[k * np + i];
        fitted.push_back(x);
        if (t.hessian_ok[k] && sigma > 0.0) {
            pulls.push_back((x - s.truth) / sigma);
            sigmas.push_back(sigma);
        }
    }
    if (fixed) {
        s.n = static_cast<std::int64_t>(fitted.size());
        s.mean = s.truth;
        s.mean_error = s.bias = s.bias_error = s.spread = 0.0;
        s.mean_uncertainty = s.pull_mean = s.pull_mean_error = s.pull_width = s.pull_width_error = kNaN;
        return s;
    }
    const Moments f = moments(fitted), p = moments(pulls), u = moments(sigmas);
    s.n = f.n;
    s.n_pulls = p.n;
    s.mean = f.mean;
    s.mean_error = error_of_mean(f);
    s.bias = f.mean - s.truth;
    s.bias_error = s.mean_error;
    s.spread = f.sd;
    s.mean_uncertainty = u.mean;
    s.pull_mean = p.mean;
    s.pull_mean_error = error_of_mean(p);
    s.pull_width = p.sd;
    s.pull_width_error = error_of_width(p);
    return s;
}

Coverage coverage(const ToyStudyPoint& point, std::int64_t poi, std::int64_t np, double nominal, double z) {
    Coverage c;
    c.nominal = nominal;
    c.z = z;
    std::int64_t inside = 0;
    const auto& t = point.toys;
    for (std::int64_t k = 0; k < t.size(); ++k) {
        const double sigma = t.uncertainties[k * np + poi];
        if (!t.converged[k] || !t.hessian_ok[k] || !(sigma > 0.0)) continue;
        ++c.n;
        if (std::fabs(t.bestfit[k * np + poi] - point.poi_value) <= z * sigma) ++inside;
    }
    c.fraction = c.n > 0 ? static_cast<double>(inside) / static_cast<double>(c.n) : kNaN;
    c.error = c.n > 0 ? std::sqrt(c.fraction * (1.0 - c.fraction) / static_cast<double>(c.n)) : kNaN;
    return c;
}

json::Value number(double x) { return std::isfinite(x) ? json::Value(x) : json::Value(); }

// The named double members of `x` as JSON numbers (null where not finite).
template <class T, class Fields>
json::Object numbers_of(const T& x, const Fields& fields) {
    json::Object o;
    for (const auto& [name, member] : fields) o.set(name, number(x.*member));
    return o;
}

template <class T>
json::Object numbers(const T& x, std::initializer_list<std::pair<const char*, double T::*>> fields) {
    return numbers_of(x, fields);
}

const std::pair<const char*, double ParameterPulls::*> kParameterFields[] = {
    {"truth", &ParameterPulls::truth},
    {"mean", &ParameterPulls::mean},
    {"mean_error", &ParameterPulls::mean_error},
    {"bias", &ParameterPulls::bias},
    {"bias_error", &ParameterPulls::bias_error},
    {"spread", &ParameterPulls::spread},
    {"mean_uncertainty", &ParameterPulls::mean_uncertainty},
    {"pull_mean", &ParameterPulls::pull_mean},
    {"pull_mean_error", &ParameterPulls::pull_mean_error},
    {"pull_width", &ParameterPulls::pull_width},
    {"pull_width_error", &ParameterPulls::pull_width_error}};

}  // namespace

Linearity poi_linearity(const std::vector<ToyStudyPoint>& points, std::int64_t poi_index) {
    Linearity l;
    double s = 0, sx = 0, sxx = 0, sy = 0, sxy = 0;
    std::vector<double> xs, ys, ws;
    for (const auto& p : points) {
        const auto& q = p.parameters[poi_index];
        if (!(q.mean_error > 0.0) || !std::isfinite(q.mean)) continue;
        const double w = 1.0 / (q.mean_error * q.mean_error);
        xs.push_back(p.poi_value);
        ys.push_back(q.mean);
        ws.push_back(w);
        s += w;
        sx += w * p.poi_value;
        sxx += w * p.poi_value * p.poi_value;
        sy += w * q.mean;
        sxy += w * p.poi_value * q.mean;
    }
    const double delta = s * sxx - sx * sx;
    if (xs.size() < 2 || !(delta > 1e-12 * s * sxx)) return l;  // fewer than two distinct injected values
    l.defined = true;
    l.slope = (s * sxy - sx * sy) / delta;
    l.offset = (sxx * sy - sx * sxy) / delta;
    l.slope_error = std::sqrt(s / delta);
    l.offset_error = std::sqrt(sxx / delta);
    l.correlation = -sx / std::sqrt(s * sxx);
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const double r = ys[i] - l.offset - l.slope * xs[i];
        l.chi2 += ws[i] * r * r;
    }
    l.ndf = static_cast<std::int64_t>(xs.size()) - 2;
    return l;
}

void summarise(ToyStudyResult& result) {
    const auto np = static_cast<std::int64_t>(result.par_names.size());
    result.fallback = 0;
    for (auto& point : result.points) {
        const auto& t = point.toys;
        point.ntoys = t.size();
        point.n_converged = point.n_hessian_ok = 0;
        for (std::int64_t k = 0; k < t.size(); ++k) {
            point.n_converged += t.converged[k];
            point.n_hessian_ok += t.converged[k] && t.hessian_ok[k];
        }
        point.parameters.clear();
        for (std::int64_t i = 0; i < np; ++i)
            point.parameters.push_back(parameter_pulls(point, i, np, result.par_names[i], result.fixed[i]));
        point.coverage = {coverage(point, result.poi_index, np, 0.6826894921370859, 1.0),
                          coverage(point, result.poi_index, np, 0.95, 1.959963984540054)};
        result.fallback += t.fallback;
    }
    result.linearity = poi_linearity(result.points, result.poi_index);
}

ToyColumns toy_columns(const ToyStudyResult& result) {
    ToyColumns c;
    const auto np = static_cast<std::int64_t>(result.par_names.size());
    c.cols = np;
    for (const auto& p : result.points) {
        const auto& t = p.toys;
        c.bestfit.insert(c.bestfit.end(), t.bestfit.begin(), t.bestfit.end());
        c.uncertainties.insert(c.uncertainties.end(), t.uncertainties.begin(), t.uncertainties.end());
        c.twice_nll.insert(c.twice_nll.end(), t.twice_nll.begin(), t.twice_nll.end());
        c.converged.insert(c.converged.end(), t.converged.begin(), t.converged.end());
        c.hessian_ok.insert(c.hessian_ok.end(), t.hessian_ok.begin(), t.hessian_ok.end());
        for (std::int64_t k = 0; k < t.size(); ++k) {
            c.poi_true.push_back(p.poi_value);
            c.toy.push_back(k);
            c.truth.insert(c.truth.end(), p.truth.begin(), p.truth.end());
            for (std::int64_t i = 0; i < np; ++i) {
                const double sigma = t.uncertainties[k * np + i];
                c.pull.push_back(t.hessian_ok[k] && sigma > 0.0 ? (t.bestfit[k * np + i] - p.truth[i]) / sigma : kNaN);
            }
        }
    }
    c.rows = static_cast<std::int64_t>(c.twice_nll.size());
    return c;
}

json::Value to_json(const ToyStudyResult& result, const ToyStudyOptions& options) {
    json::Object settings;
    settings.set("ntoys", json::Value(options.ntoys));
    settings.set("seed", json::Value(std::to_string(options.seed)));
    settings.set("nuisance", json::Value(toy_nuisance_name(options.nuisance)));
    settings.set("aux", json::Value(toy_aux_name(options.aux)));
    settings.set("toy_batch", json::Value(options.toy_batch));
    settings.set("uncertainties", json::Value("per toy: the inverse Hessian of its NLL at its minimum (forward "
                                              "differences of the analytic gradient; parameters other than the POI "
                                              "at a bound held)"));
    json::Array points;
    for (const auto& p : result.points) {
        json::Object o;
        o.set("poi_value", json::Value(p.poi_value));
        o.set("ntoys", json::Value(p.ntoys));
        o.set("converged", json::Value(p.n_converged));
        o.set("hessian_ok", json::Value(p.n_hessian_ok));
        o.set("fallback_fits", json::Value(p.toys.fallback));
        o.set("truth_converged", json::Value(p.truth_converged));
        json::Object cov;
        for (const auto& c : p.coverage) {
            json::Object e = numbers(c, {{"nominal", &Coverage::nominal}, {"z", &Coverage::z},
                                         {"fraction", &Coverage::fraction}, {"error", &Coverage::error}});
            e.set("n", json::Value(c.n));
            cov.set(c.nominal < 0.9 ? "68" : "95", json::Value(std::move(e)));
        }
        o.set("poi_coverage", json::Value(std::move(cov)));
        json::Array pars;
        for (const auto& s : p.parameters) {
            json::Object e = numbers_of(s, kParameterFields);
            e.set("name", json::Value(s.name));
            e.set("fixed", json::Value(s.fixed));
            e.set("n", json::Value(s.n));
            e.set("n_pulls", json::Value(s.n_pulls));
            pars.emplace_back(std::move(e));
        }
        o.set("parameters", json::Value(std::move(pars)));
        points.emplace_back(std::move(o));
    }
    json::Object lin;
    const auto& l = result.linearity;
    lin.set("defined", json::Value(false));
    if (l.defined) {
        lin = numbers(l, {{"slope", &Linearity::slope}, {"slope_error", &Linearity::slope_error},
                          {"offset", &Linearity::offset}, {"offset_error", &Linearity::offset_error},
                          {"correlation", &Linearity::correlation}, {"chi2", &Linearity::chi2}});
        lin.set("defined", json::Value(true));
        lin.set("ndf", json::Value(l.ndf));
    }
    json::Object out;
    out.set("poi", json::Value(result.par_names[result.poi_index]));
    out.set("settings", json::Value(std::move(settings)));
    out.set("points", json::Value(std::move(points)));
    out.set("linearity", json::Value(std::move(lin)));
    out.set("fallback_fits", json::Value(result.fallback));
    json::Array warnings;
    for (const auto& w : result.warnings) warnings.push_back(json::Value(w));
    out.set("warnings", json::Value(std::move(warnings)));
    return json::Value(std::move(out));
}

}  // namespace hf::infer

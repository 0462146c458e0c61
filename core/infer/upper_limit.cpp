// Upper limits on the POI (pyhf.infer.intervals.upper_limits): a linear grid scan with interpolation, and
// root finding of CLs(mu) = level for the observed and each expected limit (pyhf's toms748_scan): the same
// bracket expansion and tolerance, every evaluated point reused to bracket the expected limits, and a root finder
// suited to the near-linear functions it is given (find_root, with TOMS 748 as its fallback).
#include <boost/math/tools/toms748_solve.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "hfcore/infer_advanced.hpp"
#include "infer/stat_internal.hpp"
#include "hfcore/observed_data.hpp"

namespace hf::infer {

namespace {

// numpy.interp(x, xp, fp) for increasing xp.
double np_interp(double x, const std::vector<double>& xp, const std::vector<double>& fp) {
    const std::size_t n = xp.size();
    if (n == 0) return std::numeric_limits<double>::quiet_NaN();
    if (std::isnan(x)) return x;
    if (x < xp[0]) return fp[0];
    if (x > xp[n - 1]) return fp[n - 1];
    std::size_t j = static_cast<std::size_t>(std::upper_bound(xp.begin(), xp.end(), x) - xp.begin());
    if (j == 0) return fp[0];
    --j;
    if (j >= n - 1) return fp[n - 1];
    const double dx = xp[j + 1] - xp[j];
    if (dx == 0) return fp[j];
    const double slope = (fp[j + 1] - fp[j]) / dx;
    return fp[j] + slope * (x - xp[j]);
}

// The start of the bracket where the POI may be negative, as a fraction of its upper end.
constexpr double kSmallPositiveStart = 1e-3;

double value_of(const HypotestResult& r, int which) { return which == 0 ? r.obs : r.exp[which - 1]; }

// "CLs seen: mu obs [exp -2 .. +2], ..." for errors: where the search looked and what it found there.
std::string cls_seen(const std::map<double, HypotestResult>& evaluated) {
    std::ostringstream os;
    os.precision(4);
    os << "; CLs seen (mu: obs [expected -2..+2 sigma]):";
    for (const auto& [mu, r] : evaluated) {
        os << ' ' << mu << ": " << r.obs << " [";
        for (int i = 0; i < 5; ++i) os << (i ? " " : "") << r.exp[i];
        os << "];";
    }
    return os.str();
}

// The limit's convergence test on a bracket [x, y]: pyhf's toms748_scan atol and rtol.
auto bracket_tolerance(const Toms748Options& lim) {
    return [atol = lim.atol, rtol = lim.rtol](double x, double y) {
        return std::fabs(y - x) <= atol + rtol * std::min(std::fabs(x), std::fabs(y));
    };
}

// Root of f in [a, b], f(a) and f(b) of opposite signs, for an f close to linear (each evaluation is a pair of
// fits). Secant steps through the two latest points, false position when a step would leave the bracket; done
// when the next secant correction is within `tol` (for a smooth f the error is then far below it: secant
// convergence is superlinear). The bracket shrinks with every step, and TOMS 748 takes over inside it after
// eight steps, so the answer is always bracketed.
template <class F, class Tol>
double find_root(F&& f, double a, double b, double fa, double fb, Tol&& tol) {
    double p = a, fp = fa, q = b, fq = fb;  // the two latest points
    for (int it = 0; it < 8; ++it) {
        double x = (fq != fp) ? q - fq * (q - p) / (fq - fp) : 0.5 * (a + b);
        if (!(x > std::min(a, b) && x < std::max(a, b))) x = b - fb * (b - a) / (fb - fa);
        if (!(x > std::min(a, b) && x < std::max(a, b))) x = 0.5 * (a + b);
        const double fx = f(x);
        if (fx == 0.0 || std::isnan(fx)) return x;
        if ((fx > 0) == (fa > 0)) a = x, fa = fx;
        else b = x, fb = fx;
        p = q, fp = fq, q = x, fq = fx;
        if (fq != fp) {
            const double next = q - fq * (q - p) / (fq - fp);
            if (next > std::min(a, b) && next < std::max(a, b) && tol(next, q)) return next;
        }
        if (tol(a, b)) return 0.5 * (a + b);
    }
    std::uintmax_t max_iter = 200;
    auto r = boost::math::tools::toms748_solve(f, std::min(a, b), std::max(a, b), a < b ? fa : fb, a < b ? fb : fa,
                                               tol, max_iter);
    return 0.5 * (r.first + r.second);
}

// The POI's upper bound widened to `high` (pyhf's fits refuse a tested POI outside its bounds).
HypotestOptions widened(const Model& model, const HypotestOptions& options, double high) {
    HypotestOptions o = options;
    o.config = options.config.resolved(model);
    auto& b = o.config.bounds[model.poi_index()];
    const bool wider = high > b.second;
    if (wider) b.second = high;
    // The fits are shared by every point of the search (for this configuration only); a cache the caller
    // passed holds fits with the same bounds unless they were just widened.
    if (o.calctype == CalcType::asymptotics && (wider || !o.cache)) o.cache = make_asymptotic_cache();
    return o;
}

// Asymptotic expected limits with the normal base distribution. The expected CLs at n sigma is
// sf(n + sqrt(q_A(mu))) / sf(n) (AsymptoticCalculator::expected_pvalues), so the limit at n sigma is where
// sqrt(q_A(mu)) = isf(level sf(n)) - n. That needs only the fixed-POI fit to the Asimov data per mu, not a full
// hypotest, and sqrt(q_A) is close to linear in mu, so find_root converges in two or three steps. `known` holds the
// hypotests of the observed search (their q_A brackets the roots); their fits are shared through opts.cache.
void expected_limits_from_asimov(const Model& model, const std::vector<double>& data, const HypotestOptions& opts,
                                 const Toms748Options& lim, const std::map<double, HypotestResult>& known,
                                 UpperLimitResult& out) {
    AsymptoticCalculator calc(model, data, opts);
    std::map<double, double> sqrtqA;
    for (const auto& [mu, r] : known) sqrtqA[mu] = std::sqrt(r.q_asimov);
    auto value = [&](double mu) {
        auto it = sqrtqA.find(mu);
        if (it != sqrtqA.end()) return it->second;
        return sqrtqA[mu] = calc.asimov_sqrtq(mu);
    };
    const auto tol = bracket_tolerance(lim);
    const double nsigmas[5] = {2, 1, 0, -1, -2};
    for (int i = 0; i < 5; ++i) {
        const double target = normal_isf(lim.level * normal_sf(nsigmas[i])) - nsigmas[i];
        // The evaluated points nearest the root on either side.
        double a = out.bracket.first, b = out.bracket.second;
        for (const auto& [mu, v] : sqrtqA) {
            if (v < target && mu > a) a = mu;
            if (v >= target && mu < b) b = mu;
        }
        auto f = [&](double mu) { return value(mu) - target; };
        const double fa = f(a), fb = f(b);
        if (fa == 0.0 || fb == 0.0) {
            out.exp[i] = fa == 0.0 ? a : b;
            continue;
        }
        if (std::isnan(fa) || std::isnan(fb) || (fa > 0) == (fb > 0)) {
            std::ostringstream os;
            os << "upper limit: no sign change of the expected CLs (" << nsigmas[i] << " sigma) - " << lim.level
               << " in [" << a << ", " << b << "]" << cls_seen(known);
            throw Error(os.str());
        }
        out.exp[i] = find_root(f, a, b, fa, fb, tol);
    }
    for (const auto& [mu, fit] : opts.cache->fixed_asimov) out.converged = out.converged && fit.converged;
}

// The minimiser's totals of a search: over the distinct fits of the shared cache (asymptotics), or over the
// hypotests (toys, whose fits are not shared).
void add_search_totals(const HypotestOptions& opts, UpperLimitResult& out) {
    out.minimizer = {};
    if (opts.cache) {
        opts.cache->for_each_fit([&](const FitResult& f) { out.minimizer.add(f.minimizer); });
        return;
    }
    for (const auto& r : out.results) out.minimizer.add(r.minimizer);
}

}  // namespace

UpperLimitResult upper_limit_scan(const Model& model, const std::vector<double>& data,
                                  const std::vector<double>& scan, double level, const HypotestOptions& options) {
    check_observed_data(model, data, "upper_limit");
    if (model.poi_index() < 0) throw InputError("", "poi", "No POI is defined. A POI is required for upper limits.");
    if (scan.empty()) throw InputError("", "scan", "the scan has no points");
    const double hi = *std::max_element(scan.begin(), scan.end());
    HypotestOptions opts = widened(model, options, hi);
    UpperLimitResult out;
    out.poi_bounds_used = opts.config.bounds[model.poi_index()];
    std::int64_t done = 0;
    for (double mu : scan) {
        out.scanned.push_back(mu);
        out.results.push_back(hypotest(mu, model, data, opts));
        if (options.progress) options.progress(++done, static_cast<std::int64_t>(scan.size()), "scan");
    }
    // Interpolate mu as a function of CLs over the reversed scan (CLs falls with mu), as pyhf does.
    std::vector<double> xs(scan.rbegin(), scan.rend());
    for (int which = 0; which < 6; ++which) {
        std::vector<double> ys;
        for (auto it = out.results.rbegin(); it != out.results.rend(); ++it) ys.push_back(value_of(*it, which));
        const double lim = np_interp(level, ys, xs);
        if (which == 0)
            out.obs = lim;
        else
            out.exp[which - 1] = lim;
    }
    out.bracket = {*std::min_element(scan.begin(), scan.end()), hi};
    out.converged = true;
    for (const auto& r : out.results) out.converged = out.converged && r.converged;
    add_search_totals(opts, out);
    return out;
}

UpperLimitResult upper_limit(const Model& model, const std::vector<double>& data, const Toms748Options& lim,
                             const HypotestOptions& options) {
    check_observed_data(model, data, "upper_limit");
    const std::int64_t poi = model.poi_index();
    if (poi < 0) throw InputError("", "poi", "No POI is defined. A POI is required for upper limits.");
    HypotestOptions opts = options;
    opts.config = options.config.resolved(model);
    double low = lim.low;
    double high = std::isnan(lim.high) ? opts.config.bounds[poi].second : lim.high;
    if (!(high > low)) throw InputError("", "bounds", "the upper-limit bracket must have low < high");
    // Where the POI may go below 0 (and mu_hat with it), the bracket starts at a small positive mu and is halved
    // towards 0 as needed: an upper limit lies above 0, and at mu <= 0 q and qtilde say nothing about it. mu = 0
    // itself, where CLs is 1, closes the halving.
    const bool from_small_positive = low <= 0.0 && opts.config.bounds[poi].first < 0.0;
    if (from_small_positive) low = kSmallPositiveStart * high;
    opts = widened(model, opts, high);

    std::map<double, HypotestResult> cache;
    UpperLimitResult out;
    auto eval = [&](double mu) -> const HypotestResult& {
        auto it = cache.find(mu);
        if (it != cache.end()) return it->second;
        auto r = hypotest(mu, model, data, opts);
        out.scanned.push_back(mu);
        out.results.push_back(r);
        if (options.progress) options.progress(static_cast<std::int64_t>(cache.size()) + 1, 0, "upper limit");
        return cache.emplace(mu, std::move(r)).first->second;
    };
    auto any_above = [&](const HypotestResult& r) {
        bool above = r.obs > lim.level;
        for (double e : r.exp) above = above || e > lim.level;
        return above;
    };
    auto any_below = [&](const HypotestResult& r) {
        bool below = r.obs < lim.level;
        for (double e : r.exp) below = below || e < lim.level;
        return below;
    };

    // Lower end: every CLs at or above the level (pyhf halves it; from zero nothing can be halved).
    for (int i = 0; any_below(eval(low)); ++i) {
        if (low == 0.0 || (i >= lim.max_expansions && !from_small_positive)) {
            std::ostringstream os;
            os << "upper limit: CLs at the lower end of the bracket (POI = " << low << ") is already below "
               << lim.level << "; no bracket for the root" << cls_seen(cache);
            throw Error(os.str());
        }
        low = i >= lim.max_expansions ? 0.0 : low / 2;
    }
    // Upper end: double until every CLs is at or below the level, widening the POI bound with it. A wider
    // bound changes the free fits, so earlier points are recomputed with it.
    for (int i = 0; any_above(eval(high)); ++i) {
        if (i >= lim.max_expansions) {
            std::ostringstream os;
            os << "upper limit: CLs still above " << lim.level << " at POI = " << high << " after " << i
               << " doublings of the bracket" << cls_seen(cache);
            throw Error(os.str());
        }
        high *= 2;
        if (high > opts.config.bounds[poi].second) {
            opts = widened(model, opts, high);
            cache.clear();
            if (any_below(eval(low)))
                throw Error("upper limit: the lower end of the bracket moved below the level" + cls_seen(cache));
        }
    }
    out.bracket = {low, high};
    out.poi_bounds_used = opts.config.bounds[poi];

    // The root of CLs(mu) - level is found on the normal-quantile scale, isf(level) - isf(CLs): the same root
    // and signs, but close to linear in mu (CLs falls like a normal tail), so find_root needs a few steps instead of
    // TOMS 748's dozen on CLs itself. CLs of exactly 0 or 1 (toys, mu = 0) are kept finite.
    const double level_z = normal_isf(lim.level);
    auto solve = [&](int which, double a, double b) {
        auto f = [&](double mu) {
            const double cls = value_of(eval(mu), which);
            if (std::isnan(cls)) return cls;
            return level_z - normal_isf(std::clamp(cls, 1e-300, 1.0 - 1e-15));
        };
        const double fa = f(a), fb = f(b);
        if (fa == 0.0) return a;
        if (fb == 0.0) return b;
        if (std::isnan(fa) || std::isnan(fb) || (fa > 0) == (fb > 0)) {
            std::ostringstream os;
            os << "upper limit: no sign change of CLs - " << lim.level << " in [" << a << ", " << b << "]"
               << cls_seen(cache);
            throw Error(os.str());
        }
        const auto tol = bracket_tolerance(lim);
        return find_root(f, a, b, fa, fb, tol);
    };
    // Nearest evaluated points on either side of the level, as pyhf's best_bracket.
    auto best_bracket = [&](int which) {
        double lower = low, upper = high;
        double best_pos = std::numeric_limits<double>::infinity(), best_neg = -std::numeric_limits<double>::infinity();
        for (auto& [mu, r] : cache) {
            const double v = value_of(r, which) - lim.level;
            if (v >= 0 && v < best_pos) {
                best_pos = v;
                lower = mu;
            }
            if (v < 0 && v > best_neg) {
                best_neg = v;
                upper = mu;
            }
        }
        return std::pair<double, double>(lower, upper);
    };
    out.obs = solve(0, low, high);
    out.converged = true;
    for (const auto& r : out.results) out.converged = out.converged && r.converged;
    if (opts.calctype == CalcType::asymptotics && opts.calc_base_dist == BaseDist::normal &&
        (opts.test_stat == TestStat::q || opts.test_stat == TestStat::qtilde)) {
        expected_limits_from_asimov(model, data, opts, lim, cache, out);
        add_search_totals(opts, out);
        return out;
    }
    for (int i = 1; i <= 5; ++i) {
        auto [a, b] = best_bracket(i);
        out.exp[i - 1] = solve(i, a, b);
    }
    for (const auto& r : out.results) out.converged = out.converged && r.converged;
    add_search_totals(opts, out);
    return out;
}

}  // namespace hf::infer

// Toy studies (hfcore/toy_study.hpp): the truth of each injected POI value, the toys drawn there in blocks, each
// block fitted as the toy calculator fits its free fits (toys.cpp: batched fits from the truth, the basin
// search where the model can be multimodal, a single fit for a toy the batch leaves unconverged), then every
// toy's Hessian at its minimum for its uncertainties.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "hfcore/backend.hpp"
#include "hfcore/infer_advanced.hpp"
#include "hfcore/observed_data.hpp"
#include "hfcore/toy_study.hpp"
#include "infer/minimize/basin_search.hpp"
#include "infer/minimize/problem.hpp"
#include "infer/minimize/batch_fit.hpp"
#include "numerics/dense.hpp"

namespace hf::infer {

ToyNuisance parse_toy_nuisance(const std::string& name) {
    if (name == "nominal") return ToyNuisance::nominal;
    if (name == "fitted") return ToyNuisance::fitted;
    throw InputError("toy_study", "nuisance", "'" + name + "' is not one of: nominal, fitted");
}

ToyAux parse_toy_aux(const std::string& name) {
    if (name == "sampled") return ToyAux::sampled;
    if (name == "fixed") return ToyAux::fixed;
    throw InputError("toy_study", "aux", "'" + name + "' is not one of: sampled, fixed");
}

const char* toy_nuisance_name(ToyNuisance n) { return n == ToyNuisance::nominal ? "nominal" : "fitted"; }
const char* toy_aux_name(ToyAux a) { return a == ToyAux::sampled ? "sampled" : "fixed"; }

void ToyFits::append(const ToyFits& other) {
    bestfit.insert(bestfit.end(), other.bestfit.begin(), other.bestfit.end());
    uncertainties.insert(uncertainties.end(), other.uncertainties.begin(), other.uncertainties.end());
    twice_nll.insert(twice_nll.end(), other.twice_nll.begin(), other.twice_nll.end());
    converged.insert(converged.end(), other.converged.begin(), other.converged.end());
    hessian_ok.insert(hessian_ok.end(), other.hessian_ok.begin(), other.hessian_ok.end());
    fallback += other.fallback;
}

namespace {

// The toys of `block` drawn at `truth`; with ToyAux::fixed every toy's auxiliary data are the observed ones.
Tensor toy_data(const Model& model, const std::vector<double>& truth, const std::vector<double>& observed,
                const ToyBlock& block, const ToyStudyOptions& options) {
    Tensor data = sample_toys(model, truth, block.first, block.count, options.seed, block.stream);
    if (options.aux == ToyAux::sampled || model.n_aux() == 0) return data;
    auto& be = *model.backend();
    const std::int64_t width = model.n_main() + model.n_aux();
    std::vector<double> is_aux(static_cast<std::size_t>(width), 0.0);
    std::fill(is_aux.begin() + model.n_main(), is_aux.end(), 1.0);
    Tensor obs = be.binary(BinaryOp::add, be.from_host(observed, {1, width}), be.full({block.count, 1}, 0.0));
    Tensor mask = be.binary(BinaryOp::gt, be.from_host(is_aux, {1, width}), be.full({1}, 0.0));
    return be.where(mask, obs, data);
}

// Uncertainties of every parameter at `best` from the Hessian of the toy's NLL there (forward differences of
// the analytic gradient in scaled variables, inward at a bound); 0 for fixed parameters. fit() with
// FitOptions::uncertainties takes central differences: forward ones cost half the gradients (the Hessians were
// most of a study's time) and differ from them by about the step, 1e-5 relative, far below the statistical
// error of any toy study's widths. A parameter other than the POI that sits at a bound (a shapesys gamma whose toy drew no
// auxiliary count ends at its lower bound) is held: its row of the Hessian, flat or one-sided there, would make
// the matrix singular and every other uncertainty meaningless; it gets uncertainty 0 (no pull in that toy).
// False when the Hessian of the others needed a shift to be positive definite.
bool hessian_uncertainties(const Model& model, const Tensor& row, const FitConfig& cfg, const std::vector<double>& best,
                           double* out) {
    detail::Problem p = detail::make_problem(model, row, cfg);
    const std::size_t nf = p.nfree();
    std::fill(out, out + model.n_pars(), 0.0);
    if (nf == 0) return true;
    const auto y = p.to_y(best);
    std::vector<double> g;
    p.nll(y, &g);
    const auto h = p.hessian_forward(y, g);
    constexpr double kAtBound = 1e-8;  // scaled units: constraint widths
    std::vector<std::size_t> kept;
    for (std::size_t a = 0; a < nf; ++a)
        if (p.free[a] == model.poi_index() || (y[a] - p.lo[a] > kAtBound && p.hi[a] - y[a] > kAtBound)) kept.push_back(a);
    const std::size_t n = kept.size();
    std::vector<double> sub(n * n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) sub[i * n + j] = h[kept[i] * nf + kept[j]];
    std::vector<double> factor;
    const double shift = numerics::shifted_cholesky(sub, n, factor);
    if (shift < 0.0) return false;
    const auto inv = numerics::cholesky_inverse(factor, n);
    for (std::size_t i = 0; i < n; ++i)
        out[p.free[kept[i]]] = std::sqrt(std::max(inv[i * n + i], 0.0)) * p.scale[kept[i]];
    return shift == 0.0;
}

// The free fits of one block of toys, and their uncertainties.
ToyFits fit_block(const Model& model, const Tensor& data, const std::vector<double>& truth, const FitConfig& cfg,
                  const FitOptions& fit_options) {
    const std::int64_t K = data.dim(0);
    const std::int64_t np = model.n_pars();
    MinimizerControls no_starts = minimizer_controls(fit_options);
    no_starts.other_starts.clear();
    FitOptions from_init = with_minimizer_controls(fit_options, no_starts);
    from_init.uncertainties = false;
    // From the truth: where the toys' minima lie, and where the batch's fixed curvature is taken.
    BatchFitResult fits = detail::batch_fit(model, data, cfg, from_init, truth);
    if (no_starts.basin_search && detail::can_be_multimodal(model, cfg.fixed)) {
        detail::keep_lower(fits, detail::batch_fit_known(model, data, cfg, from_init, {}, fits), np);
        detail::search_toy_basins(model, data, cfg, from_init, truth, fits);
    }

    ToyFits out;
    out.bestfit = std::move(fits.bestfit);
    out.twice_nll = std::move(fits.twice_nll);
    out.converged.resize(static_cast<std::size_t>(K));
    out.hessian_ok.resize(static_cast<std::size_t>(K));
    out.uncertainties.resize(static_cast<std::size_t>(K * np));
    auto& be = *model.backend();
    for (std::int64_t k = 0; k < K; ++k) {
        Tensor row = be.gather(data, be.from_host_index({k}), 0).reshape({data.dim(1)});
        double* best = out.bestfit.data() + k * np;
        bool ok = fits.converged[k];
        if (!ok) {
            // The straggler gets a full single fit (NLopt, Newton polish, basin search), from the init and from
            // the truth and the batch's last point.
            MinimizerControls starts = no_starts;
            starts.other_starts = {truth, std::vector<double>(best, best + np)};
            const FitResult r = fit(model, row, cfg, with_minimizer_controls(from_init, std::move(starts)));
            ++out.fallback;
            if (r.converged || r.twice_nll < out.twice_nll[k]) {
                std::copy(r.bestfit.begin(), r.bestfit.end(), best);
                out.twice_nll[k] = r.twice_nll;
                ok = r.converged;
            }
        }
        out.converged[k] = ok ? 1 : 0;
        out.hessian_ok[k] = hessian_uncertainties(model, row, cfg, std::vector<double>(best, best + np),
                                                  out.uncertainties.data() + k * np)
                                ? 1
                                : 0;
    }
    return out;
}

void check_options(const Model& model, const FitConfig& cfg, const ToyStudyOptions& options) {
    const std::int64_t poi = model.poi_index();
    if (poi < 0) throw InputError("toy_study", "poi", "the model has no POI (the measurement names none)");
    const std::string name = model.par_names()[poi];
    if (cfg.fixed[poi]) throw InputError("toy_study", "config.fixed", "the POI '" + name + "' is fixed: the toys fit it");
    if (options.ntoys < 2)
        throw InputError("toy_study", "ntoys", std::to_string(options.ntoys) + " toys: a study needs 2 or more");
    if (options.toy_batch < 1)
        throw InputError("toy_study", "toy_batch", std::to_string(options.toy_batch) + ": must be 1 or more");
    if (options.poi_values.empty()) throw InputError("toy_study", "poi_values", "no injected POI value");
    const auto [lo, hi] = cfg.bounds[poi];
    for (std::size_t j = 0; j < options.poi_values.size(); ++j) {
        const double v = options.poi_values[j];
        if (v >= lo && v <= hi) continue;
        std::ostringstream os;
        os.precision(17);
        os << "the injected POI '" << name << "' = " << v << " lies outside its bounds [" << lo << ", " << hi << "]";
        throw InputError("toy_study", "poi_values[" + std::to_string(j) + "]", os.str());
    }
}

// The journal tag of a study: everything that decides its toys' fits besides the model and the fit options.
std::string study_tag(const ToyStudyOptions& options) {
    std::string tag = "toys,seed=" + std::to_string(options.seed) + ",nuisance=" + toy_nuisance_name(options.nuisance) +
                      ",aux=" + toy_aux_name(options.aux) + ",mu=";
    for (std::size_t j = 0; j < options.poi_values.size(); ++j) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%s%a", j ? ";" : "", options.poi_values[j]);
        tag += buf;
    }
    return tag;
}

}  // namespace

ToyStudyResult toy_study(const Model& model, const std::vector<double>& data, const ToyStudyOptions& options) {
    check_observed_data(model, data, "toy_study");
    const FitConfig cfg = options.config.resolved(model);
    check_options(model, cfg, options);
    const std::int64_t poi = model.poi_index();

    ToyStudyResult result;
    result.par_names = model.par_names();
    result.fixed = cfg.fixed;
    result.poi_index = poi;
    std::vector<std::vector<double>> truths;
    for (double v : options.poi_values) {
        ToyStudyPoint point;
        point.poi_value = v;
        if (options.nuisance == ToyNuisance::nominal) {
            point.truth = cfg.init;
            point.truth[poi] = v;
        } else {
            const FitResult r = fixed_poi_fit(v, model, data, cfg, options.fit);
            point.truth = r.bestfit;
            point.truth_converged = r.converged;
            if (!r.converged)
                result.warnings.push_back("the fit that gives the truth at POI = " + json::format_double(v) +
                                          " did not converge: " + r.reason);
        }
        truths.push_back(point.truth);
        result.points.push_back(std::move(point));
    }

    std::vector<ToyBlock> blocks;
    for (std::uint32_t j = 0; j < options.poi_values.size(); ++j)
        for (std::int64_t first = 0; first < options.ntoys; first += options.toy_batch)
            blocks.push_back({j, first, std::min(options.toy_batch, options.ntoys - first)});
    ToyFitsFn fn = [&](const Model& m, const ToyBlock& b) {
        const Tensor toys = toy_data(m, truths[b.stream], data, b, options);
        return fit_block(m, toys, truths[b.stream], cfg, options.fit);
    };
    std::vector<ToyFits> fits;
    if (options.runner) {
        fits = options.runner(blocks, study_tag(options), fn);
    } else {
        const std::int64_t total = options.ntoys * static_cast<std::int64_t>(options.poi_values.size());
        std::int64_t done = 0;
        for (const auto& b : blocks) {
            fits.push_back(fn(model, b));
            done += b.count;
            if (options.progress) options.progress(done, total, "toys");
        }
    }
    for (std::size_t i = 0; i < blocks.size(); ++i) result.points[blocks[i].stream].toys.append(fits[i]);
    summarise(result);
    return result;
}

}  // namespace hf::infer

// Yields per channel, sample and bin with their standard deviations by linear error propagation of the
// symmetrised one-sigma variations (cabinetry model_utils.yield_stdev), all variations evaluated in one batch.
#include <cmath>

#include "infer/diagnostics/parameter_lookup.hpp"
#include "hfcore/observed_data.hpp"

namespace hf::infer {

YieldsResult yields_at(const Model& model, const std::vector<double>& data, const std::vector<double>& parameters,
                       const std::vector<double>& uncertainties, const std::vector<double>& correlations) {
    const auto np = static_cast<std::size_t>(model.n_pars());
    const auto nmain = static_cast<std::size_t>(model.n_main());
    const std::size_t ns = model.samples().size();
    if (parameters.size() != np || uncertainties.size() != np)
        throw InputError("yields", "parameters", "parameters and uncertainties need " + std::to_string(np) + " values");
    if (!correlations.empty() && correlations.size() != np * np)
        throw InputError("yields", "correlations", "the correlation matrix needs " + std::to_string(np * np) + " values");
    if (data.size() < nmain)
        throw InputError("yields", "data", "data has " + std::to_string(data.size()) + " values, the model has " +
                                               std::to_string(nmain) + " main bins");

    // Central point, then parameter i up and down for every parameter with a width.
    std::vector<std::size_t> varied;
    for (std::size_t i = 0; i < np; ++i)
        if (uncertainties[i] != 0.0) varied.push_back(i);
    const std::size_t k = 1 + 2 * varied.size();
    std::vector<double> pts(k * np);
    for (std::size_t j = 0; j < k; ++j) std::copy(parameters.begin(), parameters.end(), pts.begin() + j * np);
    for (std::size_t v = 0; v < varied.size(); ++v) {
        pts[(1 + 2 * v) * np + varied[v]] += uncertainties[varied[v]];
        pts[(2 + 2 * v) * np + varied[v]] -= uncertainties[varied[v]];
    }
    const auto by_sample = model.expected_main_by_sample(pts, static_cast<std::int64_t>(k));  // [K, S, N]

    // Quantities whose variance is wanted: every (sample, bin), the total per bin, and per channel the sum over
    // bins of every sample and of the total. q(point) is linear in the per-sample yields.
    const auto& nbins = model.channel_nbins();
    const std::size_t nch = nbins.size();
    const std::size_t nq = (ns + 1) * nmain + nch * (ns + 1);
    auto quantities = [&](std::size_t point, std::vector<double>& q) {
        q.assign(nq, 0.0);
        const double* y = by_sample.data() + point * ns * nmain;
        for (std::size_t s = 0; s < ns; ++s)
            for (std::size_t b = 0; b < nmain; ++b) {
                q[s * nmain + b] = y[s * nmain + b];
                q[ns * nmain + b] += y[s * nmain + b];
            }
        std::size_t first = 0;
        for (std::size_t c = 0; c < nch; ++c) {
            for (std::size_t s = 0; s <= ns; ++s) {
                double sum = 0.0;
                for (std::size_t b = first; b < first + static_cast<std::size_t>(nbins[c]); ++b) sum += q[s * nmain + b];
                q[(ns + 1) * nmain + c * (ns + 1) + s] = sum;
            }
            first += static_cast<std::size_t>(nbins[c]);
        }
    };
    std::vector<double> central, up, down;
    quantities(0, central);
    // v[i][q]: half the difference between parameter i up and down.
    std::vector<std::vector<double>> v(varied.size());
    for (std::size_t i = 0; i < varied.size(); ++i) {
        quantities(1 + 2 * i, up);
        quantities(2 + 2 * i, down);
        v[i].resize(nq);
        for (std::size_t q = 0; q < nq; ++q) v[i][q] = (up[q] - down[q]) / 2.0;
    }
    // variance = sum_ij v_i rho_ij v_j (rho = identity when no correlations are given).
    std::vector<double> var(nq, 0.0);
    for (std::size_t i = 0; i < varied.size(); ++i) {
        for (std::size_t q = 0; q < nq; ++q) var[q] += v[i][q] * v[i][q];
        if (correlations.empty()) continue;
        for (std::size_t j = 0; j < varied.size(); ++j) {
            const double rho = correlations[varied[i] * np + varied[j]];
            if (i == j || rho == 0.0) continue;
            for (std::size_t q = 0; q < nq; ++q) var[q] += v[i][q] * rho * v[j][q];
        }
    }

    YieldsResult r;
    r.parameters = parameters;
    r.uncertainties = uncertainties;
    std::size_t first = 0;
    for (std::size_t c = 0; c < nch; ++c) {
        ChannelYields ch;
        ch.name = model.channels()[c];
        ch.samples = model.samples();
        const auto nb = static_cast<std::size_t>(nbins[c]);
        auto slice = [&](const std::vector<double>& src, std::size_t row, bool root) {
            std::vector<double> out(nb);
            for (std::size_t b = 0; b < nb; ++b) {
                const double x = src[row * nmain + first + b];
                out[b] = root ? std::sqrt(x) : x;
            }
            return out;
        };
        for (std::size_t s = 0; s < ns; ++s) {
            ch.yields.push_back(slice(central, s, false));
            ch.stdev.push_back(slice(var, s, true));
            const std::size_t qs = (ns + 1) * nmain + c * (ns + 1) + s;
            ch.sample_sums.push_back(central[qs]);
            ch.sample_sums_stdev.push_back(std::sqrt(var[qs]));
        }
        ch.total = slice(central, ns, false);
        ch.total_stdev = slice(var, ns, true);
        ch.data.assign(data.begin() + static_cast<std::ptrdiff_t>(first), data.begin() + static_cast<std::ptrdiff_t>(first + nb));
        const std::size_t qc = (ns + 1) * nmain + c * (ns + 1) + ns;
        ch.channel_total = central[qc];
        ch.channel_total_stdev = std::sqrt(var[qc]);
        r.channels.push_back(std::move(ch));
        first += nb;
    }
    return r;
}

YieldsResult yields(const Model& model, const std::vector<double>& data, bool postfit, const DiagnosticOptions& options) {
    check_observed_data(model, data, "yields");
    if (!postfit) {
        YieldsResult r = yields_at(model, data, asimov_parameters(model), prefit_uncertainties(model), {});
        r.postfit = false;
        return r;
    }
    FitOptions fo = options.fit;
    fo.uncertainties = true;
    FitResult f = fit(model, data, options.config, fo);
    const auto rep = detail::reported_uncertainties(model, data, f, options.config, options.uncertainties);
    YieldsResult r = yields_at(model, data, f.bestfit, rep.uncertainties, rep.correlations);
    r.postfit = true;
    r.fit = std::move(f);
    return r;
}

}  // namespace hf::infer

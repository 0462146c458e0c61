// Tier 2 fused likelihood of every plugin that offers one, against the long-double reference of
// tests/common/packed_reference.hpp computed from the same PackedLikelihood (interpolation closed forms,
// CSR traversal, products, sums, constraints and the analytic gradient, all written independently of the plugins),
// and that reference's gradient against finite differences of its logpdf.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <utility>
#include <memory>
#include <thread>

#include "conformance.hpp"
#include "hfcore/plugin/likelihood.hpp"
#include "packed_reference.hpp"

using hf::Shape;
using hf::Tensor;

namespace {

struct Synth {
    hf::PackedLikelihood pk;
    std::vector<double> nominal;  // parameters at which the data were generated
    std::vector<double> data;     // [N + A]
};

// A model with every factor and delta kind, Gaussian and Poisson constraints: S samples x B bins, each element
// with `histosys` of the S histosys parameters (all S: the dense matrix of the cpu plugin, simd.hpp).
Synth make_synth(int S, int B, int histosys = 1) {
    Synth s;
    auto& pk = s.pk;
    int P = 0;
    const int mu = P++, lumi = P++;
    const int normsys0 = P;
    P += S;
    const int histo0 = P;
    P += S;
    const int stat0 = P;
    P += B;
    const int shapesys0 = P;
    P += B;
    pk.n_pars = P;
    pk.n_main = B;
    s.nominal.assign(P, 0.0);
    s.nominal[mu] = 1.0;
    s.nominal[lumi] = 1.0;
    for (int b = 0; b < B; ++b) s.nominal[stat0 + b] = 1.0, s.nominal[shapesys0 + b] = 1.0;

    std::vector<double> aux;
    auto gauss = [&](int par, double sigma) {
        pk.gauss_par.push_back(par), pk.gauss_aux.push_back(static_cast<std::int32_t>(aux.size()));
        pk.gauss_sigma.push_back(sigma);
        aux.push_back(s.nominal[par]);
    };
    gauss(lumi, 0.02);
    for (int i = 0; i < S; ++i) gauss(normsys0 + i, 1.0);
    for (int i = 0; i < S; ++i) gauss(histo0 + i, 1.0);
    for (int b = 0; b < B; ++b) gauss(stat0 + b, 0.03 + 0.01 * (b % 5));
    for (int b = 0; b < B; ++b) {
        const double tau = 50.0 + 7.0 * b;
        pk.pois_par.push_back(shapesys0 + b), pk.pois_aux.push_back(static_cast<std::int32_t>(aux.size()));
        pk.pois_tau.push_back(tau);
        aux.push_back(tau);
    }
    pk.n_aux = static_cast<std::int64_t>(aux.size());

    pk.factor_offsets.push_back(0);
    pk.delta_offsets.push_back(0);
    auto factor = [&](int par, int kind, double lo, double hi, std::vector<double> coef) {
        pk.factor_par.push_back(par), pk.factor_kind.push_back(kind);
        pk.factor_lo.push_back(lo), pk.factor_hi.push_back(hi);
        coef.resize(6, 0.0);
        pk.factor_coef.insert(pk.factor_coef.end(), coef.begin(), coef.end());
    };
    for (int i = 0; i < S; ++i)
        for (int b = 0; b < B; ++b) {
            const double nom = 30.0 + 4.0 * i + 10.0 * std::sin(0.7 * b + i) + 0.5 * b;
            pk.elem_bin.push_back(b);
            pk.elem_nominal.push_back(nom);
            if (i == 0) factor(mu, hf::kFactorLinear, 1, 1, {});
            factor(lumi, hf::kFactorLinear, 1, 1, {});
            if (i % 2 == 0)
                factor(normsys0 + i, hf::kFactorNormsysCode4, 0.9 - 0.01 * i, 1.1 + 0.02 * i,
                       {0.1 + 0.01 * i, 0.02, -0.01, 0.004, 0.001, -0.0005});
            else
                factor(normsys0 + i, hf::kFactorNormsysCode1, 0.85, 1.2 + 0.01 * i, {});
            if (i < 2) factor(stat0 + b, hf::kFactorLinear, 1, 1, {});
            if (i == S - 1) factor(shapesys0 + b, hf::kFactorLinear, 1, 1, {});
            pk.factor_offsets.push_back(static_cast<std::int32_t>(pk.factor_par.size()));
            const int kinds[] = {hf::kDeltaCode0, hf::kDeltaCode2, hf::kDeltaCode4p};
            for (int h = 0; h < histosys; ++h) {
                const int j = (i + h) % S;
                const double size = 1.0 / (1 + h);
                pk.delta_par.push_back(histo0 + j), pk.delta_kind.push_back(kinds[j % 3]);
                pk.delta_lo.push_back(nom * (1 - size * (0.08 + 0.01 * (b % 3)))), pk.delta_nom.push_back(nom);
                pk.delta_hi.push_back(nom * (1 + size * (0.07 + 0.02 * (b % 4))));
            }
            pk.delta_offsets.push_back(static_cast<std::int32_t>(pk.delta_par.size()));
        }
    return s;
}

hf::test::packed::Result reference(const hf::PackedLikelihood& pk, const std::vector<double>& par, const double* data) {
    return hf::test::packed::evaluate(pk, par, data);
}

std::vector<double> finite_difference_grad(const hf::PackedLikelihood& pk, std::vector<double> par, const double* data) {
    std::vector<double> g(par.size());
    for (std::size_t i = 0; i < par.size(); ++i) {
        const double p0 = par[i], h = 1e-5 * std::max(1.0, std::fabs(p0));
        par[i] = p0 + h;
        const long double up = reference(pk, par, data).logpdf;
        par[i] = p0 - h;
        const long double dn = reference(pk, par, data).logpdf;
        par[i] = p0;
        g[i] = static_cast<double>((up - dn) / (2 * h));
    }
    return g;
}

// Observed data: expected at the nominal point, rounded, plus the nominal aux data.
void make_data(Synth& s) {
    std::vector<double> aux(s.pk.n_aux, 0.0);
    for (std::size_t g = 0; g < s.pk.gauss_par.size(); ++g) aux[s.pk.gauss_aux[g]] = s.nominal[s.pk.gauss_par[g]];
    for (std::size_t q = 0; q < s.pk.pois_par.size(); ++q) aux[s.pk.pois_aux[q]] = s.pk.pois_tau[q];
    std::vector<double> dummy(s.pk.n_main + s.pk.n_aux, 0.0);
    auto r = reference(s.pk, s.nominal, dummy.data());
    s.data.clear();
    for (std::int64_t b = 0; b < s.pk.n_main; ++b)
        s.data.push_back(std::round(static_cast<double>(r.rate[b]) * (1.0 + 0.15 * std::sin(3.0 * b))));
    if (s.pk.n_main > 2) s.data[1] = 0;  // an empty bin
    s.data.insert(s.data.end(), aux.begin(), aux.end());
}

// Parameter points around the nominal one, reaching every branch (|alpha| > 1, normfactor at 0).
std::vector<std::vector<double>> points(const Synth& s, int K) {
    std::vector<std::vector<double>> pts;
    const double alphas[] = {0.3, -0.6, 1.4, -1.7, 0.05, 0.9};
    for (int k = 0; k < K; ++k) {
        std::vector<double> p = s.nominal;
        auto v = hf::conf::values(static_cast<std::int64_t>(p.size()), -0.05, 0.05, 1000 + k);
        for (std::size_t i = 0; i < p.size(); ++i) p[i] += v[i];
        const int S = static_cast<int>((p.size() - 2 - 2 * s.pk.n_main) / 2);
        for (int i = 0; i < 2 * S; ++i) p[2 + i] = alphas[(i + k) % 6] + 0.01 * k;
        if (k == 1) p[0] = 0.0;  // normfactor at 0: its derivative needs the product of the other factors
        pts.push_back(p);
    }
    return pts;
}

class Fused : public hf::conf::Conformance {
protected:
    void SetUp() override {
        Conformance::SetUp();
        if (IsSkipped()) return;
        synth_ = model();
        make_data(synth_);
        fused_ = hf::compile_likelihood(b(), synth_.pk);
        if (!fused_) GTEST_SKIP() << GetParam().plugin << " offers no fused likelihood (core's Tier 1 fallback is used)";
    }
    virtual Synth model() const { return make_synth(4, 7); }
    Tensor pars_tensor(const std::vector<std::vector<double>>& pts) {
        std::vector<double> flat;
        for (auto& p : pts) flat.insert(flat.end(), p.begin(), p.end());
        return up(flat, {static_cast<std::int64_t>(pts.size()), synth_.pk.n_pars});
    }
    std::vector<std::vector<double>> rounded_points(int K) {
        auto pts = points(synth_, K);
        for (auto& p : pts) p = rounded(p);
        return pts;
    }
    double logpdf_rel() const { return f32() ? 2e-5 : 1e-12; }

    Synth synth_;
    std::unique_ptr<hf::FusedLikelihood> fused_;
};

TEST_P(Fused, LogpdfMatchesReference) {
    auto pts = rounded_points(6);
    auto data = rounded(synth_.data);
    auto lp = fused_->logpdf(pars_tensor(pts), up(data, {static_cast<std::int64_t>(data.size())}), nullptr);
    EXPECT_EQ(lp.shape(), Shape{6});
    EXPECT_EQ(lp.dtype(), fdt());
    auto got = down(lp);
    double worst = 0;
    for (int k = 0; k < 6; ++k) {
        const double e = static_cast<double>(reference(synth_.pk, pts[k], data.data()).logpdf);
        worst = std::max(worst, std::fabs(got[k] - e) / std::fabs(e));
        // Measured (cpu, opencl): 64b 1.5e-16, 32b 6.7e-8 relative; 10x margin.
        EXPECT_NEAR(got[k], e, (f32() ? 6.7e-7 : 1.5e-15) * std::fabs(e)) << "point " << k << " ("
                                                                          << fused_->implementation() << ")";
    }
    hf::test::measured(GetParam().plugin + " " + GetParam().precision + ": fused logpdf vs reference, relative", worst);
}

TEST_P(Fused, GradientMatchesTheAnalyticReference) {
    auto pts = rounded_points(4);
    auto data = rounded(synth_.data);
    Tensor grad;
    auto lp = fused_->logpdf(pars_tensor(pts), up(data, {static_cast<std::int64_t>(data.size())}), &grad);
    ASSERT_TRUE(grad.defined());
    EXPECT_EQ(grad.shape(), (Shape{4, synth_.pk.n_pars}));
    auto g = down(grad);
    double worst = 0;
    for (int k = 0; k < 4; ++k) {
        auto r = hf::test::packed::evaluate(synth_.pk, pts[k], data.data(), true);
        std::vector<double> want(r.grad.begin(), r.grad.end());
        // The reference's own gradient is the derivative of its logpdf (central differences, truncation ~1e-7).
        EXPECT_TRUE(hf::conf::all_close(want, finite_difference_grad(synth_.pk, pts[k], data.data()), 1e-6, 1e-5))
            << "reference gradient, point " << k;
        std::vector<double> gk(g.begin() + k * synth_.pk.n_pars, g.begin() + (k + 1) * synth_.pk.n_pars);
        double scale = 1;  // components are compared on the scale of the largest (sums of terms of that size)
        for (double x : want) scale = std::max(scale, std::fabs(x));
        for (std::size_t i = 0; i < gk.size(); ++i) worst = std::max(worst, std::fabs(gk[i] - want[i]) / scale);
        // Measured (cpu, opencl): 64b 4.9e-16, 32b 2.2e-7 of the largest component; 10x margin.
        EXPECT_TRUE(hf::conf::all_close(gk, want, 0, (f32() ? 2.2e-6 : 5e-15) * scale)) << "point " << k;
    }
    std::printf("[ measured ] %s %s: fused gradient vs analytic reference, worst %.2e of the largest component\n",
                GetParam().plugin.c_str(), GetParam().precision.c_str(), worst);
    // The gradient does not change the value.
    auto lp2 = fused_->logpdf(pars_tensor(pts), up(data, {static_cast<std::int64_t>(data.size())}), nullptr);
    EXPECT_EQ(down(lp), down(lp2));
}

TEST_P(Fused, ExpectedMainAndAux) {
    auto pts = rounded_points(3);
    auto pt = pars_tensor(pts);
    auto main = fused_->expected_main(pt);
    auto aux = fused_->expected_aux(pt);
    EXPECT_EQ(main.shape(), (Shape{3, synth_.pk.n_main}));
    EXPECT_EQ(aux.shape(), (Shape{3, synth_.pk.n_aux}));
    auto m = down(main), a = down(aux);
    std::vector<double> dummy(synth_.pk.n_main + synth_.pk.n_aux, 0.0);
    for (int k = 0; k < 3; ++k) {
        auto r = reference(synth_.pk, pts[k], dummy.data());
        for (std::int64_t b = 0; b < synth_.pk.n_main; ++b)
            EXPECT_NEAR(m[k * synth_.pk.n_main + b], static_cast<double>(r.rate[b]), 4 * rel() * static_cast<double>(r.rate[b]));
        std::vector<double> ea(synth_.pk.n_aux, 0.0);
        for (std::size_t g = 0; g < synth_.pk.gauss_par.size(); ++g) ea[synth_.pk.gauss_aux[g]] = pts[k][synth_.pk.gauss_par[g]];
        for (std::size_t q = 0; q < synth_.pk.pois_par.size(); ++q)
            ea[synth_.pk.pois_aux[q]] = synth_.pk.pois_tau[q] * pts[k][synth_.pk.pois_par[q]];
        std::vector<double> ak(a.begin() + k * synth_.pk.n_aux, a.begin() + (k + 1) * synth_.pk.n_aux);
        EXPECT_TRUE(hf::conf::all_close(ak, ea, 2 * rel())) << "point " << k;
    }
}

// The Jacobian of the expected main rates (the plugin's own kernel, or the default differences of its
// expected_main) against central differences of the long-double reference's rates.
TEST_P(Fused, ExpectedMainJacobianMatchesTheReference) {
    auto pts = rounded_points(4);
    const std::int64_t N = synth_.pk.n_main, P = synth_.pk.n_pars;
    auto jac = fused_->expected_main_jacobian(pars_tensor(pts));
    EXPECT_EQ(jac.shape(), (Shape{4, N, P}));
    EXPECT_EQ(jac.dtype(), fdt());
    auto got = down(jac);
    std::vector<double> dummy(static_cast<std::size_t>(N + synth_.pk.n_aux), 0.0);
    double worst = 0;
    for (int k = 0; k < 4; ++k) {
        std::vector<double> want(static_cast<std::size_t>(N * P));
        std::vector<double> par = pts[k];
        for (std::int64_t p = 0; p < P; ++p) {
            const double p0 = par[p], h = 1e-5 * std::max(1.0, std::fabs(p0));
            par[p] = p0 + h;
            const auto up_rate = reference(synth_.pk, par, dummy.data()).rate;
            par[p] = p0 - h;
            const auto down_rate = reference(synth_.pk, par, dummy.data()).rate;
            par[p] = p0;
            for (std::int64_t b = 0; b < N; ++b)
                want[b * P + p] = static_cast<double>((up_rate[b] - down_rate[b]) / (2 * h));
        }
        double scale = 1;
        for (double x : want) scale = std::max(scale, std::fabs(x));
        std::vector<double> gk(got.begin() + k * N * P, got.begin() + (k + 1) * N * P);
        for (std::size_t i = 0; i < gk.size(); ++i) worst = std::max(worst, std::fabs(gk[i] - want[i]) / scale);
        // The reference's differences are good to ~1e-10; a plugin's own differences at 32b to ~1e-4.
        EXPECT_TRUE(hf::conf::all_close(gk, want, 0, (f32() ? 2e-3 : 1e-8) * scale)) << "point " << k;
    }
    std::printf("[ measured ] %s %s (%s): expected_main_jacobian vs the reference, worst %.2e of the largest entry\n",
                GetParam().plugin.c_str(), GetParam().precision.c_str(), fused_->implementation(), worst);
}

TEST_P(Fused, PerPointDataLargeBatchesAndNewDataAgree) {
    // K large enough for a plugin to split the batch over workers; every row must equal its K = 1 evaluation.
    const int K = 600;
    auto pts = rounded_points(K);
    auto pt = pars_tensor(pts);
    const auto W = static_cast<std::int64_t>(synth_.data.size());
    std::vector<double> per_point;
    for (int k = 0; k < K; ++k) {
        auto d = synth_.data;
        for (std::int64_t b = 0; b < synth_.pk.n_main; ++b) d[b] = std::max(0.0, d[b] + (k % 7) - 3.0);
        per_point.insert(per_point.end(), d.begin(), d.end());
    }
    Tensor grad;
    auto all = down(fused_->logpdf(pt, up(per_point, {K, W}), &grad));
    auto all_grad = down(grad);
    for (int k : {0, 1, 77, 299, 599}) {
        Tensor g1;
        std::vector<double> row(per_point.begin() + k * W, per_point.begin() + (k + 1) * W);
        auto one = down(fused_->logpdf(pars_tensor({pts[k]}), up(row, {W}), &g1));
        EXPECT_NEAR(all[k], one[0], f32() ? 1e-6 * std::fabs(one[0]) : 1e-13 * std::fabs(one[0])) << "row " << k;
        auto g1v = down(g1);
        for (std::int64_t p = 0; p < synth_.pk.n_pars; ++p)
            EXPECT_NEAR(all_grad[k * synth_.pk.n_pars + p], g1v[p], 1e-6 * (1 + std::fabs(g1v[p])));
        const double e = static_cast<double>(reference(synth_.pk, pts[k], rounded(row).data()).logpdf);
        EXPECT_NEAR(all[k], e, logpdf_rel() * std::fabs(e)) << "row " << k;
    }
    // Data tensors of the same shape but different values must not reuse anything computed for the last one.
    auto d1 = synth_.data, d2 = synth_.data;
    d2[0] += 5;
    auto p1 = pars_tensor({pts[0]});
    const double l1 = down(fused_->logpdf(p1, up(d1, {W}), nullptr))[0];
    const double l2 = down(fused_->logpdf(p1, up(d2, {W}), nullptr))[0];
    const double e2 = static_cast<double>(reference(synth_.pk, pts[0], rounded(d2).data()).logpdf);
    EXPECT_NE(l1, l2);
    EXPECT_NEAR(l2, e2, logpdf_rel() * std::fabs(e2));
}

TEST_P(Fused, ConcurrentCallersGetTheirOwnResults) {
    // Fits of toys run in parallel on one compiled likelihood: scratch memory and data caches must not be shared.
    const int threads = 4;
    auto pts = rounded_points(threads);
    const auto W = static_cast<std::int64_t>(synth_.data.size());
    std::vector<Tensor> pars, data;
    std::vector<double> expected(threads);
    for (int t = 0; t < threads; ++t) {
        auto d = synth_.data;
        d[0] += t;
        pars.push_back(pars_tensor({pts[t]}));
        data.push_back(up(d, {W}));
        Tensor g;
        expected[t] = down(fused_->logpdf(pars[t], data[t], &g))[0];
    }
    std::vector<int> mismatches(threads, 0);
    std::vector<std::string> errors(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            try {
                for (int i = 0; i < 200; ++i) {
                    Tensor g;
                    auto lp = fused_->logpdf(pars[t], data[(t + i) % threads], &g);
                    double v = 0;
                    if (lp.dtype() == hf::DType::f64) lp.backend().to_host(lp, &v);
                    else {
                        float f = 0;
                        lp.backend().to_host(lp, &f);
                        v = f;
                    }
                    if ((t + i) % threads == t && v != expected[t]) ++mismatches[t];
                }
            } catch (const std::exception& e) {
                errors[t] = e.what();
            }
        });
    for (auto& th : pool) th.join();
    for (int t = 0; t < threads; ++t) {
        EXPECT_EQ(mismatches[t], 0) << "thread " << t;
        EXPECT_EQ(errors[t], "") << "thread " << t;
    }
}

TEST_P(Fused, NoTransfersDuringEvaluation) {
    auto pts = rounded_points(2);
    auto pt = pars_tensor(pts);
    auto dt = up(synth_.data, {static_cast<std::int64_t>(synth_.data.size())});
    b().reset_transfers();
    Tensor grad;
    auto lp = fused_->logpdf(pt, dt, &grad);
    auto em = fused_->expected_main(pt);
    auto ea = fused_->expected_aux(pt);
    EXPECT_EQ(b().transfers().uploads, 0u);
    EXPECT_EQ(b().transfers().downloads, 0u);
    down(lp);
    EXPECT_EQ(b().transfers().downloads, 1u);  // the K results, nothing else
}

TEST_P(Fused, BadShapesAndForeignTensorsAreRefused) {
    auto good = pars_tensor(rounded_points(1));
    auto dt = up(synth_.data, {static_cast<std::int64_t>(synth_.data.size())});
    EXPECT_THROW(fused_->logpdf(up({1, 2, 3}, {1, 3}), dt, nullptr), hf::ShapeError);
    EXPECT_THROW(fused_->logpdf(good, up({1, 2}, {2}), nullptr), hf::ShapeError);
    EXPECT_THROW(fused_->expected_main(up({1, 2}, {1, 2})), hf::ShapeError);
    // A second instance of the same plugin is another backend: its tensors are refused, not copied.
    hf::LoadOptions o;
    o.precision = hf::parse_precision(GetParam().precision);
    auto other = hf::load_backend(GetParam().plugin, o);
    std::vector<double> flat = rounded_points(1)[0];
    auto foreign = other->from_host(flat, {1, synth_.pk.n_pars});
    EXPECT_THROW(fused_->logpdf(foreign, dt, nullptr), hf::BackendMismatch);
    // Malformed packed models are refused at compile time.
    auto broken = synth_.pk;
    broken.elem_bin[0] = static_cast<std::int32_t>(broken.n_main);
    EXPECT_THROW(hf::compile_likelihood(b(), broken), hf::ShapeError);
    broken = synth_.pk;
    broken.factor_par[0] = -1;
    EXPECT_THROW(hf::compile_likelihood(b(), broken), hf::ShapeError);
}

TEST_P(Fused, TimingOfOneEvaluationOnAThousandElements) {
    Synth big = make_synth(10, 100);  // 1000 elements, 100 bins, 222 parameters
    make_data(big);
    auto f = hf::compile_likelihood(b(), big.pk);
    ASSERT_TRUE(f);
    auto pt = up(rounded(big.nominal), {1, big.pk.n_pars});
    auto dt = up(rounded(big.data), {static_cast<std::int64_t>(big.data.size())});
    auto time_it = [&](bool with_grad) {
        Tensor g;
        for (int i = 0; i < 20; ++i) f->logpdf(pt, dt, with_grad ? &g : nullptr);  // warm up, fill caches
        // Best of several rounds: the machine may be shared, and the minimum is what the code costs.
        // Thread CPU time as well as wall time: on a loaded machine the wall clock also counts other processes.
        double best = 1e300, best_cpu = 1e300;
        for (int round = 0; round < 5; ++round) {
            const int reps = 400;
            timespec c0, c1;
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
            auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < reps; ++i) f->logpdf(pt, dt, with_grad ? &g : nullptr);
            b().synchronize();
            auto t1 = std::chrono::steady_clock::now();
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
            best = std::min(best, std::chrono::duration<double, std::micro>(t1 - t0).count() / reps);
            best_cpu = std::min(best_cpu, ((c1.tv_sec - c0.tv_sec) * 1e6 + (c1.tv_nsec - c0.tv_nsec) * 1e-3) / reps);
        }
        return std::make_pair(best, best_cpu);
    };
    const auto [t_val, c_val] = time_it(false);
    const auto [t_grad, c_grad] = time_it(true);
    std::printf("[ timing   ] %s %s: fused logpdf, 1000 elements (100 bins, 222 pars), K=1: %.2f us wall, %.2f us "
                "cpu; with gradient: %.2f us wall, %.2f us cpu (best of 5 x 400)\n",
                GetParam().plugin.c_str(), GetParam().precision.c_str(), t_val, c_val, t_grad, c_grad);
    RecordProperty("logpdf_us", std::to_string(t_val));
    RecordProperty("logpdf_grad_us", std::to_string(t_grad));
    // The times are for the record only: a wall-clock bound fails on a loaded machine and proves nothing on a fast
    // one. What is checked is the value the timed calls compute.
    const double e = static_cast<double>(reference(big.pk, rounded(big.nominal), rounded(big.data).data()).logpdf);
    EXPECT_NEAR(down(f->logpdf(pt, dt, nullptr))[0], e, logpdf_rel() * std::fabs(e));
}

HF_CONFORMANCE_SUITE(Fused);

// A model whose every element carries every histosys parameter, as in the ATLAS sbottom models: the cpu plugin
// evaluates it with its dense histosys matrix, several points per pass over the matrix.
class DenseFused : public Fused {
protected:
    Synth model() const override { return make_synth(8, 9, 8); }
};

TEST_P(DenseFused, EachPointIsWhatItIsAloneAndMatchesTheReference) {
    // Eleven points: groups of four and a remainder of three. A toy's fit must not depend on which other toys
    // share its evaluations (thread counts, batch sizes, toys that leave): bit for bit.
    const int K = 11;
    auto pts = rounded_points(K);
    auto data = rounded(synth_.data);
    const Tensor d = up(data, {static_cast<std::int64_t>(data.size())});
    const std::int64_t P = synth_.pk.n_pars;
    Tensor grad;
    const auto all = down(fused_->logpdf(pars_tensor(pts), d, &grad));
    const auto all_grad = down(grad);
    std::printf("[ measured ] %s %s: %s\n", GetParam().plugin.c_str(), GetParam().precision.c_str(),
                fused_->implementation());
    double worst = 0, worst_grad = 0;
    for (int k = 0; k < K; ++k) {
        Tensor g1;
        const auto one = down(fused_->logpdf(pars_tensor({pts[k]}), d, &g1));
        const auto g1v = down(g1);
        EXPECT_EQ(all[k], one[0]) << "point " << k;
        for (std::int64_t p = 0; p < P; ++p) EXPECT_EQ(all_grad[k * P + p], g1v[p]) << "point " << k << " par " << p;
        const auto r = hf::test::packed::evaluate(synth_.pk, pts[k], data.data(), true);
        const double e = static_cast<double>(r.logpdf);
        worst = std::max(worst, std::fabs(all[k] - e) / std::fabs(e));
        EXPECT_NEAR(all[k], e, (f32() ? 6.7e-7 : 1.5e-15) * std::fabs(e)) << "point " << k;
        double scale = 1;
        for (auto x : r.grad) scale = std::max(scale, std::fabs(static_cast<double>(x)));
        for (std::int64_t p = 0; p < P; ++p) {
            const double diff = std::fabs(all_grad[k * P + p] - static_cast<double>(r.grad[p])) / scale;
            worst_grad = std::max(worst_grad, diff);
            EXPECT_LE(diff, f32() ? 2.2e-6 : 5e-15) << "point " << k << " par " << p;
        }
    }
    // The same points in another order and grouping.
    std::vector<std::vector<double>> reversed(pts.rbegin(), pts.rend());
    const auto back = down(fused_->logpdf(pars_tensor(reversed), d, nullptr));
    for (int k = 0; k < K; ++k) EXPECT_EQ(back[K - 1 - k], all[k]) << "point " << k;
    const std::string who = GetParam().plugin + " " + GetParam().precision;
    hf::test::measured(who + ": dense-histosys logpdf vs reference, relative", worst);
    hf::test::measured(who + ": dense-histosys gradient vs reference, of the largest component", worst_grad);
}

HF_CONFORMANCE_SUITE(DenseFused);

}  // namespace

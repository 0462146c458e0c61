// Every interpolation code, value and derivative, through the real plugins: a model built from a workspace whose
// bins each hold one histosys or normsys variation is evaluated on every plugin and precision (its fused
// likelihood and core's Tier 1 fallback on it) at alphas inside and outside |alpha| < 1 and on the kinks, and
// compared with the closed forms of tests/common/interpolation_reference.hpp, which are in turn checked against
// pyhf's own numbers. Nothing here includes plugins/shared: the formulas the plugins run are never their own
// reference.
#include <cmath>
#include <sstream>

#include "conformance.hpp"
#include "hfcore/json.hpp"
#include "hfcore/model.hpp"
#include "hfcore/workspace.hpp"
#include "interpolation_reference.hpp"

namespace {

namespace interp = hf::test::interp;

const hf::json::Value& pyhf_numbers() {
    static const hf::json::Value doc = hf::json::parse_file(
        (hf::test::source_dir() / "tests" / "reference" / "interpolation" / "pyhf_interpolators.json").string());
    return doc;
}

std::vector<double> numbers(const hf::json::Value& v) {
    std::vector<double> out;
    for (const auto& x : v.as_array()) out.push_back(x.as_double());
    return out;
}

struct Bin {
    bool histosys = true;
    double lo = 0, nom = 0, hi = 0;  // normsys: nom = 1 and lo/hi the factors
};

std::vector<Bin> bins() {
    std::vector<Bin> out;
    for (const auto& b : pyhf_numbers()["histosys"]["bins_lo_nom_hi"].as_array())
        out.push_back({true, b[0].as_double(), b[1].as_double(), b[2].as_double()});
    for (const auto& b : pyhf_numbers()["normsys"]["bins_lo_hi"].as_array())
        out.push_back({false, b[0].as_double(), 1.0, b[1].as_double()});
    return out;
}

// The normsys samples' nominal yield; the factor is read back as rate / kNormsysNominal.
constexpr double kNormsysNominal = 10.0;

// One channel with one bin per variation; sample s<i> has its nominal yield only in bin i and carries the
// variation's own parameter a<i>, so each bin's rate is one interpolation of one parameter.
std::string workspace_json() {
    const auto bs = bins();
    const std::size_t n = bs.size();
    auto row = [&](std::size_t i, double v) {
        std::ostringstream os;
        os.precision(17);
        os << "[";
        for (std::size_t j = 0; j < n; ++j) os << (j ? ", " : "") << (j == i ? v : 0.0);
        os << "]";
        return os.str();
    };
    std::ostringstream ws;
    ws.precision(17);
    ws << R"({"channels": [{"name": "c", "samples": [)";
    for (std::size_t i = 0; i < n; ++i) {
        const Bin& b = bs[i];
        ws << (i ? ", " : "") << R"({"name": "s)" << i << R"(", "data": )" << row(i, b.histosys ? b.nom : kNormsysNominal)
           << R"(, "modifiers": [{"name": "a)" << i << R"(", )";
        if (b.histosys)
            ws << R"("type": "histosys", "data": {"lo_data": )" << row(i, b.lo) << R"(, "hi_data": )" << row(i, b.hi) << "}}";
        else
            ws << R"("type": "normsys", "data": {"lo": )" << b.lo << R"(, "hi": )" << b.hi << "}}";
        ws << "]}";
    }
    ws << R"(]}], "observations": [{"name": "c", "data": )" << row(n, 0.0)
       << R"(}], "measurements": [{"name": "m", "config": {"poi": "a0", "parameters": []}}], "version": "1.0.0"})";
    return ws.str();
}

// Closed form of bin i at alpha for the codes of a model.
interp::ValueSlope closed_form(const Bin& b, const std::string& normsys, const std::string& histosys, long double alpha) {
    return b.histosys ? interp::histosys(histosys, alpha, b.lo, b.nom, b.hi) : interp::normsys(normsys, alpha, b.lo, b.hi);
}

// --- the reference itself: the closed forms are pyhf's codes ------------------------------------------------

TEST(InterpolationReference, ClosedFormsEqualPyhf) {
    const auto alphas = numbers(pyhf_numbers()["alphas"]);
    const auto bs = bins();
    int checked = 0;
    double worst = 0;
    for (const char* code : {"code0", "code2", "code4p", "code1", "code4"}) {
        const bool histo = std::string(code) != "code1" && std::string(code) != "code4";
        const auto& table = histo ? pyhf_numbers()["histosys"]["delta"][code] : pyhf_numbers()["normsys"]["factor"][code];
        for (std::size_t k = 0; k < alphas.size(); ++k) {
            std::size_t col = 0;
            for (const Bin& b : bs) {
                if (b.histosys != histo) continue;
                const double pyhf = table[k][col++].as_double();
                const double ours = static_cast<double>(closed_form(b, code, code, alphas[k]).value);
                // Scale: the bin's nominal (histosys) or 1 (normsys factor).
                const double err = std::fabs(ours - pyhf) / (histo ? b.nom : 1.0);
                worst = std::max(worst, err);
                // Measured: 2.2e-16 (pyhf's doubles vs the long-double closed form); 10x margin.
                EXPECT_LE(err, 2.2e-15) << code << " alpha " << alphas[k] << ": closed form " << ours << " pyhf " << pyhf;
                ++checked;
            }
        }
    }
    EXPECT_EQ(checked, 17 * (3 * 5 + 2 * 4));
    std::printf("[ measured ] closed forms vs pyhf: worst %.2e relative to the nominal\n", worst);
}

// The slopes of the closed forms are the derivatives of their values (central differences in long double),
// away from the kinks where one-sided slopes are a convention.
TEST(InterpolationReference, ClosedFormSlopesAreDerivatives) {
    const auto bs = bins();
    for (double alpha : {-2.5, -1.5, -0.7, -0.3, 0.4, 0.8, 1.6, 3.0}) {
        for (const char* code : {"code0", "code2", "code4p", "code1", "code4"}) {
            const bool histo = std::string(code) != "code1" && std::string(code) != "code4";
            for (const Bin& b : bs) {
                if (b.histosys != histo) continue;
                const long double h = 1e-6L;
                const long double fd = (closed_form(b, code, code, alpha + h).value -
                                        closed_form(b, code, code, alpha - h).value) / (2 * h);
                // Truncation error h^2 f''' / 6 ~ 1e-12 on these scales.
                EXPECT_NEAR(static_cast<double>(closed_form(b, code, code, alpha).slope), static_cast<double>(fd), 1e-9)
                    << code << " alpha " << alpha;
            }
        }
    }
}

// --- the plugins against the closed forms --------------------------------------------------------------------

struct Codes {
    const char* normsys;
    const char* histosys;
};

class Interpolation : public hf::conf::Conformance {
protected:
    // Rates [K, B] and d rate / d alpha of each bin [K, B] at every alpha, on this backend.
    void evaluate(const Codes& codes, bool fused, std::vector<double>& rate, std::vector<double>& slope,
                  std::string& implementation) {
        const auto ws = hf::Workspace::load_string(workspace_json(), "interpolation test workspace");
        hf::ModelRequest req;
        req.settings.normsys_interpcode = hf::parse_interpcode(codes.normsys);
        req.settings.histosys_interpcode = hf::parse_interpcode(codes.histosys);
        hf::ModelOptions mo;
        mo.prefer_fused = fused;
        hf::Model m(ws.model_spec(req), backend_, mo);
        implementation = m.implementation();
        const auto alphas = rounded(numbers(pyhf_numbers()["alphas"]));
        const auto K = static_cast<std::int64_t>(alphas.size()), P = m.n_pars(), B = m.n_main();
        std::vector<double> pars;
        for (double a : alphas)
            for (std::int64_t p = 0; p < P; ++p) pars.push_back(a);
        // No events in any bin: log L = -sum(rate) - sum(alpha^2)/2 + const, so d log L / d a_i = -d rate_i / d a_i - a_i.
        std::vector<double> data(static_cast<std::size_t>(B), 0.0);
        const auto aux = m.auxdata();
        data.insert(data.end(), aux.begin(), aux.end());
        const hf::Tensor pt = b().from_host(pars, {K, P});
        rate = down(m.expected_data(pt, false));
        hf::Tensor grad;
        m.logpdf(pt, b().from_host(data), &grad);
        const auto g = down(grad);
        slope.assign(static_cast<std::size_t>(K * B), 0.0);
        for (std::int64_t i = 0; i < B; ++i) {
            const auto p = m.par_slice("a" + std::to_string(i)).first;
            for (std::int64_t k = 0; k < K; ++k) slope[k * B + i] = -(g[k * P + p] + alphas[k]);
        }
    }

    void check(const Codes& codes, bool fused) {
        std::vector<double> rate, slope;
        std::string impl;
        evaluate(codes, fused, rate, slope, impl);
        const auto alphas = rounded(numbers(pyhf_numbers()["alphas"]));
        const auto bs = bins();
        const std::size_t B = bs.size();
        ASSERT_EQ(rate.size(), alphas.size() * B);
        // Measured on cpu and opencl, fused and fallback: 64b values 3.6e-16, slopes 2.7e-16 relative to the scale
        // (the nominal, or |slope| when larger); 32b values 2.6e-7, slopes 1.8e-7. Tolerances 10x.
        const double value_tol = f32() ? 2.6e-6 : 3.6e-15, slope_tol = f32() ? 1.8e-6 : 2.7e-15;
        double worst_value = 0, worst_slope = 0;
        for (std::size_t k = 0; k < alphas.size(); ++k)
            for (std::size_t i = 0; i < B; ++i) {
                const Bin& b = bs[i];
                const auto ref = closed_form(b, codes.normsys, codes.histosys, alphas[k]);
                const double scale = b.histosys ? b.nom : kNormsysNominal;
                const double want_rate = static_cast<double>(b.histosys ? b.nom + ref.value : scale * ref.value);
                const double want_slope = static_cast<double>(b.histosys ? ref.slope : scale * ref.slope);
                const double ev = std::fabs(rate[k * B + i] - want_rate) / scale;
                const double es = std::fabs(slope[k * B + i] - want_slope) / std::max(scale, std::fabs(want_slope));
                worst_value = std::max(worst_value, ev);
                worst_slope = std::max(worst_slope, es);
                const char* code = b.histosys ? codes.histosys : codes.normsys;
                EXPECT_LE(ev, value_tol) << impl << " " << code << " bin " << i << " alpha " << alphas[k] << ": rate "
                                         << rate[k * B + i] << ", closed form " << want_rate;
                EXPECT_LE(es, slope_tol) << impl << " " << code << " bin " << i << " alpha " << alphas[k]
                                         << ": d rate/d alpha " << slope[k * B + i] << ", closed form " << want_slope;
            }
        std::printf("[ measured ] %s %s, %s + %s (%s): worst value %.2e, worst slope %.2e\n", GetParam().plugin.c_str(),
                    GetParam().precision.c_str(), codes.normsys, codes.histosys, impl.c_str(), worst_value, worst_slope);
    }
};

// code1 + code0: the kinks at alpha = 0 (value 1 / 0, right-hand slopes); code4 + code2 and code4 + code4p: the
// joins at alpha = +-1 (and code2's pyhf discontinuities just outside them).
const Codes kCodes[] = {{"code1", "code0"}, {"code4", "code2"}, {"code4", "code4p"}};

TEST_P(Interpolation, FusedLikelihoodMatchesClosedForms) {
    for (const auto& c : kCodes) check(c, true);
}

TEST_P(Interpolation, Tier1FallbackMatchesClosedForms) {
    for (const auto& c : kCodes) check(c, false);
}

HF_CONFORMANCE_SUITE(Interpolation);

}  // namespace

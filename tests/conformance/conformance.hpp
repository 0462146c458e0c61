// The conformance suite: every test runs on every plugin hf::list_plugins() finds, at 32b and 64b, and
// compares against a plain double-precision reference written here. A plugin that is found but unusable on
// this machine (no driver, no device, no fp64) is reported as a skip with its reason, never passed silently.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "hfcore/loader.hpp"
#include "hfcore/errors.hpp"
#include "test_support.hpp"

namespace hf::conf {

struct BackendParam {
    std::string plugin;
    std::string precision;  // "32b" / "64b"
    bool usable = false;
    std::string reason;     // why not, when !usable
};

inline void PrintTo(const BackendParam& p, std::ostream* os) {
    *os << p.plugin << " " << p.precision << (p.usable ? "" : " (unusable: " + p.reason + ")");
}

inline std::string param_name(const ::testing::TestParamInfo<BackendParam>& info) {
    std::string s = info.param.plugin + "_" + info.param.precision;
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return s;
}

// Which plugins and precisions the suite runs on: every plugin found, both precisions (test_conformance), or
// the one plugin hfcore-conformance was asked to check. Set before the tests are registered.
struct Selection {
    std::string plugin;  // empty: every plugin found
    std::vector<std::string> precisions{"64b", "32b"};
};
inline Selection& selection() {
    static Selection s;
    return s;
}

// One (plugin, precision) pair per plugin found; unusable ones carry the reason they will be skipped with.
// Computed once per process: every suite instantiates over it, and probing a GPU runtime is not free.
inline std::vector<BackendParam> discover_uncached() {
    std::vector<BackendParam> out;
    for (const auto& l : hf::list_plugins()) {
        if (!selection().plugin.empty() && l.name != selection().plugin) continue;
        for (const std::string& prec : selection().precisions) {
            BackendParam p{l.name, prec, false, ""};
            if (!l.loaded) {
                p.reason = "plugin file does not load: " + l.load_error;
            } else if (!l.probe.usable) {
                p.reason = "unavailable: " + l.probe.reason;
            } else if (l.probe.devices.empty()) {
                p.reason = "no device";
            } else if (prec == "64b" && !l.probe.devices.front().fp64) {
                p.reason = "device " + l.probe.devices.front().name + " has no fp64";
            } else {
                p.usable = true;
            }
            out.push_back(p);
        }
    }
    return out;
}

inline const std::vector<BackendParam>& discover() {
    static const std::vector<BackendParam> params = discover_uncached();
    return params;
}

// Backends are created once per (plugin, precision) and shared by the tests: GPU start-up is expensive.
inline hf::BackendPtr backend_for(const BackendParam& p) {
    static std::mutex m;
    static std::map<std::string, hf::BackendPtr> cache;
    std::lock_guard<std::mutex> lock(m);
    auto& slot = cache[p.plugin + "/" + p.precision];
    if (!slot) {
        hf::LoadOptions o;
        o.precision = hf::parse_precision(p.precision);
        slot = hf::load_backend(p.plugin, o);
    }
    return slot;
}

// Rounds a double to what the backend's floating dtype can hold (the reference's expected value).
inline double round_to(double v, hf::DType t) {
    if (t == hf::DType::f32) return static_cast<double>(static_cast<float>(v));
    if (t == hf::DType::i32) return static_cast<double>(static_cast<std::int32_t>(v));
    if (t == hf::DType::i64) return static_cast<double>(static_cast<std::int64_t>(v));
    if (t == hf::DType::boolean) return v != 0 ? 1.0 : 0.0;
    return v;
}

inline bool close(double a, double e, double rel, double abs) {
    if (std::isnan(e)) return std::isnan(a);
    if (std::isinf(e)) return a == e;
    if (!std::isfinite(a)) return false;
    return std::fabs(a - e) <= abs + rel * std::fabs(e);
}

// Compares element by element and reports the first few differences with their indices.
inline ::testing::AssertionResult all_close(const std::vector<double>& actual, const std::vector<double>& expected,
                                            double rel, double abs = 0) {
    if (actual.size() != expected.size())
        return ::testing::AssertionFailure() << "size " << actual.size() << ", expected " << expected.size();
    int bad = 0;
    std::ostringstream os;
    for (std::size_t i = 0; i < actual.size(); ++i)
        if (!close(actual[i], expected[i], rel, abs)) {
            if (bad++ < 6)
                os << "\n  [" << i << "] got " << std::setprecision(17) << actual[i] << ", expected " << expected[i];
        }
    if (bad) return ::testing::AssertionFailure() << bad << " of " << actual.size() << " differ (rel " << rel
                                                  << ", abs " << abs << "):" << os.str();
    return ::testing::AssertionSuccess();
}

// numpy broadcasting on host vectors: the reference for every elementwise op.
struct HostTensor {
    std::vector<double> v;
    hf::Shape shape;
};

inline hf::Shape broadcast_shape(const std::vector<hf::Shape>& shapes) {
    std::size_t nd = 0;
    for (auto& s : shapes) nd = std::max(nd, s.size());
    hf::Shape out(nd, 1);
    for (auto& s : shapes)
        for (std::size_t i = 0; i < s.size(); ++i) {
            auto& o = out[nd - s.size() + i];
            if (s[i] != 1) o = s[i];
        }
    return out;
}

// Value of operand `s` (shape) at the output's multi-index.
inline std::int64_t broadcast_index(const hf::Shape& s, const hf::Shape& out, const std::vector<std::int64_t>& idx) {
    std::int64_t off = 0;
    const std::size_t lead = out.size() - s.size();
    for (std::size_t i = 0; i < s.size(); ++i) off = off * s[i] + (s[i] == 1 ? 0 : idx[lead + i]);
    return off;
}

inline HostTensor ref_map(const std::vector<HostTensor>& in, const std::function<double(const std::vector<double>&)>& f) {
    std::vector<hf::Shape> shapes;
    for (auto& t : in) shapes.push_back(t.shape);
    HostTensor out;
    out.shape = broadcast_shape(shapes);
    const std::int64_t n = hf::numel(out.shape);
    std::vector<std::int64_t> idx(out.shape.size(), 0);
    std::vector<double> args(in.size());
    for (std::int64_t k = 0; k < n; ++k) {
        std::int64_t r = k;
        for (std::size_t d = out.shape.size(); d-- > 0;) {
            idx[d] = r % out.shape[d];
            r /= out.shape[d];
        }
        for (std::size_t j = 0; j < in.size(); ++j) args[j] = in[j].v[broadcast_index(in[j].shape, out.shape, idx)];
        out.v.push_back(f(args));
    }
    return out;
}

// Deterministic test values in [lo, hi].
inline std::vector<double> values(std::int64_t n, double lo, double hi, std::uint32_t seed = 1) {
    std::vector<double> v(static_cast<std::size_t>(n));
    std::uint64_t s = 0x9E3779B97F4A7C15ull * (seed + 1);
    for (auto& x : v) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        x = lo + (hi - lo) * static_cast<double>(s >> 11) * 0x1.0p-53;
    }
    return v;
}

class Conformance : public ::testing::TestWithParam<BackendParam> {
protected:
    void SetUp() override {
        const BackendParam& p = GetParam();
        if (!p.usable) GTEST_SKIP() << p.plugin << " " << p.precision << " skipped: " << p.reason;
        backend_ = backend_for(p);
    }

    hf::Backend& b() { return *backend_; }
    bool f32() const { return GetParam().precision == "32b"; }
    hf::DType fdt() const { return f32() ? hf::DType::f32 : hf::DType::f64; }
    // Relative tolerance for results of one floating-point operation (a few ulp).
    double rel() const { return f32() ? 1e-5 : 1e-12; }

    // Host values rounded to the backend precision, so that the reference sees the same inputs.
    std::vector<double> rounded(std::vector<double> v) const {
        for (auto& x : v) x = round_to(x, fdt());
        return v;
    }
    hf::Tensor up(const std::vector<double>& v, const hf::Shape& s) { return b().from_host(v, s); }
    hf::Tensor up(const HostTensor& h) { return b().from_host(h.v, h.shape); }
    hf::Tensor up_as(const std::vector<double>& v, const hf::Shape& s, hf::DType t) {
        switch (t) {
            case hf::DType::f64: return b().from_host(t, s, v.data());
            case hf::DType::f32: {
                std::vector<float> f(v.begin(), v.end());
                return b().from_host(t, s, f.data());
            }
            case hf::DType::i32: {
                std::vector<std::int32_t> f(v.begin(), v.end());
                return b().from_host(t, s, f.data());
            }
            case hf::DType::i64: {
                std::vector<std::int64_t> f(v.begin(), v.end());
                return b().from_host(t, s, f.data());
            }
            case hf::DType::boolean: {
                std::vector<std::uint8_t> f(v.size());
                for (std::size_t i = 0; i < v.size(); ++i) f[i] = v[i] != 0;
                return b().from_host(t, s, f.data());
            }
        }
        return {};
    }
    std::vector<double> down(const hf::Tensor& t) { return b().to_host_double(t); }
    std::vector<double> expect_rounded(std::vector<double> v, hf::DType t) const {
        for (auto& x : v) x = round_to(x, t);
        return v;
    }

    hf::BackendPtr backend_;
};

}  // namespace hf::conf

// Instantiates a Conformance-derived suite over every (plugin, precision) pair found at run time.
#define HF_CONFORMANCE_SUITE(Suite) \
    INSTANTIATE_TEST_SUITE_P(Backends, Suite, ::testing::ValuesIn(::hf::conf::discover()), ::hf::conf::param_name)

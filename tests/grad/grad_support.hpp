// Helpers of the input-gradient tests: workspaces, points away from the interpolation kinks, and finite
// differences of hfcore's own likelihood with the spec's inputs perturbed and the model compiled again.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "hfcore/grad.hpp"
#include "hfcore/model.hpp"
#include "hfcore/workspace.hpp"
#include "test_support.hpp"

namespace hf::test {

struct GradCase {
    std::string name;
    ModelSpec spec;
    std::vector<double> main_data;
};

inline GradCase load_grad_case(const std::string& name) {
    const std::string path = name == "example" ? (source_dir() / "examples" / "workspaces" / "example.json").string()
                                               : (shared_dir() / "validation" / "pyhf-validation" / name / "workspace.json").string();
    Workspace ws = Workspace::load_file(path);
    GradCase c{name, ws.model_spec(), {}};
    c.main_data = ws.observed_main_data(c.spec);
    return c;
}

// The suggested init moved off alpha = 0 and +-1 (the interpolations' kinks and branch points), inside bounds.
inline std::vector<double> off_kink_point(const Model& model) {
    auto p = model.suggested_init();
    const auto bounds = model.suggested_bounds();
    for (std::size_t i = 0; i < p.size(); ++i) {
        const double w = std::min(0.2, 0.3 * (bounds[i].second - bounds[i].first));
        p[i] = std::clamp(p[i] + w * std::sin(1.0 + static_cast<double>(i)), bounds[i].first, bounds[i].second);
    }
    return p;
}

// 4-point central difference (error h^4) of f at input i, step h relative to the input (absolute where 0).
inline double central_difference(const std::function<double(const std::vector<double>&)>& f,
                                 const std::vector<double>& y, std::size_t i, double rel_step) {
    const double h = rel_step * std::max(std::abs(y[i]), 1e-2);
    auto at = [&](double d) {
        auto z = y;
        z[i] += d;
        return f(z);
    };
    return (8.0 * (at(h) - at(-h)) - (at(2 * h) - at(-2 * h))) / (12.0 * h);
}

// Main data followed by the model's own aux data (pyhf: observations + model.config.auxdata).
inline std::vector<double> with_model_aux(const Model& model, std::vector<double> main_data) {
    const auto aux = model.auxdata();
    main_data.insert(main_data.end(), aux.begin(), aux.end());
    return main_data;
}

// hfcore's twice_nll with the spec's inputs replaced by y, the model compiled again (aux data its own).
inline double refit_free_twice_nll(const ModelSpec& spec, const std::vector<double>& y, const std::vector<double>& pars,
                                   const std::vector<double>& main_data) {
    const Model m(grad::with_inputs(spec, y));
    return -2.0 * m.logpdf(pars, with_model_aux(m, main_data));
}

// Whether input i is a shapesys or staterror uncertainty of 0: that bin has no constraint, and any positive value
// creates one (tau = (nominal / 0)^2 is infinite), so the likelihood is discontinuous there and the gradient
// given (0) is that of the bin left unconstrained.
inline bool at_discontinuity(const std::vector<grad::InputBlock>& layout, const std::vector<double>& y, std::size_t i) {
    for (const auto& b : layout)
        if (static_cast<std::int64_t>(i) >= b.offset && static_cast<std::int64_t>(i) < b.offset + b.size)
            return b.field == "vals" && y[i] == 0.0;
    return false;
}

// The indices to check by finite differences: all, or `n` spread over the vector for a large one.
inline std::vector<std::size_t> spread_indices(std::size_t size, std::size_t n) {
    std::vector<std::size_t> out;
    const std::size_t stride = size <= n ? 1 : size / n;
    for (std::size_t i = 0; i < size; i += stride) out.push_back(i);
    return out;
}

// Largest difference relative to the largest component of the reference (an exact zero has no relative error).
inline double norm_rel(const std::vector<double>& got, const std::vector<double>& ref) {
    EXPECT_EQ(got.size(), ref.size());
    double scale = 0, worst = 0;
    for (double v : ref) scale = std::max(scale, std::abs(v));
    for (std::size_t i = 0; i < std::min(got.size(), ref.size()); ++i) worst = std::max(worst, std::abs(got[i] - ref[i]));
    return scale > 0 ? worst / scale : worst;
}

// Largest difference relative to each component, for components above 1e-6 of the largest.
inline double component_rel(const std::vector<double>& got, const std::vector<double>& ref) {
    double scale = 0, worst = 0;
    for (double v : ref) scale = std::max(scale, std::abs(v));
    for (std::size_t i = 0; i < std::min(got.size(), ref.size()); ++i)
        if (std::abs(ref[i]) > 1e-6 * scale) worst = std::max(worst, std::abs(got[i] - ref[i]) / std::abs(ref[i]));
    return worst;
}

}  // namespace hf::test

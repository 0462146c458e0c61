#include "grad_tasks.hpp"

#include <cmath>
#include <memory>

#include "hfcore/grad.hpp"

namespace hf::bench {

void set_grad_task(const std::string& task, const GradTask& t, const ModelSpec& spec, const Model& m,
                   const std::vector<double>& data, const infer::HypotestOptions& options, std::function<void()>& fn,
                   std::function<void()>& report, json::Object& result) {
    const std::vector<double> main_data(data.begin(), data.begin() + m.n_main());
    if (task == "input_grad" || task == "input_grad_tier1") {
        std::shared_ptr<const Model> own;  // the Tier 1 route's model, compiled once when the task is set up
        if (task == "input_grad_tier1") {
            ModelOptions o;
            o.prefer_fused = false;
            own = std::make_shared<const Model>(spec, m.backend(), o);
        }
        const Model* on = own ? own.get() : &m;
        auto r = std::make_shared<grad::LikelihoodGradient>();
        const auto pars = m.suggested_init();
        fn = [on, own, &spec, pars, main_data, r] { *r = grad::twice_nll_gradient(spec, *on, pars, main_data); };
        report = [&result, r] {
            result.set("twice_nll", json::Value(r->value));
            result.set("route", json::Value(r->route));
        };
        return;
    }
    if (task == "hypotest_grad") {
        auto r = std::make_shared<grad::HypotestGradient>();
        fn = [&m, &spec, main_data, options, r, t] { *r = grad::hypotest_gradient(t.mu, spec, m, main_data, options); };
        report = [&result, r] {
            result.set("CLs_obs", json::Value(r->obs));
            result.set("CLs_exp", json::Value(json::Array(r->exp.begin(), r->exp.end())));
            result.set("status", json::Value(std::string(grad::status_name(r->status))));
            result.set("d_exp_median", json::Value(json::Array(r->d_exp[2].begin(), r->d_exp[2].end())));
        };
        return;
    }
    const auto y0 = grad::flatten_inputs(spec);
    std::vector<std::vector<double>> ys(t.k, y0);
    for (std::size_t j = 0; j < t.k; ++j)
        for (std::size_t i = 0; i < y0.size(); ++i)
            ys[j][i] *= 1.0 + 0.02 * std::sin(1.0 + static_cast<double>(j) + 0.3 * static_cast<double>(i));
    auto r = std::make_shared<std::vector<grad::HypotestGradient>>();
    fn = [&m, &spec, ys, main_data, options, r, t] {
        *r = grad::hypotest_gradients(t.mu, spec, m, ys, {main_data}, options, t.threads);
    };
    report = [&result, r] {
        std::int64_t ok = 0;
        for (const auto& g : *r) ok += g.status == grad::Status::ok;
        result.set("ok_items", json::Value(ok));
    };
}

}  // namespace hf::bench

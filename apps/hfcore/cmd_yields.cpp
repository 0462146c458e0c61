// `hfcore yields`: pre- or post-fit yields per channel, sample and bin, with the total's uncertainty by linear
// error propagation (cabinetry model_utils.yield_stdev), and the data.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_options.hpp"

namespace {

struct Options {
    hf::cli::ModelOptions model;
    bool postfit = false;
    bool hessian = false;
};

const hf::cli::Register reg(
    "yields", "Pre-fit (or post-fit) yields with uncertainty bands, and the data, per channel and bin.",
    [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        hf::cli::add_convention_flag(sub, o->hessian);
        sub.add_flag("--postfit", o->postfit, "At the best fit, with the fit's covariance (default: pre-fit)");
        return [o]() {
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            hf::infer::DiagnosticOptions d;
            d.uncertainties = hf::cli::convention(o->hessian);
            const auto r = hf::infer::yields(*lm.model, lm.data, o->postfit, d);
            hf::json::Array channels;
            for (const auto& c : r.channels) {
                hf::json::Array samples;
                for (std::size_t s = 0; s < c.samples.size(); ++s) {
                    hf::json::Object so;
                    so.set("name", hf::json::Value(c.samples[s]));
                    so.set("yields", hf::cli::to_json(c.yields[s]));
                    so.set("stdev", hf::cli::to_json(c.stdev[s]));
                    samples.emplace_back(std::move(so));
                }
                hf::json::Object co;
                co.set("name", hf::json::Value(c.name));
                co.set("samples", hf::json::Value(std::move(samples)));
                co.set("total", hf::cli::to_json(c.total));
                co.set("total_stdev", hf::cli::to_json(c.total_stdev));
                co.set("data", hf::cli::to_json(c.data));
                co.set("channel_total", c.channel_total);
                co.set("channel_total_stdev", c.channel_total_stdev);
                channels.emplace_back(std::move(co));
            }
            hf::json::Object out;
            out.set("postfit", r.postfit);
            out.set("channels", hf::json::Value(std::move(channels)));
            int rc = 0;
            if (r.fit) {
                hf::cli::add_fit_summary(out, *r.fit);
                if (!r.fit->converged) {
                    hf::cli::warn("the fit did not converge: " + r.fit->reason);
                    rc = 1;
                }
            }
            hf::cli::emit(out, o->model);
            return rc;
        };
    });

}  // namespace

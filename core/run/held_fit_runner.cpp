// Held fits (ranking, profile scans) through the executor: the blocks of one HeldFits::run() are its units;
// every rank gets all results and continues in lockstep.
#include "hfcore/distributed.hpp"
#include "run/model_units.hpp"

namespace hf::infer {

namespace {

json::Value to_json(const std::vector<HeldFit>& fits) {
    json::Array a;
    a.reserve(fits.size());
    for (const auto& f : fits) {
        json::Object o;
        o.set("bestfit", run::detail::to_json_array(f.bestfit));
        o.set("twice_nll", json::Value(f.twice_nll));
        o.set("converged", json::Value(f.converged));
        o.set("batched", json::Value(f.batched));
        o.set("reason", json::Value(f.reason));
        a.emplace_back(std::move(o));
    }
    return json::Value(std::move(a));
}

std::vector<HeldFit> from_json(const json::Value& v) {
    std::vector<HeldFit> out;
    for (const auto& o : v.as_array()) {
        HeldFit f;
        f.bestfit = run::detail::doubles_of(o["bestfit"]);
        f.twice_nll = o["twice_nll"].as_double();
        f.converged = o["converged"].as_bool();
        f.batched = o["batched"].as_bool();
        f.reason = o["reason"].as_string();
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace

HeldFitRunner make_held_fit_runner(ModelFactory models, run::ExecutorOptions options) {
    return [models = std::move(models), options](std::size_t n_blocks, const std::string& tag, const HeldFitBlockFn& fn,
                                                 const std::function<void(std::int64_t, std::int64_t)>& blocks_done) {
        std::vector<std::string> keys;
        for (std::size_t b = 0; b < n_blocks; ++b) keys.push_back(tag + "/b" + std::to_string(b));
        run::ExecutorOptions ex = options;
        ex.progress = options.comm.is_root() ? blocks_done : nullptr;  // drawn by rank 0 only
        const auto results = run::detail::run_model_units(
            keys, models, ex, "held fits", [&](const Model& model, std::size_t unit) { return to_json(fn(model, unit)); });
        std::vector<std::vector<HeldFit>> out;
        for (const auto& r : results) out.push_back(from_json(r));
        return out;
    };
}

}  // namespace hf::infer

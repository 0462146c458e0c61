// Toy blocks through the executor: the blocks of one hypotest are its units; every rank gets all results.
#include <algorithm>

#include "hfcore/distributed.hpp"
#include "run/model_units.hpp"

namespace hf::infer {

namespace {

json::Value to_json(const ToyBlockResult& r) {
    json::Object o;
    o.set("teststats", run::detail::to_json_array(r.teststats));
    o.set("batched", json::Value(r.batched));
    o.set("fallback", json::Value(r.fallback));
    o.set("failed", json::Value(r.failed));
    return json::Value(std::move(o));
}

ToyBlockResult from_json(const json::Value& v) {
    ToyBlockResult r;
    r.teststats = run::detail::doubles_of(v["teststats"]);
    r.batched = static_cast<std::int64_t>(v["batched"].as_double());
    r.fallback = static_cast<std::int64_t>(v["fallback"].as_double());
    r.failed = static_cast<std::int64_t>(v["failed"].as_double());
    return r;
}

}  // namespace

ToyRunner make_toy_runner(ModelFactory models, run::ExecutorOptions options) {
    return [models = std::move(models), options](const std::vector<ToyBlock>& blocks, const std::string& tag,
                                                 const ToyBlockFn& fn) {
        const auto results = run::detail::run_toy_blocks(
            blocks, tag, models, options, "toy-based hypotest",
            [&](const Model& model, const ToyBlock& block) { return to_json(fn(model, block)); });
        std::vector<ToyBlockResult> out;
        for (const auto& r : results) out.push_back(from_json(r));
        return out;
    };
}

}  // namespace hf::infer

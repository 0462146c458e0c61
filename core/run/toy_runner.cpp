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
        std::vector<std::string> keys;
        std::int64_t total = 0;
        for (const auto& b : blocks) {
            keys.push_back(tag + "/s" + std::to_string(b.stream) + "/" + std::to_string(b.first) + "+" +
                           std::to_string(b.count));
            total += b.count;
        }
        run::ExecutorOptions ex = options;
        if (options.progress) {
            // Units done -> toys done (blocks differ in size only at the end of a stream).
            ex.progress = [&, cb = options.progress](std::int64_t done, std::int64_t) {
                std::int64_t toys = total * done / static_cast<std::int64_t>(std::max<std::size_t>(1, blocks.size()));
                cb(toys, total);
            };
        }
        const auto results = run::detail::run_model_units(
            keys, models, ex, "toy-based hypotest",
            [&](const Model& model, std::size_t unit) { return to_json(fn(model, blocks[unit])); });
        std::vector<ToyBlockResult> out;
        for (const auto& r : results) out.push_back(from_json(r));
        return out;
    };
}

}  // namespace hf::infer

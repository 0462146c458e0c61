#include "run/model_units.hpp"

#include <algorithm>

#include "hfcore/errors.hpp"

namespace hf::run::detail {

json::Value to_json_array(const std::vector<double>& v) {
    json::Array a;
    a.reserve(v.size());
    for (double x : v) a.emplace_back(x);
    return json::Value(std::move(a));
}

std::vector<double> doubles_of(const json::Value& array) {
    std::vector<double> v;
    v.reserve(array.as_array().size());
    for (const auto& x : array.as_array()) v.push_back(x.as_double());
    return v;
}

std::vector<json::Value> run_model_units(const std::vector<std::string>& keys, const infer::ModelFactory& models,
                                         ExecutorOptions options, const std::string& what, const ModelUnitFn& fn) {
    options.broadcast = true;
    auto factory = [&](int worker) -> UnitFn {
        std::shared_ptr<const Model> model = models(worker);
        return [&fn, model](std::size_t unit) { return fn(*model, unit); };
    };
    auto res = run_units(keys, factory, options);
    if (res.interrupted) throw Interrupted(what + " interrupted");
    for (std::size_t i = 0; i < res.results.size(); ++i)
        if (is_error(res.results[i])) throw Error(what + " " + keys[i] + ": " + res.results[i]["error"].as_string());
    return std::move(res.results);
}

std::vector<json::Value> run_toy_blocks(const std::vector<infer::ToyBlock>& blocks, const std::string& tag,
                                        const infer::ModelFactory& models, ExecutorOptions options,
                                        const std::string& what, const ToyBlockUnitFn& fn) {
    std::vector<std::string> keys;
    std::int64_t total = 0;
    for (const auto& b : blocks) {
        keys.push_back(tag + "/s" + std::to_string(b.stream) + "/" + std::to_string(b.first) + "+" +
                       std::to_string(b.count));
        total += b.count;
    }
    if (options.progress) {
        // Units done -> toys done (blocks differ in size only at the end of a stream).
        const auto units = static_cast<std::int64_t>(std::max<std::size_t>(1, blocks.size()));
        options.progress = [total, units, cb = options.progress](std::int64_t done, std::int64_t) {
            cb(total * done / units, total);
        };
    }
    return run_model_units(keys, models, std::move(options), what,
                           [&](const Model& model, std::size_t unit) { return fn(model, blocks[unit]); });
}

}  // namespace hf::run::detail

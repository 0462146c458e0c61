// Toy-study blocks through the executor: the blocks of one study are its units, each journaled as the fits of
// its toys; every rank gets all results.
#include "hfcore/toy_study.hpp"
#include "run/model_units.hpp"

namespace hf::infer {

namespace {

json::Value flags_to_json(const std::vector<std::uint8_t>& v) {
    json::Array a;
    a.reserve(v.size());
    for (auto x : v) a.push_back(json::Value(static_cast<int>(x)));
    return json::Value(std::move(a));
}

std::vector<std::uint8_t> flags_of(const json::Value& v) {
    std::vector<std::uint8_t> out;
    for (const auto& x : v.as_array()) out.push_back(x.as_double() != 0.0 ? 1 : 0);
    return out;
}

json::Value to_json(const ToyFits& f) {
    json::Object o;
    o.set("bestfit", run::detail::to_json_array(f.bestfit));
    o.set("uncertainties", run::detail::to_json_array(f.uncertainties));
    o.set("twice_nll", run::detail::to_json_array(f.twice_nll));
    o.set("converged", flags_to_json(f.converged));
    o.set("hessian_ok", flags_to_json(f.hessian_ok));
    o.set("fallback", json::Value(f.fallback));
    return json::Value(std::move(o));
}

ToyFits from_json(const json::Value& v) {
    ToyFits f;
    f.bestfit = run::detail::doubles_of(v["bestfit"]);
    f.uncertainties = run::detail::doubles_of(v["uncertainties"]);
    f.twice_nll = run::detail::doubles_of(v["twice_nll"]);
    f.converged = flags_of(v["converged"]);
    f.hessian_ok = flags_of(v["hessian_ok"]);
    f.fallback = static_cast<std::int64_t>(v["fallback"].as_double());
    return f;
}

}  // namespace

ToyStudyRunner make_toy_study_runner(ModelFactory models, run::ExecutorOptions options) {
    return [models = std::move(models), options](const std::vector<ToyBlock>& blocks, const std::string& tag,
                                                 const ToyFitsFn& fn) {
        const auto results = run::detail::run_toy_blocks(
            blocks, tag, models, options, "toy study",
            [&](const Model& model, const ToyBlock& block) { return to_json(fn(model, block)); });
        std::vector<ToyFits> out;
        for (const auto& r : results) out.push_back(from_json(r));
        return out;
    };
}

}  // namespace hf::infer

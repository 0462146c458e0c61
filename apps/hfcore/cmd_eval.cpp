// `hfcore eval`: the model evaluated at one parameter point - logpdf, expected data and the gradient - for
// checking a backend against pyhf or another backend. --pars and --data read hfcore/eval_inputs.hpp's formats.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "hfcore/backend.hpp"
#include "hfcore/eval_inputs.hpp"
#include "hfcore/observed_data.hpp"

namespace cmd_eval {
namespace {

struct Options {
    hf::cli::ModelOptions model;
    std::string pars_file;
    std::string data_file;
    bool init = false;
};

// The model's parameter sets and channels as the JSON readers of hfcore/eval_inputs.hpp see them.
std::vector<hf::ParameterSlot> parameter_slots(const hf::Model& m) {
    std::vector<hf::ParameterSlot> out;
    for (const auto& ps : m.parameter_sets()) out.push_back({ps.name, ps.offset, ps.n});
    return out;
}

std::vector<hf::ChannelSlot> channel_slots(const hf::Model& m) {
    std::vector<hf::ChannelSlot> out;
    for (std::size_t i = 0; i < m.channels().size(); ++i) out.push_back({m.channels()[i], m.channel_nbins()[i]});
    return out;
}

const hf::cli::Register reg(
    "eval", "Evaluate logpdf, expected data and the gradient at a parameter point.", [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        auto* pars = sub.add_option("--pars", o->pars_file,
                                    "JSON file: a list in par_order, or {name: [values]} as `hfcore fit` prints");
        auto* init = sub.add_flag("--init", o->init, "Use the suggested initial values (the default)");
        pars->excludes(init);
        sub.add_option("--data", o->data_file,
                       "JSON file of the data instead of the workspace's observations: a list of main bins then "
                       "auxdata, {channel: [counts]} or {\"observations\": [...]}");
        return [o]() {
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            const hf::Model& m = *lm.model;
            const std::vector<double> p =
                o->pars_file.empty() ? m.suggested_init()
                                     : hf::parameter_point_from_json(hf::json::parse_file(o->pars_file),
                                                                     parameter_slots(m), m.suggested_init(),
                                                                     o->pars_file);
            if (!o->data_file.empty()) {
                lm.data = hf::data_from_json(hf::json::parse_file(o->data_file), channel_slots(m), m.auxdata(),
                                             o->data_file);
                hf::check_observed_data(m, lm.data, o->data_file);  // the aux data against their constraints
            }
            std::vector<double> grad;
            const double lp = m.bind(lm.data).logpdf(p, &grad);
            hf::json::Object out;
            out.set("par_order", hf::cli::to_json(m.par_order()));
            out.set("pars", hf::cli::to_json(p));
            out.set("logpdf", lp);
            out.set("expected_actualdata", hf::cli::to_json(m.expected_actualdata(p)));
            out.set("expected_auxdata", hf::cli::to_json(m.expected_auxdata(p)));
            out.set("gradient", hf::cli::to_json(grad));
            hf::cli::emit(out, o->model);
            return 0;
        };
    });

}  // namespace
}  // namespace cmd_eval

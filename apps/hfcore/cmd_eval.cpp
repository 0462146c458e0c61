// `hfcore eval`: the model evaluated at one parameter point - logpdf, expected data and the gradient - for
// checking a backend against pyhf or another backend.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "hfcore/backend.hpp"

namespace {

struct Options {
    hf::cli::ModelOptions model;
    std::string pars_file;
    bool init = false;
};

// A JSON list of P numbers in par_order, or {name: [values]} (optionally inside "mle_parameters", as
// `hfcore fit` prints); names not given keep their suggested initial values.
std::vector<double> read_pars(const std::string& file, const hf::Model& model) {
    hf::json::Value doc = hf::json::parse_file(file);
    std::vector<double> pars = model.suggested_init();
    auto number = [&](const hf::json::Value& v, const std::string& path) {
        if (!v.is_number()) throw hf::InputError(file, path, std::string("expected a number, got ") + v.type_name());
        return v.as_double();
    };
    if (doc.is_array()) {
        const auto& a = doc.as_array();
        if (static_cast<std::int64_t>(a.size()) != model.n_pars())
            throw hf::InputError(file, "", "has " + std::to_string(a.size()) + " values but the model has " +
                                               std::to_string(model.n_pars()) + " parameters");
        for (std::size_t i = 0; i < a.size(); ++i) pars[i] = number(a[i], hf::json::path_index("", i));
        return pars;
    }
    if (!doc.is_object()) throw hf::InputError(file, "", "expected a JSON list or object of parameter values");
    const hf::json::Value* obj = &doc;
    std::string base;
    if (const auto* m = doc.find("mle_parameters")) {
        obj = m;
        base = "mle_parameters";
    }
    if (!obj->is_object()) throw hf::InputError(file, base, "expected an object {name: [values]}");
    for (const auto& [name, v] : obj->as_object()) {
        const std::string path = hf::json::path_key(base, name);
        const auto& ps = model.parameter_set(name);
        std::vector<double> vals;
        if (v.is_array())
            for (std::size_t i = 0; i < v.as_array().size(); ++i)
                vals.push_back(number(v.as_array()[i], hf::json::path_index(path, i)));
        else
            vals.push_back(number(v, path));
        if (static_cast<std::int64_t>(vals.size()) != ps.n)
            throw hf::InputError(file, path, "has " + std::to_string(vals.size()) + " values but parameter '" + name +
                                                 "' has " + std::to_string(ps.n));
        for (std::int64_t i = 0; i < ps.n; ++i) pars[ps.offset + i] = vals[i];
    }
    return pars;
}

const hf::cli::Register reg(
    "eval", "Evaluate logpdf, expected data and the gradient at a parameter point.", [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        auto* pars = sub.add_option("--pars", o->pars_file,
                                    "JSON file: a list in par_order, or {name: [values]} as `hfcore fit` prints");
        auto* init = sub.add_flag("--init", o->init, "Use the suggested initial values (the default)");
        pars->excludes(init);
        return [o]() {
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            const hf::Model& m = *lm.model;
            std::vector<double> p = o->pars_file.empty() ? m.suggested_init() : read_pars(o->pars_file, m);
            std::vector<double> grad;
            const double lp = m.logpdf_and_grad(p, backend->from_host(lm.data), grad);
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

// `hfcore inspect`: pyhf inspect's summary (channels, samples, parameters, modifiers, measurements), plus each
// parameter set's initial values, bounds and fixed flags. --json prints the same as JSON.
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "command.hpp"
#include "common_options.hpp"

namespace cmd_inspect {
namespace {

struct Options {
    hf::cli::ModelOptions model;
    bool json = false;
};

std::string rjust(const std::string& s, std::size_t w) { return s.size() >= w ? s : std::string(w - s.size(), ' ') + s; }
std::string ljust(const std::string& s, std::size_t w) { return s.size() >= w ? s : s + std::string(w - s.size(), ' '); }
// Python's '{:^w}': the extra space of an odd padding goes to the right.
std::string center(const std::string& s, std::size_t w) {
    if (s.size() >= w) return s;
    const std::size_t pad = w - s.size(), left = pad / 2;
    return std::string(left, ' ') + s + std::string(pad - left, ' ');
}

std::string constraint_name(const hf::ParameterSet& ps) {
    if (ps.constraint == "normal") return "constrained_by_normal";
    if (ps.constraint == "poisson") return "constrained_by_poisson";
    return "unconstrained";
}

std::string fmt(double d) { return hf::json::format_double(d); }

// A compact text for a per-bin list: every value when few or all different, "v (xN)" when all equal.
template <class T, class F>
std::string compact(const std::vector<T>& v, F show) {
    if (v.empty()) return "-";
    bool same = std::all_of(v.begin(), v.end(), [&](const T& x) { return show(x) == show(v[0]); });
    if (v.size() == 1 || (same && v.size() > 1)) return show(v[0]) + (v.size() > 1 ? " (x" + std::to_string(v.size()) + ")" : "");
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + show(v[i]);
    return s;
}

const hf::cli::Register reg(
    "inspect", "Inspect a pyhf JSON document (pyhf inspect), with parameter inits and bounds.", [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        sub.add_flag("--json", o->json, "Print the summary as JSON");
        return [o]() {
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            const auto& ws = *lm.workspace;
            const hf::Model& m = *lm.model;
            const auto samples = ws.sample_names();
            const auto channels = ws.channel_names();
            const auto mods = ws.modifiers();
            std::map<std::string, std::string> modmap;  // dict(ws.modifiers): the last type wins
            for (const auto& [n, t] : mods) modmap[n] = t;
            std::vector<std::pair<std::string, std::string>> params;
            for (const auto& ps : m.parameter_sets()) params.emplace_back(ps.name, constraint_name(ps));
            std::sort(params.begin(), params.end());
            const auto& default_meas = ws.measurement(o->model.measurement.empty()
                                                          ? std::nullopt
                                                          : std::optional<std::string>(o->model.measurement));

            {
                hf::json::Object out;
                out.set("samples", hf::cli::to_json(samples));
                hf::json::Array ch;
                for (const auto& c : channels)
                    ch.emplace_back(hf::json::Array{hf::json::Value(c),
                                                    hf::json::Value(static_cast<std::int64_t>(ws.channel_nbins(c)))});
                out.set("channels", hf::json::Value(std::move(ch)));
                hf::json::Object mo;
                for (const auto& [n, t] : modmap) mo.set(n, hf::json::Value(t));
                out.set("modifiers", hf::json::Value(std::move(mo)));
                hf::json::Array pa, sy;
                for (const auto& [n, c] : params) {
                    pa.emplace_back(hf::json::Array{hf::json::Value(n), hf::json::Value(c)});
                    hf::json::Array types;
                    for (const auto& [mn, mt] : mods)
                        if (mn == n) types.emplace_back(mt);
                    sy.emplace_back(hf::json::Array{hf::json::Value(n), hf::json::Value(c), hf::json::Value(types)});
                }
                out.set("parameters", hf::json::Value(std::move(pa)));
                out.set("systematics", hf::json::Value(std::move(sy)));
                hf::json::Array me;
                for (const auto& ms : ws.spec().measurements) {
                    hf::json::Array names;
                    for (const auto& p : ms.parameters) names.emplace_back(p.name);
                    me.emplace_back(hf::json::Array{hf::json::Value(ms.name), hf::json::Value(ms.poi), hf::json::Value(names)});
                }
                out.set("measurements", hf::json::Value(std::move(me)));
                hf::json::Array details;
                for (const auto& ps : m.parameter_sets()) {
                    hf::json::Object d;
                    d.set("name", hf::json::Value(ps.name));
                    d.set("modifier_type", hf::json::Value(hf::modifier_type_name(ps.modifier_type)));
                    d.set("constraint", hf::json::Value(constraint_name(ps)));
                    d.set("n_parameters", hf::json::Value(ps.n));
                    d.set("inits", hf::cli::to_json(ps.inits));
                    hf::json::Array b, f;
                    for (const auto& [lo, hi] : ps.bounds) b.emplace_back(hf::json::Array{hf::json::Value(lo), hf::json::Value(hi)});
                    for (bool x : ps.fixed) f.emplace_back(x);
                    d.set("bounds", hf::json::Value(std::move(b)));
                    d.set("fixed", hf::json::Value(std::move(f)));
                    details.emplace_back(std::move(d));
                }
                out.set("parameter_details", hf::json::Value(std::move(details)));
                out.set("poi", hf::json::Value(m.poi_name()));
                // pyhf prints the table and writes the JSON to --output-file; --json prints the JSON instead.
                if (!o->model.output_file.empty()) hf::cli::emit(out, o->model);
                if (o->json) {
                    if (o->model.output_file.empty()) hf::cli::emit(out, o->model);
                    return 0;
                }
            }

            std::size_t maxlen = 0;
            for (const auto& c : channels) maxlen = std::max(maxlen, c.size());
            for (const auto& s : samples) maxlen = std::max(maxlen, s.size());
            for (const auto& p : params) maxlen = std::max(maxlen, p.first.size());
            for (const auto& ms : ws.spec().measurements) maxlen = std::max(maxlen, ms.name.size());
            std::ostringstream os;
            os << rjust("     Summary     ", maxlen + 7) << "  \n";
            os << rjust(std::string(18, '-'), maxlen + 7) << "  \n";
            os << rjust("channels", maxlen) << "  " << channels.size() << "\n";
            os << rjust("samples", maxlen) << "  " << samples.size() << "\n";
            os << rjust("parameters", maxlen) << "  " << params.size() << "\n";
            os << rjust("modifiers", maxlen) << "  " << modmap.size() << "\n\n";
            os << rjust("channels", maxlen) << "  " << center("nbins", 5) << "\n";
            os << rjust(std::string(10, '-'), maxlen) << "  " << center(std::string(5, '-'), 5) << "\n";
            for (const auto& c : channels) os << rjust(c, maxlen) << "  " << center(std::to_string(ws.channel_nbins(c)), 5) << "\n";
            os << "\n" << rjust("samples", maxlen) << "\n" << rjust(std::string(10, '-'), maxlen) << "\n";
            for (const auto& s : samples) os << rjust(s, maxlen) << "\n";
            os << "\n";
            os << rjust("parameters", maxlen) << "  " << ljust("constraint", 22) << "  modifiers\n";
            os << rjust(std::string(10, '-'), maxlen) << "  " << ljust(std::string(10, '-'), 22) << "  " << std::string(10, '-') << "\n";
            for (const auto& [n, c] : params) {
                std::set<std::string> types;
                for (const auto& [mn, mt] : mods)
                    if (mn == n) types.insert(mt);
                std::string t;
                for (const auto& x : types) t += (t.empty() ? "" : ",") + x;
                os << rjust(n, maxlen) << "  " << ljust(c, 22) << "  " << t << "\n";
            }
            os << "\n";
            os << rjust("measurement", maxlen) << "  " << center("poi", 22) << "  parameters\n";
            os << rjust(std::string(10, '-'), maxlen) << "  " << center(std::string(10, '-'), 22) << "  " << std::string(10, '-') << "\n";
            for (const auto& ms : ws.spec().measurements) {
                std::string names;
                for (const auto& p : ms.parameters) names += (names.empty() ? "" : ",") + p.name;
                os << rjust((ms.name == default_meas.name ? "(*) " : "") + ms.name, maxlen) << "  " << center(ms.poi, 22)
                   << "  " << (names.empty() ? "(none)" : names) << "\n";
            }
            os << "\n";
            // hfcore's addition: what a fit starts from and may reach, per parameter set.
            os << rjust("parameters", maxlen) << "  " << ljust("init", 16) << "  " << ljust("bounds", 26) << "  fixed\n";
            os << rjust(std::string(10, '-'), maxlen) << "  " << ljust(std::string(10, '-'), 16) << "  "
               << ljust(std::string(10, '-'), 26) << "  " << std::string(5, '-') << "\n";
            for (const auto& ps : m.parameter_sets()) {
                auto b = compact(ps.bounds, [](const std::pair<double, double>& x) {
                    return "[" + fmt(x.first) + ", " + fmt(x.second) + "]";
                });
                std::vector<int> fx(ps.fixed.begin(), ps.fixed.end());
                auto f = compact(fx, [](int x) { return std::string(x ? "yes" : "no"); });
                os << rjust(ps.name + (ps.name == m.poi_name() ? " (POI)" : ""), maxlen) << "  "
                   << ljust(compact(ps.inits, fmt), 16) << "  " << ljust(b, 26) << "  " << f << "\n";
            }
            os << "\n";
            std::cout << os.str();
            return 0;
        };
    });

}  // namespace
}  // namespace cmd_inspect

// `hfcore yields`: pre- or post-fit yields per channel, sample and bin, with the total's uncertainty by linear
// error propagation (cabinetry model_utils.yield_stdev), and the data; as JSON or as tables (--table).
#include <memory>

#include "binning_file.hpp"
#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_options.hpp"
#include "hfcore/yield_tables.hpp"

namespace cmd_yields {
namespace {

struct Options {
    hf::cli::ModelOptions model;
    bool postfit = false;
    bool hessian = false;
    std::string table;  // empty: JSON
    int digits = 2;
    std::string binning;  // --binning FILE
};

const hf::cli::Register reg(
    "yields", "Pre-fit (or post-fit) yields with uncertainty bands, and the data, per channel and bin.",
    [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        o->model.add_data_options(sub);
        hf::cli::add_convention_flag(sub, o->hessian);
        sub.add_flag("--postfit", o->postfit, "At the best fit, with the fit's covariance (default: pre-fit)");
        sub.add_option("--table", o->table,
                       "Write yield tables instead of JSON: per channel a row per sample, the total, data and "
                       "data / model, a column per bin and the channel sum, then an overview per channel "
                       "(csv: every number at full precision)")
            ->check(CLI::IsMember({"text", "markdown", "latex", "csv"}));
        sub.add_option("--binning", o->binning,
                       "JSON file of each channel's bin edges in its observable, {\"SR\": {\"edges\": [0, 50, "
                       "100], \"label\": \"m_T [GeV]\"}}: added to the JSON (edges, label) for plots")
            ->check(CLI::ExistingFile);
        sub.add_option("--digits", o->digits, "Decimals in text, markdown and latex tables")
            ->capture_default_str()
            ->check(CLI::Range(0, 12));
        return [o]() {
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            // The post-fit yields of the samples the POI scales show its fitted value wherever they are.
            if (!lm.blinded.empty() && o->postfit && o->model.data.kind == "observed")
                throw hf::InputError("--blind", "",
                                     "post-fit yields of the observed data show the POI's fitted value through the "
                                     "samples it scales; use --data asimov, or pre-fit yields");
            // Read before the fit: a bad binning file fails now, with exit status 2.
            const auto binning = o->binning.empty() ? std::map<std::string, hf::cli::ChannelBinning>{}
                                                    : hf::cli::read_binning(o->binning, *lm.model);
            hf::infer::DiagnosticOptions d;
            d.uncertainties = hf::cli::convention(o->hessian);
            const auto r = hf::infer::yields(*lm.model, lm.data, o->postfit, d);
            const bool ok = !r.fit || r.fit->converged;
            if (!ok) hf::cli::warn("the fit did not converge: " + r.fit->reason);
            if (o->table.empty()) {
                auto j = hf::infer::to_json(r);
                hf::cli::add_binning(j, binning);
                hf::cli::emit(hf::cli::presented(std::move(j), o->model, lm), o->model);
            } else {
                hf::infer::YieldTableOptions t;
                t.format = hf::infer::parse_table_format(o->table);
                t.digits = o->digits;
                t.blinded_channels = lm.blinded;
                if (o->model.data.kind == "asimov") t.notes.push_back(hf::cli::asimov_description(*lm.model, o->model.data));
                hf::cli::emit_text(hf::infer::format_yield_tables(r, t), o->model);
            }
            return ok ? 0 : 1;
        };
    });

}  // namespace
}  // namespace cmd_yields

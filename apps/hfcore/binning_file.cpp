#include "binning_file.hpp"

#include <algorithm>
#include <cmath>

#include "common_options.hpp"
#include "hfcore/errors.hpp"

namespace hf::cli {

std::map<std::string, ChannelBinning> read_binning(const std::string& path, const Model& model) {
    const json::Value doc = json::parse_file(path);
    if (!doc.is_object())
        throw InputError(path, "", std::string("expected an object {channel: {\"edges\": [...]}}, found ") +
                                       doc.type_name());
    const auto& channels = model.channels();
    std::map<std::string, ChannelBinning> out;
    for (const auto& [name, entry] : doc.as_object()) {
        const auto it = std::find(channels.begin(), channels.end(), name);
        if (it == channels.end()) {
            std::string names;
            for (const auto& c : channels) names += (names.empty() ? "" : ", ") + c;
            throw InputError(path, name, "the model has no channel '" + name + "' (channels: " + names + ")");
        }
        const auto nbins = model.channel_nbins()[static_cast<std::size_t>(it - channels.begin())];
        ChannelBinning b;
        const json::Value* edges = &entry;
        std::string where = name;
        if (entry.is_object()) {
            edges = entry.find("edges");
            where = name + ".edges";
            if (!edges) throw InputError(path, name, "missing 'edges'");
            if (const auto* label = entry.find("label")) {
                if (!label->is_string()) throw InputError(path, name + ".label", "expected a string");
                b.label = label->as_string();
            }
        }
        if (!edges->is_array()) throw InputError(path, where, "expected an array of bin edges");
        for (std::size_t i = 0; i < edges->as_array().size(); ++i) {
            const auto& e = edges->as_array()[i];
            if (!e.is_number() || !std::isfinite(e.as_double()))
                throw InputError(path, where + "[" + std::to_string(i) + "]", "expected a finite number");
            if (!b.edges.empty() && !(e.as_double() > b.edges.back()))
                throw InputError(path, where + "[" + std::to_string(i) + "]", "edges must increase strictly");
            b.edges.push_back(e.as_double());
        }
        if (static_cast<std::int64_t>(b.edges.size()) != nbins + 1)
            throw InputError(path, where,
                             std::to_string(b.edges.size()) + " edges for the " + std::to_string(nbins) +
                                 " bins of channel '" + name + "' (needs " + std::to_string(nbins + 1) + ")");
        out[name] = std::move(b);
    }
    return out;
}

void add_binning(json::Value& result, const std::map<std::string, ChannelBinning>& binning) {
    auto* channels = result.is_object() ? result.as_object().find("channels") : nullptr;
    if (!channels || !channels->is_array()) return;
    for (auto& c : channels->as_array()) {
        const auto* name = c.is_object() ? c.find("name") : nullptr;
        if (!name || !name->is_string()) continue;
        const auto it = binning.find(name->as_string());
        if (it == binning.end()) continue;
        c.as_object().set("edges", to_json(it->second.edges));
        if (!it->second.label.empty()) c.as_object().set("label", json::Value(it->second.label));
    }
}

}  // namespace hf::cli

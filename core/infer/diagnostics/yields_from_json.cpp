// A YieldsResult read back from its JSON (to_json(YieldsResult)), so a saved `hfcore yields` result or the
// Python module's dict can be turned into tables without refitting.
#include <string>

#include "hfcore/errors.hpp"
#include "hfcore/yield_tables.hpp"

namespace hf::infer {

namespace {

struct Reader {
    const std::string& source;

    const json::Value& get(const json::Value& v, const std::string& key, const std::string& path) const {
        const json::Value* x = v.is_object() ? v.find(key) : nullptr;
        if (!x) throw InputError(source, path, "missing '" + key + "' (not an `hfcore yields` result?)");
        return *x;
    }
    double number(const json::Value& v, const std::string& path) const {
        if (!v.is_number()) throw InputError(source, path, std::string("expected a number, found ") + v.type_name());
        return v.as_double();
    }
    std::vector<double> numbers(const json::Value& v, const std::string& path, std::size_t n) const {
        if (!v.is_array()) throw InputError(source, path, std::string("expected an array, found ") + v.type_name());
        std::vector<double> out;
        for (std::size_t i = 0; i < v.as_array().size(); ++i)
            out.push_back(number(v.as_array()[i], path + "[" + std::to_string(i) + "]"));
        if (n != 0 && out.size() != n)
            throw InputError(source, path, std::to_string(out.size()) + " values for " + std::to_string(n) + " bins");
        return out;
    }
    std::string string(const json::Value& v, const std::string& path) const {
        if (!v.is_string()) throw InputError(source, path, std::string("expected a string, found ") + v.type_name());
        return v.as_string();
    }
    const json::Array& array(const json::Value& v, const std::string& path) const {
        if (!v.is_array()) throw InputError(source, path, std::string("expected an array, found ") + v.type_name());
        return v.as_array();
    }
};

}  // namespace

YieldsResult yields_from_json(const json::Value& v, const std::string& source) {
    const Reader rd{source};
    YieldsResult r;
    const auto& postfit = rd.get(v, "postfit", "");
    if (!postfit.is_bool()) throw InputError(source, "postfit", "expected true or false");
    r.postfit = postfit.as_bool();
    const auto& channels = rd.array(rd.get(v, "channels", ""), "channels");
    for (std::size_t c = 0; c < channels.size(); ++c) {
        const std::string cp = "channels[" + std::to_string(c) + "]";
        const auto& cj = channels[c];
        ChannelYields ch;
        ch.name = rd.string(rd.get(cj, "name", cp), cp + ".name");
        ch.total = rd.numbers(rd.get(cj, "total", cp), cp + ".total", 0);
        const std::size_t nb = ch.total.size();
        ch.total_stdev = rd.numbers(rd.get(cj, "total_stdev", cp), cp + ".total_stdev", nb);
        ch.data = rd.numbers(rd.get(cj, "data", cp), cp + ".data", nb);
        ch.channel_total = rd.number(rd.get(cj, "channel_total", cp), cp + ".channel_total");
        ch.channel_total_stdev = rd.number(rd.get(cj, "channel_total_stdev", cp), cp + ".channel_total_stdev");
        const auto& samples = rd.array(rd.get(cj, "samples", cp), cp + ".samples");
        for (std::size_t s = 0; s < samples.size(); ++s) {
            const std::string sp = cp + ".samples[" + std::to_string(s) + "]";
            ch.samples.push_back(rd.string(rd.get(samples[s], "name", sp), sp + ".name"));
            ch.yields.push_back(rd.numbers(rd.get(samples[s], "yields", sp), sp + ".yields", nb));
            ch.stdev.push_back(rd.numbers(rd.get(samples[s], "stdev", sp), sp + ".stdev", nb));
            ch.sample_sums.push_back(rd.number(rd.get(samples[s], "channel_sum", sp), sp + ".channel_sum"));
            ch.sample_sums_stdev.push_back(
                rd.number(rd.get(samples[s], "channel_sum_stdev", sp), sp + ".channel_sum_stdev"));
        }
        r.channels.push_back(std::move(ch));
    }
    return r;
}

}  // namespace hf::infer

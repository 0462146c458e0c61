// The checks of an observed data set against its layout (hfcore/observed_data.hpp). Here, not beside Model,
// because the JSON data reader (eval_inputs.cpp) and its fuzz target use them without a compiled model.
#include "hfcore/observed_data.hpp"

#include <cmath>
#include <cstdint>

#include "hfcore/errors.hpp"
#include "hfcore/json.hpp"

namespace hf {

namespace {

// Why `x` cannot be an observed count, or "" when it can.
std::string count_problem(double x) {
    if (std::isnan(x)) return "is NaN; an observed count must be a finite number >= 0";
    if (!std::isfinite(x)) return "is infinite; an observed count must be a finite number >= 0";
    if (x < 0) return "is negative; an observed count must be >= 0 (a Poisson count)";
    return "";
}

}  // namespace

void check_channel_counts(const std::vector<double>& counts, const std::string& channel, const std::string& source,
                          const std::string& path) {
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const std::string why = count_problem(counts[i]);
        if (!why.empty())
            throw InputError(source, json::path_index(path, i),
                             "observed count " + json::format_double(counts[i]) + " of channel '" + channel + "' " +
                                 why);
    }
}

void check_observed_data(const ObservedDataLayout& layout, const std::vector<double>& data,
                         const std::string& source) {
    std::size_t n_main = 0;
    for (const auto& c : layout.channels) n_main += static_cast<std::size_t>(c.nbins);
    const std::size_t n_aux = layout.aux_is_count.size();
    if (data.size() != n_main + n_aux)
        throw InputError(source, "data",
                         "has " + std::to_string(data.size()) + " values but the model takes " +
                             std::to_string(n_main) + " main bins + " + std::to_string(n_aux) + " aux data = " +
                             std::to_string(n_main + n_aux));
    auto element = [&](std::size_t i) { return json::path_index("data", i); };
    std::size_t i = 0;
    for (const auto& c : layout.channels)
        for (std::int64_t b = 0; b < c.nbins; ++b, ++i) {
            const std::string why = count_problem(data[i]);
            if (!why.empty())
                throw InputError(source, element(i),
                                 json::format_double(data[i]) + " (channel '" + c.name +
                                     "', bin " + std::to_string(b) + ") " + why);
        }
    for (std::size_t a = 0; a < n_aux; ++a, ++i) {
        const std::string what = json::format_double(data[i]) + " (aux datum " +
                                 std::to_string(a) + ", of a " + (layout.aux_is_count[a] ? "Poisson" : "normal") +
                                 " constraint) ";
        if (layout.aux_is_count[a]) {
            const std::string why = count_problem(data[i]);
            if (!why.empty()) throw InputError(source, element(i), what + why);
        } else if (!std::isfinite(data[i])) {
            throw InputError(source, element(i), what + "is not a finite number");
        }
    }
}

}  // namespace hf

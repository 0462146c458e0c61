// A compiled model's observed-data layout (hfcore/observed_data.hpp): its channels' bins, then the aux data of the
// constrained parameter sets in parameter order (as Model::auxdata() lists them).
#include <cstddef>

#include "hfcore/model.hpp"
#include "hfcore/observed_data.hpp"

namespace hf {

ObservedDataLayout observed_data_layout(const Model& model) {
    ObservedDataLayout layout;
    for (std::size_t c = 0; c < model.channels().size(); ++c)
        layout.channels.push_back({model.channels()[c], model.channel_nbins()[c]});
    for (const auto& ps : model.parameter_sets())
        if (ps.constrained) layout.aux_is_count.insert(layout.aux_is_count.end(), ps.auxdata.size(),
                                                       ps.constraint == "poisson");
    return layout;
}

void check_observed_data(const Model& model, const std::vector<double>& data, const std::string& source) {
    check_observed_data(observed_data_layout(model), data, source);
}

}  // namespace hf

// Internal: the compiled model traced back to the spec's inputs. Where the packed likelihood (core/model/packer.cpp)
// holds numbers, this holds indices into the flat input vector (hfcore/grad.hpp's layout), so that the same
// likelihood can be evaluated with the inputs as variables (evaluate.hpp). Numbers that the measurement configures
// (sigmas, factors, auxdata given in the JSON) are constants here: they do not depend on the histograms.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hfcore/grad.hpp"
#include "hfcore/model.hpp"

namespace hf::grad_detail {

enum class FactorForm : std::uint8_t { linear, normsys_code1, normsys_code4 };
enum class DeltaForm : std::uint8_t { code0, code2, code4p };

struct Factor {
    std::int32_t par = 0;
    FactorForm form = FactorForm::linear;
    std::int32_t lo = -1, hi = -1;  // input indices of normsys lo, hi
};

struct Delta {
    std::int32_t par = 0;
    DeltaForm form = DeltaForm::code4p;
    std::int32_t lo = -1, hi = -1;  // input indices of the bin's lo_data, hi_data (nominal: the element's)
};

// One (sample, bin): its nominal's input index, the bin it adds to, its factors and deltas.
struct Element {
    std::int32_t bin = 0;
    std::int32_t nominal = 0;
    std::vector<Factor> factors;
    std::vector<Delta> deltas;
};

// A Gaussian constraint: sigma constant, or from staterror inputs sqrt(sum vals^2) / sum nominals.
struct Gauss {
    std::int32_t par = 0, aux = 0;
    double sigma = 1.0;                   // when `stat_vals` is empty
    std::vector<std::int32_t> stat_vals;  // staterror uncertainties of the carrying samples in this bin
    std::vector<std::int32_t> stat_noms;  // their nominals
};

// A Poisson constraint: tau constant, or (nominal / uncertainty)^2 of the shapesys bin; its aux datum tau too
// unless configured.
struct Poisson {
    std::int32_t par = 0, aux = 0;
    double tau = 1.0;                 // when nominal < 0
    std::int32_t nominal = -1, unc = -1;
    bool aux_is_tau = false;          // the model's aux datum is this tau (not a configured constant)
    double aux_value = 0.0;           // otherwise
};

struct Structure {
    std::int64_t n_inputs = 0, n_pars = 0, n_main = 0, n_aux = 0;
    std::vector<Element> elements;
    std::vector<Gauss> gauss;
    std::vector<Poisson> pois;
    std::vector<double> gauss_aux_value;  // the model's aux datum of each Gaussian constraint (constants)
};

// Traces `model` (compiled from `spec`) back to the inputs of `spec`. InputError when the model does not match
// the spec (other parameter count or bins).
Structure trace_structure(const ModelSpec& spec, const Model& model);

}  // namespace hf::grad_detail

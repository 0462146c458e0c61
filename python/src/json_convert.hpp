// Python objects <-> hf::json::Value. Python's int/float distinction is kept both ways (1 stays 1, 1.0 stays
// 1.0) so digests and written JSON match pyhf's; dict order is kept.
#pragma once

#include <nanobind/nanobind.h>

#include <string>

#include "hfcore/json.hpp"

namespace hfpy {

namespace nb = nanobind;

// TypeError naming the JSON path for objects JSON cannot hold (as json.dumps would refuse them). numpy scalars
// and arrays are accepted through their tolist().
hf::json::Value to_json(nb::handle obj, const std::string& path = "");
nb::object from_json(const hf::json::Value& value);

// str(obj) as UTF-8 (Python's str(), so numbers and names alike).
std::string py_str(nb::handle obj);

}  // namespace hfpy

// numpy broadcasting: result shapes and per-operand strides for plugins' elementwise kernels.
#pragma once

#include <vector>

#include "hfcore/plugin/backend.hpp"

namespace hf::detail {

Shape broadcast_shapes(const std::vector<Shape>& shapes, const char* op);
BroadcastPlan make_broadcast_plan(const Shape& out, const std::vector<Shape>& operands);

}  // namespace hf::detail

#include "broadcast.hpp"

#include <algorithm>

namespace hf::detail {

Shape broadcast_shapes(const std::vector<Shape>& shapes, const char* op) {
    std::size_t nd = 0;
    for (auto& s : shapes) nd = std::max(nd, s.size());
    Shape out(nd, 1);
    for (auto& s : shapes) {
        std::size_t off = nd - s.size();
        for (std::size_t i = 0; i < s.size(); ++i) {
            std::int64_t d = s[i], &o = out[off + i];
            if (d == o || d == 1) continue;
            if (o == 1) {
                o = d;
                continue;
            }
            std::string msg(op);
            msg += ": shapes cannot be broadcast together:";
            for (auto& t : shapes) {
                msg += ' ';
                msg += shape_str(t);
            }
            throw ShapeError(msg);
        }
    }
    return out;
}

BroadcastPlan make_broadcast_plan(const Shape& out, const std::vector<Shape>& operands) {
    BroadcastPlan plan;
    const std::size_t nd = out.size();
    const std::size_t nops = operands.size();
    plan.trivial = std::all_of(operands.begin(), operands.end(), [&](const Shape& s) { return s == out; });

    // Full-rank strides (0 where broadcast), then drop size-1 dims and merge contiguous neighbours.
    std::vector<std::vector<std::int64_t>> strides(nops, std::vector<std::int64_t>(nd, 0));
    for (std::size_t k = 0; k < nops; ++k) {
        const Shape& s = operands[k];
        std::size_t off = nd - s.size();
        std::int64_t stride = 1;
        for (std::size_t i = s.size(); i-- > 0;) {
            strides[k][off + i] = (s[i] == 1) ? 0 : stride;
            stride *= s[i];
        }
    }
    std::vector<std::int64_t> dims;
    std::vector<std::vector<std::int64_t>> st(nops);
    for (std::size_t i = 0; i < nd; ++i) {
        if (out[i] == 1) continue;
        bool merge = !dims.empty();
        for (std::size_t k = 0; k < nops && merge; ++k)
            merge = st[k].back() == strides[k][i] * out[i];
        if (merge) {
            dims.back() *= out[i];
            for (std::size_t k = 0; k < nops; ++k) st[k].back() = strides[k][i];
        } else {
            dims.push_back(out[i]);
            for (std::size_t k = 0; k < nops; ++k) st[k].push_back(strides[k][i]);
        }
    }
    if (dims.size() > static_cast<std::size_t>(BroadcastPlan::kMaxDims))
        throw ShapeError("broadcast: more than 8 non-contiguous dimensions in " + shape_str(out));
    plan.ndim = static_cast<int>(dims.size());
    for (std::size_t i = 0; i < dims.size(); ++i) {
        plan.out_shape[i] = dims[i];
        for (std::size_t k = 0; k < nops; ++k) plan.strides[k][i] = st[k][i];
    }
    return plan;
}

}  // namespace hf::detail

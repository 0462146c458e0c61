// Elementwise kernels: unary, binary (arithmetic into the operands' dtype, comparisons and logic into bool)
// and where, all with the core's broadcast plan.
#include "cl_programs.hpp"
#include "hfcore/errors.hpp"
#include "backend.hpp"

namespace hf::ocl {

namespace {

bool int_unary_ok(UnaryOp op) {
    return op == UnaryOp::neg || op == UnaryOp::abs || op == UnaryOp::square || op == UnaryOp::sign ||
           op == UnaryOp::floor || op == UnaryOp::isfinite;
}

bool bool_unary_ok(UnaryOp op) {
    return op == UnaryOp::logical_not || op == UnaryOp::isfinite || op == UnaryOp::abs || op == UnaryOp::square ||
           op == UnaryOp::sign || op == UnaryOp::floor;
}

bool to_bool(BinaryOp op) {
    switch (op) {
        case BinaryOp::lt:
        case BinaryOp::le:
        case BinaryOp::gt:
        case BinaryOp::ge:
        case BinaryOp::eq:
        case BinaryOp::ne:
        case BinaryOp::logical_and:
        case BinaryOp::logical_or: return true;
        default: return false;
    }
}

}  // namespace

void OpenCLBackend::k_unary(UnaryOp op, const Tensor& x, Tensor& out) {
    const DType t = x.dtype();
    if ((t == DType::i32 || t == DType::i64) && !int_unary_ok(op))
        throw ShapeError(std::string("opencl: ") + op_name(op) + " is not defined for " + dtype_name(t));
    if (t == DType::boolean && !bool_unary_ok(op))
        throw ShapeError(std::string("opencl: ") + op_name(op) + " is not defined for bool");
    if (op == UnaryOp::logical_not && t != DType::boolean)
        throw ShapeError(std::string("opencl: logical_not needs bool, got ") + dtype_name(t));
    const cl_long n = x.size();
    const std::string sfx = dtype_suffix(t);
    if (op == UnaryOp::isfinite) {
        run(program_for(t), "is_finite_" + sfx, n, n, x, out);
        return;
    }
    run(program_for(t), "unary_" + sfx, n, static_cast<cl_int>(op), n, x, out);
}

void OpenCLBackend::k_binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out, const BroadcastPlan& plan) {
    if (a.dtype() != b.dtype())
        throw ShapeError(std::string("opencl: ") + op_name(op) + " of " + dtype_name(a.dtype()) + " and " +
                         dtype_name(b.dtype()));
    const DType t = a.dtype();
    if (op == BinaryOp::xlogy && !is_floating(t))
        throw ShapeError(std::string("opencl: xlogy is not defined for ") + dtype_name(t));
    const ClPlan p = to_cl_plan(plan);
    const cl_long n = out.size();
    const std::string kname = std::string(to_bool(op) ? "compare_" : "binary_") + dtype_suffix(t);
    run(program_for(t), kname, n, static_cast<cl_int>(op), n, p.ndim, p.shape, p.s0, p.s1, a, b, out);
}

void OpenCLBackend::k_where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out,
                            const BroadcastPlan& plan) {
    if (cond.dtype() != DType::boolean) throw ShapeError("opencl: where needs a bool condition");
    const ClPlan p = to_cl_plan(plan);
    const cl_long n = out.size();
    program_for(out.dtype());
    run(ProgramId::copy, "where_" + std::to_string(dtype_size(out.dtype())), n, n, p.ndim, p.shape, p.s0, p.s1, p.s2,
        cond, a, b, out);
}

}  // namespace hf::ocl

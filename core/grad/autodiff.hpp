// Internal: the two scalar types the input-gradient evaluator (evaluate.hpp) is instantiated with besides double.
//   Var:      reverse mode on a tape (one thread-local Tape per sweep): the gradient of one output with respect
//             to every input in one backward pass, whatever the number of inputs (the model's histograms).
//   Dual<T>:  forward mode along one direction; Dual<Var> is forward-over-reverse, which gives the exact mixed
//             second derivatives d/dy (v . grad_theta NLL) and the rows of the parameter Hessian that the
//             implicit-function-theorem terms need.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace hf::grad_detail {

// Dual<T>'s functions below call exp, log and sqrt unqualified: for Dual<double> they must find std's, which the
// Var overloads declared here would otherwise hide.
using std::exp;
using std::log;
using std::sqrt;

// One tape entry: up to two parents with the local partial derivatives.
struct Node {
    std::int32_t a = -1, b = -1;
    double da = 0.0, db = 0.0;
};

struct Tape {
    std::vector<Node> nodes;
    std::int32_t push(std::int32_t a, double da, std::int32_t b = -1, double db = 0.0) {
        nodes.push_back({a, b, da, db});
        return static_cast<std::int32_t>(nodes.size() - 1);
    }
    // d out / d node for every node (adjoints), seeded at `out`.
    std::vector<double> backward(std::int32_t out) const {
        std::vector<double> adj(nodes.size(), 0.0);
        if (out < 0) return adj;
        adj[static_cast<std::size_t>(out)] = 1.0;
        for (std::size_t i = static_cast<std::size_t>(out) + 1; i-- > 0;) {
            const double g = adj[i];
            if (g == 0.0) continue;
            const Node& n = nodes[i];
            if (n.a >= 0) adj[static_cast<std::size_t>(n.a)] += g * n.da;
            if (n.b >= 0) adj[static_cast<std::size_t>(n.b)] += g * n.db;
        }
        return adj;
    }
};

// The tape the Vars of the current sweep record on (set by TapeScope).
inline thread_local Tape* active_tape = nullptr;

// Node storage of finished sweeps, kept per thread: a sweep records millions of nodes, and growing a fresh
// vector to that size each time (reallocations and page faults) cost more than the sweep's arithmetic.
inline thread_local std::vector<std::vector<Node>> spare_tapes;

struct TapeScope {
    Tape tape;
    Tape* previous;
    TapeScope() : previous(active_tape) {
        if (!spare_tapes.empty()) {
            tape.nodes = std::move(spare_tapes.back());
            spare_tapes.pop_back();
            tape.nodes.clear();
        }
        active_tape = &tape;
    }
    ~TapeScope() {
        active_tape = previous;
        spare_tapes.push_back(std::move(tape.nodes));
    }
    TapeScope(const TapeScope&) = delete;
    TapeScope& operator=(const TapeScope&) = delete;
};

// A value on the tape (id >= 0) or a constant (id < 0: nothing recorded).
struct Var {
    double v = 0.0;
    std::int32_t id = -1;
    Var() = default;
    Var(double x) : v(x) {}  // NOLINT: constants mix freely with variables
    Var(double x, std::int32_t i) : v(x), id(i) {}
    static Var input(double x) { return {x, active_tape->push(-1, 0.0)}; }
};

inline Var unary(const Var& x, double value, double dx) {
    if (x.id < 0) return Var(value);
    return {value, active_tape->push(x.id, dx)};
}
inline Var binary(const Var& x, const Var& y, double value, double dx, double dy) {
    if (x.id < 0 && y.id < 0) return Var(value);
    if (x.id < 0) return {value, active_tape->push(y.id, dy)};
    if (y.id < 0) return {value, active_tape->push(x.id, dx)};
    return {value, active_tape->push(x.id, dx, y.id, dy)};
}

inline Var operator+(const Var& x, const Var& y) { return binary(x, y, x.v + y.v, 1.0, 1.0); }
inline Var operator-(const Var& x, const Var& y) { return binary(x, y, x.v - y.v, 1.0, -1.0); }
inline Var operator*(const Var& x, const Var& y) { return binary(x, y, x.v * y.v, y.v, x.v); }
inline Var operator/(const Var& x, const Var& y) { return binary(x, y, x.v / y.v, 1.0 / y.v, -x.v / (y.v * y.v)); }
inline Var operator-(const Var& x) { return unary(x, -x.v, -1.0); }
inline Var& operator+=(Var& x, const Var& y) { return x = x + y; }
inline Var& operator*=(Var& x, const Var& y) { return x = x * y; }
inline Var log(const Var& x) { return unary(x, std::log(x.v), 1.0 / x.v); }
inline Var exp(const Var& x) {
    const double e = std::exp(x.v);
    return unary(x, e, e);
}
inline Var sqrt(const Var& x) {
    const double s = std::sqrt(x.v);
    return unary(x, s, 0.5 / s);
}
double digamma(double x);
double trigamma(double x);
inline Var lgamma(const Var& x) { return unary(x, std::lgamma(x.v), digamma(x.v)); }
inline double value(const Var& x) { return x.v; }

// Forward mode along one direction.
template <class T>
struct Dual {
    T v{}, d{};
    Dual() = default;
    Dual(double x) : v(x), d(0.0) {}  // NOLINT
    Dual(T x, T dx) : v(x), d(dx) {}
};
template <class T> Dual<T> operator+(const Dual<T>& x, const Dual<T>& y) { return {x.v + y.v, x.d + y.d}; }
template <class T> Dual<T> operator-(const Dual<T>& x, const Dual<T>& y) { return {x.v - y.v, x.d - y.d}; }
template <class T> Dual<T> operator*(const Dual<T>& x, const Dual<T>& y) { return {x.v * y.v, x.d * y.v + x.v * y.d}; }
template <class T> Dual<T> operator/(const Dual<T>& x, const Dual<T>& y) {
    const T q = x.v / y.v;
    return {q, (x.d - q * y.d) / y.v};
}
template <class T> Dual<T> operator-(const Dual<T>& x) { return {-x.v, -x.d}; }
template <class T> Dual<T>& operator+=(Dual<T>& x, const Dual<T>& y) { return x = x + y; }
template <class T> Dual<T>& operator*=(Dual<T>& x, const Dual<T>& y) { return x = x * y; }
template <class T> Dual<T> log(const Dual<T>& x) { return {log(x.v), x.d / x.v}; }
template <class T> Dual<T> exp(const Dual<T>& x) {
    const T e = exp(x.v);
    return {e, e * x.d};
}
template <class T> Dual<T> sqrt(const Dual<T>& x) {
    const T s = sqrt(x.v);
    return {s, x.d / (2.0 * s)};
}
// lgamma's tangent needs digamma of a T; only data-dependent terms use lgamma, and those are never seeded along
// a parameter direction, so the tangent of lgamma is digamma(x) * dx with digamma taken at the value.
inline Dual<double> lgamma(const Dual<double>& x) { return {std::lgamma(x.v), digamma(x.v) * x.d}; }
inline Dual<Var> lgamma(const Dual<Var>& x) {
    return {lgamma(x.v), unary(x.v, digamma(x.v.v), trigamma(x.v.v)) * x.d};
}
inline double value(double x) { return x; }
template <class T> double value(const Dual<T>& x) { return value(x.v); }

}  // namespace hf::grad_detail

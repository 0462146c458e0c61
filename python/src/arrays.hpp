// numpy in and out. Inputs are checked here once, with messages that name the argument and say what to do:
// a wrong length, dtype or dimension, a NaN or infinity, or a non-contiguous array is a ValueError subclass
// (InvalidPdfParameters for parameters, InvalidPdfData for data, as pyhf names them), never a crash.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <string>
#include <vector>

#include "errors.hpp"

namespace hfpy {

namespace nb = nanobind;

// A row-major [rows, cols] block of doubles read from a Python object. `ptr` points into the caller's numpy
// array when it is float64 and contiguous (no copy), else into `owned`.
struct HostMatrix {
    const double* ptr = nullptr;
    std::int64_t rows = 1, cols = 0;
    bool two_d = false;  // the input had two dimensions ([K, n]); one dimension means rows == 1
    nb::object keep;     // the array `ptr` points into
    // The buffer `ptr` points into when it was read through the buffer protocol, released with this object.
    struct Buffer {
        Py_buffer view{};
        bool held = false;
        Buffer() = default;
        Buffer(Buffer&& o) noexcept : view(o.view), held(o.held) { o.held = false; }
        Buffer& operator=(Buffer&& o) noexcept {
            std::swap(view, o.view);
            std::swap(held, o.held);
            return *this;
        }
        ~Buffer() {
            if (held) PyBuffer_Release(&view);
        }
    };
    Buffer buffer;
    std::vector<double> row_vector(std::int64_t r = 0) const { return {ptr + r * cols, ptr + (r + 1) * cols}; }
    // Row r copied into `out` (a vector reused between calls, so no allocation once it is large enough).
    const std::vector<double>& row_into(std::vector<double>& out, std::int64_t r = 0) const {
        out.assign(ptr + r * cols, ptr + (r + 1) * cols);
        return out;
    }
    std::vector<double> all() const { return {ptr, ptr + rows * cols}; }
};

struct ArraySpec {
    const char* name;        // "pars", "data", ...
    Kind kind;               // the exception class for problems
    std::int64_t length;     // required last dimension; < 0 = any
    bool allow_2d = true;
    bool finite = true;      // reject NaN and infinities
};

// Accepts numpy arrays (float64, or integer / float16 / float32, converted), lists and tuples of numbers.
HostMatrix read_matrix(nb::handle obj, const ArraySpec& spec);
std::vector<double> read_vector(nb::handle obj, const ArraySpec& spec);

// Imports numpy's C API; called once when the module loads.
void init_numpy();

// New numpy arrays owning a copy of the values.
nb::object to_numpy(const std::vector<double>& values);
nb::object to_numpy(const std::vector<double>& values, std::int64_t rows, std::int64_t cols);
nb::object to_numpy_bool(const std::vector<bool>& values);

}  // namespace hfpy

#include "arrays.hpp"

// numpy's C API, this translation unit only (init_numpy() imports it when the module loads).
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include "json_convert.hpp"

#include <cmath>
#include <cstring>
#include <string_view>

namespace hfpy {

using namespace nb::literals;

namespace {

[[noreturn]] void bad(const ArraySpec& spec, const std::string& what) {
    raise(spec.kind, std::string(spec.name) + ": " + what);
}

std::string shape_text(const nb::ndarray<nb::ro>& a) {
    std::string s = "(";
    for (std::size_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
    return s + (a.ndim() == 1 ? ",)" : ")");
}

std::string dtype_text(nb::handle obj) {
    if (!nb::hasattr(obj, "dtype")) return "?";
    nb::object s = nb::steal(PyObject_Str(obj.attr("dtype").ptr()));
    const char* text = s.is_valid() ? PyUnicode_AsUTF8(s.ptr()) : nullptr;
    if (!text) {
        PyErr_Clear();
        return "?";
    }
    return text;
}

// numpy.asarray(obj, dtype=float64), with conversion failures reported as the argument's error.
nb::object as_float_array(nb::handle obj, const ArraySpec& spec) {
    static nb::object asarray = nb::module_::import_("numpy").attr("asarray");
    try {
        return asarray(obj, "dtype"_a = "float64");
    } catch (nb::python_error& e) {
        bad(spec, std::string("expected numbers (a list or a numpy array of floats), got ") +
                      nb::str(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(obj.ptr()))).attr("__name__")).c_str() +
                      " (" + e.what() + ")");
    }
}

}  // namespace

namespace {

void check_finite(const HostMatrix& m, const ArraySpec& spec) {
    if (!spec.finite) return;
    {
        const std::int64_t n = m.rows * m.cols;
        for (std::int64_t i = 0; i < n; ++i) {
            if (std::isfinite(m.ptr[i])) continue;
            std::string where = "element [";
            if (m.two_d) where += std::to_string(i / m.cols) + ", ";
            where += std::to_string(m.two_d ? i % m.cols : i);
            where += std::isnan(m.ptr[i]) ? "] is NaN" : "] is infinite";
            bad(spec, where);
        }
    }
}

}  // namespace

namespace {

// The fastest path: a C-contiguous, aligned, native-order float64 numpy array, read in place through numpy's
// C API (tens of nanoseconds). Returns false for anything else.
bool read_float64_ndarray(nb::handle obj, const ArraySpec& spec, HostMatrix& m) {
    if (!PyArray_Check(obj.ptr())) return false;
    auto* a = reinterpret_cast<PyArrayObject*>(obj.ptr());
    const int nd = PyArray_NDIM(a);
    if (PyArray_TYPE(a) != NPY_DOUBLE || !PyArray_ISCARRAY_RO(a) || !PyArray_ISNOTSWAPPED(a) || nd < 1 || nd > 2 ||
        (nd == 2 && !spec.allow_2d) || PyArray_SIZE(a) == 0)
        return false;
    m.two_d = nd == 2;
    m.rows = m.two_d ? PyArray_DIM(a, 0) : 1;
    m.cols = PyArray_DIM(a, nd - 1);
    m.ptr = static_cast<const double*>(PyArray_DATA(a));
    m.keep = nb::borrow(obj);
    return true;
}

// The fast path for other objects with a C-contiguous float64 buffer, read in place through the buffer
// protocol. Returns false for anything else, which read_matrix then examines in detail.
bool read_float64_buffer(nb::handle obj, const ArraySpec& spec, HostMatrix& m) {
    if (!PyObject_CheckBuffer(obj.ptr()) || PyBytes_Check(obj.ptr()) || PyByteArray_Check(obj.ptr())) return false;
    HostMatrix::Buffer buf;
    if (PyObject_GetBuffer(obj.ptr(), &buf.view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
        PyErr_Clear();
        return false;
    }
    buf.held = true;
    const Py_buffer& v = buf.view;
    const char* f = v.format ? v.format : "B";
    const bool f64 = v.itemsize == 8 && (std::string_view(f) == "d" || std::string_view(f) == "<d" || std::string_view(f) == "=d");
    if (!f64 || v.ndim < 1 || v.ndim > 2 || v.len == 0) return false;  // the general path explains
    m.two_d = v.ndim == 2;
    if (m.two_d && !spec.allow_2d) return false;
    m.rows = m.two_d ? v.shape[0] : 1;
    m.cols = v.shape[v.ndim - 1];
    m.ptr = static_cast<const double*>(v.buf);
    m.buffer = std::move(buf);
    return true;
}

}  // namespace

HostMatrix read_matrix(nb::handle obj, const ArraySpec& spec) {
    HostMatrix m;
    if (read_float64_ndarray(obj, spec, m) || read_float64_buffer(obj, spec, m)) {
        if (spec.length >= 0 && m.cols != spec.length)
            bad(spec, "has length " + std::to_string(m.cols) + " but " + std::to_string(spec.length) + " was expected");
        check_finite(m, spec);
        return m;
    }
    nb::ndarray<nb::ro> a;
    nb::object converted;
    if (!nb::try_cast(obj, a, false)) {
        // An array of strings or objects is the wrong dtype; a list, a tuple or a scalar is for numpy to read.
        if (nb::hasattr(obj, "dtype") && nb::hasattr(obj, "shape")) {
            const std::string kind = py_str(obj.attr("dtype").attr("kind"));
            if (kind.size() != 1 || std::string("iuf").find(kind) == std::string::npos)
                bad(spec, "wrong dtype " + dtype_text(obj) + "; expected float64 (or integers / float32, converted)");
        }
        converted = as_float_array(obj, spec);
        if (!nb::try_cast(converted, a, false)) bad(spec, "could not be read as an array of floats");
    } else {
        const nb::dlpack::dtype dt = a.dtype();
        const auto code = static_cast<nb::dlpack::dtype_code>(dt.code);
        const bool f64 = dt == nb::dtype<double>();
        const bool numeric = code == nb::dlpack::dtype_code::Int || code == nb::dlpack::dtype_code::UInt ||
                             code == nb::dlpack::dtype_code::Float;
        if (!f64 && !(numeric && dt.lanes == 1 && dt.bits <= 64))
            bad(spec, "wrong dtype " + dtype_text(obj) + "; expected float64 (or integers / float32, converted)");
        if (a.device_type() != nb::device::cpu::value)
            bad(spec, "the array is not in host memory; pass a numpy array");
        // Non-contiguous views are refused rather than copied behind the caller's back.
        bool contiguous = true;
        std::int64_t expect = 1;
        for (int i = static_cast<int>(a.ndim()) - 1; i >= 0; --i) {
            if (a.size() != 0 && a.shape(i) != 1 && a.stride(i) != expect) contiguous = false;
            expect *= static_cast<std::int64_t>(a.shape(i));
        }
        if (!contiguous)
            bad(spec, "the array is not C-contiguous (a strided view?); pass numpy.ascontiguousarray(" +
                          std::string(spec.name) + ")");
        if (!f64) {
            converted = as_float_array(obj, spec);
            nb::try_cast(converted, a, false);
        }
    }
    if (a.ndim() == 0) bad(spec, "expected a 1-D array, got a scalar");
    if (a.ndim() > 2 || (a.ndim() == 2 && !spec.allow_2d))
        bad(spec, std::string("expected ") + (spec.allow_2d ? "a 1-D or 2-D array" : "a 1-D array") + ", got shape " +
                      shape_text(a));
    m.two_d = a.ndim() == 2;
    m.rows = m.two_d ? static_cast<std::int64_t>(a.shape(0)) : 1;
    m.cols = static_cast<std::int64_t>(a.shape(a.ndim() - 1));
    if (spec.length >= 0 && m.cols != spec.length)
        bad(spec, "has length " + std::to_string(m.cols) + " but " + std::to_string(spec.length) + " was expected" +
                      (m.two_d ? " (shape " + shape_text(a) + ")" : ""));
    if (m.rows == 0) bad(spec, "has no rows (shape " + shape_text(a) + ")");
    m.ptr = static_cast<const double*>(a.data());
    m.keep = converted.is_valid() ? converted : nb::borrow(obj);
    check_finite(m, spec);
    return m;
}

std::vector<double> read_vector(nb::handle obj, const ArraySpec& spec) {
    ArraySpec one = spec;
    one.allow_2d = false;
    return read_matrix(obj, one).all();
}

namespace {

// A new float64 numpy array of `shape`, filled from `values`.
nb::object new_array(const double* values, std::initializer_list<Py_ssize_t> shape) {
    npy_intp dims[2] = {0, 0};
    int nd = 0;
    for (Py_ssize_t d : shape) dims[nd++] = d;
    nb::object arr = nb::steal(PyArray_SimpleNew(nd, dims, NPY_DOUBLE));
    if (!arr.is_valid()) throw nb::python_error();
    const std::size_t n = static_cast<std::size_t>(PyArray_SIZE(reinterpret_cast<PyArrayObject*>(arr.ptr())));
    if (n) std::memcpy(PyArray_DATA(reinterpret_cast<PyArrayObject*>(arr.ptr())), values, n * sizeof(double));
    return arr;
}

}  // namespace

nb::object to_numpy(const std::vector<double>& values) {
    return new_array(values.data(), {static_cast<Py_ssize_t>(values.size())});
}

nb::object to_numpy(const std::vector<double>& values, std::int64_t rows, std::int64_t cols) {
    return new_array(values.data(), {static_cast<Py_ssize_t>(rows), static_cast<Py_ssize_t>(cols)});
}

void init_numpy() {
    if (PyArray_ImportNumPyAPI() < 0) throw nb::python_error();
}

nb::object to_numpy_bool(const std::vector<bool>& values) {
    auto* heap = new std::vector<std::uint8_t>(values.begin(), values.end());
    nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<std::vector<std::uint8_t>*>(p); });
    const std::size_t shape[1] = {values.size()};
    return nb::cast(nb::ndarray<nb::numpy, bool>(reinterpret_cast<bool*>(heap->data()), 1, shape, owner));
}

}  // namespace hfpy

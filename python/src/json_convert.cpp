#include "json_convert.hpp"

#include <cmath>

namespace hfpy {

using hf::json::Value;

namespace {

[[noreturn]] void type_error(const std::string& path, nb::handle obj) {
    const std::string type = nb::borrow<nb::str>(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(obj.ptr()))).attr("__name__")).c_str();
    const std::string msg = "Object of type " + type + " is not JSON serializable" +
                            (path.empty() ? std::string() : " (at " + path + ")");
    PyErr_SetString(PyExc_TypeError, msg.c_str());
    throw nb::python_error();
}

Value from_int(nb::handle obj, const std::string& path) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
    if (overflow == 0) {
        if (v == -1 && PyErr_Occurred()) throw nb::python_error();
        return Value(static_cast<std::int64_t>(v));
    }
    if (overflow > 0) {
        const unsigned long long u = PyLong_AsUnsignedLongLong(obj.ptr());
        if (!PyErr_Occurred()) return Value(hf::json::Number::from_uint(u));
        PyErr_Clear();
    }
    PyErr_SetString(PyExc_ValueError, ("integer beyond 64 bits" + (path.empty() ? "" : " at " + path)).c_str());
    throw nb::python_error();
}

}  // namespace

Value to_json(nb::handle obj, const std::string& path) {
    PyObject* o = obj.ptr();
    if (o == Py_None) return Value();
    if (PyBool_Check(o)) return Value(o == Py_True);
    if (PyLong_Check(o)) return from_int(obj, path);
    if (PyFloat_Check(o)) return Value(PyFloat_AS_DOUBLE(o));
    if (PyUnicode_Check(o)) {
        Py_ssize_t n = 0;
        const char* s = PyUnicode_AsUTF8AndSize(o, &n);
        if (!s) throw nb::python_error();
        return Value(std::string(s, static_cast<std::size_t>(n)));
    }
    if (PyDict_Check(o)) {
        hf::json::Object out;
        out.reserve(static_cast<std::size_t>(PyDict_Size(o)));
        PyObject *key, *value;
        Py_ssize_t pos = 0;
        while (PyDict_Next(o, &pos, &key, &value)) {
            if (!PyUnicode_Check(key)) type_error(path + " (a key)", key);
            std::string k = nb::borrow<nb::str>(key).c_str();
            Value v = to_json(value, hf::json::path_key(path, k));
            out.push_back_unchecked(std::move(k), std::move(v));
        }
        return Value(std::move(out));
    }
    if (PyList_Check(o) || PyTuple_Check(o)) {
        const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
        hf::json::Array out;
        out.reserve(static_cast<std::size_t>(n));
        for (Py_ssize_t i = 0; i < n; ++i)
            out.push_back(to_json(PySequence_Fast_GET_ITEM(o, i), hf::json::path_index(path, static_cast<std::size_t>(i))));
        return Value(std::move(out));
    }
    // numpy scalars and arrays, jsonpatch objects: their plain-Python forms.
    if (nb::hasattr(obj, "tolist")) return to_json(obj.attr("tolist")(), path);
    if (PyMapping_Check(o) && nb::hasattr(obj, "items")) {
        nb::object as_dict = nb::steal(PyDict_New());
        if (PyDict_Update(as_dict.ptr(), o) != 0) throw nb::python_error();
        return to_json(as_dict, path);
    }
    type_error(path, obj);
}

std::string py_str(nb::handle obj) {
    nb::object s = nb::steal(PyObject_Str(obj.ptr()));
    if (!s.is_valid()) throw nb::python_error();
    Py_ssize_t n = 0;
    const char* text = PyUnicode_AsUTF8AndSize(s.ptr(), &n);
    if (!text) throw nb::python_error();
    return std::string(text, static_cast<std::size_t>(n));
}

nb::object from_json(const Value& v) {
    switch (v.type()) {
        case hf::json::Type::Null: return nb::none();
        case hf::json::Type::Bool: return nb::bool_(v.as_bool());
        case hf::json::Type::Number: {
            const auto& n = v.as_number();
            switch (n.kind) {
                case hf::json::Number::Kind::Int: return nb::int_(n.int_value);
                case hf::json::Number::Kind::UInt: return nb::steal(PyLong_FromUnsignedLongLong(n.uint_value));
                case hf::json::Number::Kind::Float: return nb::float_(n.value);
            }
            return nb::float_(n.value);
        }
        case hf::json::Type::String: {
            const auto& s = v.as_string();
            return nb::str(s.data(), s.size());
        }
        case hf::json::Type::Array: {
            const auto& a = v.as_array();
            nb::list out;
            for (const auto& x : a) out.append(from_json(x));
            return out;
        }
        case hf::json::Type::Object: {
            nb::dict out;
            for (const auto& [k, x] : v.as_object()) out[nb::str(k.data(), k.size())] = from_json(x);
            return out;
        }
    }
    return nb::none();
}

}  // namespace hfpy

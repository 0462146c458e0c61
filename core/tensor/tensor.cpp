// Tensor metadata operations (no data movement).
#include "hfcore/tensor.hpp"

#include <sstream>

namespace hf {

Precision parse_precision(const std::string& s) {
    if (s == "64b" || s == "64" || s == "f64" || s == "double") return Precision::f64;
    if (s == "32b" || s == "32" || s == "f32" || s == "float") return Precision::f32;
    throw InputError("", "precision", "'" + s + "' is not a precision; use 32b or 64b");
}

std::string shape_str(const Shape& s) {
    std::ostringstream os;
    os << "[";
    for (std::size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
    os << "]";
    return os.str();
}

Tensor Tensor::reshape(Shape shape) const {
    if (!defined()) throw ShapeError("reshape: undefined tensor");
    int unknown = -1;
    std::int64_t known = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == -1) {
            if (unknown >= 0) throw ShapeError("reshape: more than one -1 in " + shape_str(shape));
            unknown = static_cast<int>(i);
        } else if (shape[i] < 0) {
            throw ShapeError("reshape: negative dimension in " + shape_str(shape));
        } else {
            known *= shape[i];
        }
    }
    if (unknown >= 0) {
        if (known == 0 || size() % known != 0)
            throw ShapeError("reshape: cannot infer -1 for " + shape_str(shape) + " from " + shape_str(shape_));
        shape[unknown] = size() / known;
    }
    if (numel(shape) != size())
        throw ShapeError("reshape: " + shape_str(shape_) + " has " + std::to_string(size()) +
                         " elements, " + shape_str(shape) + " has " + std::to_string(numel(shape)));
    return Tensor(backend_, storage_, dtype_, std::move(shape));
}

}  // namespace hf

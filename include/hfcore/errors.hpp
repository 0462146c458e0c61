// The error types hfcore throws. Every message says what went wrong and where (file, JSON path, plugin file).
#pragma once

#include <stdexcept>
#include <string>

namespace hf {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Bad user input: a workspace, patch or parameter file. `where` is "file: json.path".
class InputError : public Error {
public:
    InputError(const std::string& file, const std::string& json_path, const std::string& what)
        : Error(format(file, json_path, what)), file_(file), path_(json_path), detail_(what) {}
    const std::string& file() const { return file_; }
    const std::string& json_path() const { return path_; }
    const std::string& detail() const { return detail_; }

private:
    static std::string format(const std::string& f, const std::string& p, const std::string& w) {
        std::string s = f.empty() ? std::string("<input>") : f;
        if (!p.empty()) s += ": " + p;
        return s + ": " + w;
    }
    std::string file_, path_, detail_;
};

// A plugin could not be found, loaded or initialised, or a backend is unusable on this machine.
class PluginError : public Error {
public:
    using Error::Error;
};

// An operation received tensors owned by different backends. Never resolved by copying.
class BackendMismatch : public Error {
public:
    using Error::Error;
};

// A shape, dtype or argument that an operation cannot accept.
class ShapeError : public Error {
public:
    using Error::Error;
};

// A device ran out of memory; the process survives and the backend stays usable.
class OutOfMemory : public Error {
public:
    using Error::Error;
};

}  // namespace hf

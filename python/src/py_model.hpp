// The compiled model as Python holds it: the spec it came from (to rebuild it for set_poi or a new default
// backend), the backend it runs on and the hf::Model. hfcore.Model (python/hfcore/pdf.py) derives from it.
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <mutex>
#include <utility>

#include "backend_handle.hpp"
#include "errors.hpp"
#include "hfcore/model.hpp"

namespace hfpy {

namespace nb = nanobind;

class PyModel {
public:
    // backend null: the module's default, followed when set_backend() changes it.
    PyModel(hf::ModelSpec spec, BackendRef backend);

    // The model to use now (rebuilt first when it follows the default backend and that changed). GIL held.
    std::shared_ptr<const hf::Model> current();
    const BackendRef& backend() { current(); return backend_; }
    const hf::ModelSpec& spec() const { return spec_; }
    bool follows_default() const { return follows_default_; }
    void set_poi(const std::string& poi);  // "" = no POI

    // Runs f(model) with the GIL released and the backend's mutex held, hfcore errors turned into `kind`.
    template <class F>
    decltype(auto) run(Kind kind, F&& f) {
        std::shared_ptr<const hf::Model> m = current();
        BackendRef b = backend_;
        return guarded(kind, [&]() -> decltype(auto) {
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(b->mutex);
            return f(*m);
        });
    }

private:
    void build();
    hf::ModelSpec spec_;
    BackendRef backend_;
    bool follows_default_ = false;
    std::uint64_t generation_ = 0;
    std::shared_ptr<const hf::Model> model_;
};

void bind_model(nb::module_& m);

}  // namespace hfpy

// Memory owned by a backend. Each plugin derives its own (a host vector, an OpenCL buffer, a device pointer);
// tensors hold it through a shared pointer, so it lives as long as the last tensor that uses it.
#pragma once

namespace hf {

class Storage {
public:
    virtual ~Storage() = default;
};

}  // namespace hf

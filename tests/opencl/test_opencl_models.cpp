// Real models on the opencl plugin: every reference workspace (tests/reference/model, pyhf's numbers) built on
// opencl at 64b and 32b, gradients against the cpu plugin's (tests/model/device_models.hpp).
#include "../model/device_models.hpp"

namespace {
HF_DEVICE_MODEL_TESTS(OpenCLModels, "opencl");
}  // namespace

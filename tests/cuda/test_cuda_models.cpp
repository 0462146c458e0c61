// Real models on the cuda plugin: every reference workspace (tests/reference/model, pyhf's numbers) built on
// cuda at 64b and 32b, gradients against the cpu plugin's (tests/model/device_models.hpp). Where no GPU is
// usable they skip with the reason, as every CUDA test does.
#include "../model/device_models.hpp"

namespace {
HF_DEVICE_MODEL_TESTS(CudaModels, "cuda");
}  // namespace

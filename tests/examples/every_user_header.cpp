// Every header of the user API together (CMakeLists.txt also compiles each alone), against a copy of
// include/hfcore/*.hpp only: none may reach for the plugin SDK.
#include <hfcore/backend.hpp>
#include <hfcore/bound_likelihood.hpp>
#include <hfcore/errors.hpp>
#include <hfcore/infer.hpp>
#include <hfcore/infer_advanced.hpp>
#include <hfcore/json.hpp>
#include <hfcore/loader.hpp>
#include <hfcore/model.hpp>
#include <hfcore/patch.hpp>
#include <hfcore/spec.hpp>
#include <hfcore/tensor.hpp>
#include <hfcore/tensorlib.hpp>
#include <hfcore/workspace.hpp>

#include <memory>
#include <type_traits>

// Tensors come from a Backend; a user cannot wrap memory of their own in one.
static_assert(!std::is_constructible_v<hf::Tensor, hf::Backend*, std::shared_ptr<hf::Storage>, hf::DType, hf::Shape>);

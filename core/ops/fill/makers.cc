// Gradient makers of fills (none) and plumbing (Copy, CopyCPUToGPU, CopyGPUToCPU, Alias): which
// gradient ops the backward pass emits for each op of this family (Caffe2's GetGradientDefs),
// beside their kernels. Gradient-op input/output conventions are tabulated in
// core/ops/GRADIENTS.md.
#include <numeric>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/grad/gradient.h"
#include "core/proto/error.h"

namespace parity {

PARITY_REGISTER_GRADIENT(Copy, [](GradientContext& g) {
  return Ops{g.Op("Copy", {g.GO(0)}, {g.GI(0)})};
});

// A copy to the device differentiates as the copy back, and the reverse (Caffe2's
// GetCPUToGPUGradient / GetGPUToCPUGradient).
PARITY_REGISTER_GRADIENT(CopyCPUToGPU, [](GradientContext& g) {
  return Ops{g.Op("CopyGPUToCPU", {g.GO(0)}, {g.GI(0)})};
});

PARITY_REGISTER_GRADIENT(CopyGPUToCPU, [](GradientContext& g) {
  return Ops{g.Op("CopyCPUToGPU", {g.GO(0)}, {g.GI(0)})};
});

// A copy to the CPU from wherever the input is: its gradient is a plain copy (the values are the
// identity's; where the gradient lands is the device inference's business, as for Copy).
PARITY_REGISTER_GRADIENT(EnsureCPUOutput, [](GradientContext& g) {
  return Ops{g.Op("Copy", {g.GO(0)}, {g.GI(0)})};
});

PARITY_REGISTER_GRADIENT(Alias, [](GradientContext& g) {
  g.SetGI(0, g.GO(0));
  return Ops{};
});

PARITY_NO_GRADIENT(ConstantFill);

PARITY_NO_GRADIENT(GivenTensorFill);

PARITY_NO_GRADIENT(GivenTensorDoubleFill);

PARITY_NO_GRADIENT(GivenTensorIntFill);

PARITY_NO_GRADIENT(GivenTensorInt64Fill);

PARITY_NO_GRADIENT(GivenTensorBoolFill);

PARITY_NO_GRADIENT(UniformFill);

PARITY_NO_GRADIENT(GaussianFill);

PARITY_NO_GRADIENT(XavierFill);

// Range: its values are a function of the inputs, but its length is too: Caffe2 and ONNX give it
// no gradient.
PARITY_NO_GRADIENT(Range);

}  // namespace parity

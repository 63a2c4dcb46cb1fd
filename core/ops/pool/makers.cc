// Gradient makers of MaxPool and AveragePool: which gradient ops the backward pass emits for each
// op of this family (Caffe2's GetGradientDefs), beside their kernels. Gradient-op input/output
// conventions are tabulated in core/ops/GRADIENTS.md.
#include <numeric>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/grad/gradient.h"
#include "core/proto/error.h"

namespace parity {

PARITY_REGISTER_GRADIENT(MaxPool, [](GradientContext& g) {
  return Ops{g.Op("MaxPoolGradient", {g.I(0), g.O(0), g.GO(0)}, {g.GI(0)})};
});

PARITY_REGISTER_GRADIENT(AveragePool, [](GradientContext& g) {
  return Ops{g.Op("AveragePoolGradient", {g.I(0), g.O(0), g.GO(0)}, {g.GI(0)})};
});

}  // namespace parity

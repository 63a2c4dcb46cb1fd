// Gradient makers of Conv: which gradient ops the backward pass emits for each op of this
// family (Caffe2's GetGradientDefs), beside their kernels. Gradient-op input/output conventions
// are tabulated in core/ops/GRADIENTS.md.
#include <numeric>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/grad/gradient.h"
#include "core/proto/error.h"

namespace parity {

PARITY_REGISTER_GRADIENT(Conv, [](GradientContext& g) {
  if (g.num_inputs() == 3) {
    return Ops{g.Op("ConvGradient", {g.I(0), g.I(1), g.GO(0)}, {g.GI(1), g.GI(2), g.GI(0)})};
  }
  return Ops{
      g.Op("ConvGradient", {g.I(0), g.I(1), g.GO(0)}, {g.GI(1), g.GI(0)}, {IntArg("no_bias", 1)})};
});

}  // namespace parity

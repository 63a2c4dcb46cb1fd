// Gradient makers of the reductions and Softmax: which gradient ops the backward pass emits for
// each op of this family (Caffe2's GetGradientDefs), beside their kernels. Gradient-op input/output
// conventions are tabulated in core/ops/GRADIENTS.md.
#include <numeric>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/grad/gradient.h"
#include "core/proto/error.h"

namespace parity {

PARITY_REGISTER_GRADIENT(Softmax, [](GradientContext& g) {
  return Ops{g.Op("SoftmaxGradient", {g.O(0), g.GO(0)}, {g.GI(0)})};
});

#define PARITY_REDUCE_GRADIENT(ReduceType)                                          \
  PARITY_REGISTER_GRADIENT(ReduceType, [](GradientContext& g) {                     \
    return Ops{g.Op(#ReduceType "Gradient", {g.GO(0), g.I(0), g.O(0)}, {g.GI(0)})}; \
  })
PARITY_REDUCE_GRADIENT(ReduceSum);
PARITY_REDUCE_GRADIENT(ReduceMean);
PARITY_REDUCE_GRADIENT(ReduceMax);
PARITY_REDUCE_GRADIENT(ReduceMin);
#undef PARITY_REDUCE_GRADIENT

PARITY_REGISTER_GRADIENT(SumElements, [](GradientContext& g) {
  return Ops{g.Op("SumElementsGradient", {g.I(0), g.GO(0)}, {g.GI(0)})};
});

PARITY_NO_GRADIENT(ArgMax);
PARITY_NO_GRADIENT(ArgMin);

}  // namespace parity

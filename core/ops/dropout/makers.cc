// Gradient maker of Dropout (Caffe2's GetDropoutGradient, newer pytorch tree): DropoutGrad with
// the forward op's arguments, reading the mask only in training mode. Gradient-op input/output
// conventions are tabulated in core/ops/GRADIENTS.md.
#include "core/grad/gradient.h"

namespace parity {

PARITY_REGISTER_GRADIENT(Dropout, [](GradientContext& g) {
  if (GradientArgOr(g.def(), "is_test", 0) != 0) {
    return Ops{g.Op("DropoutGrad", {g.GO(0)}, {g.GI(0)})};
  }
  return Ops{g.Op("DropoutGrad", {g.GO(0), g.O(1)}, {g.GI(0)})};
});

// A gradient op: Caffe2 registers no gradient for it.
PARITY_NO_GRADIENT(DropoutGrad);

}  // namespace parity

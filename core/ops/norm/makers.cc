// Gradient makers of SpatialBN, LayerNorm and LRN: which gradient ops the backward pass emits for
// each op of this family (Caffe2's GetGradientDefs), beside their kernels. Gradient-op input/output
// conventions are tabulated in core/ops/GRADIENTS.md.
#include <numeric>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/grad/gradient.h"
#include "core/proto/error.h"

namespace parity {

PARITY_REGISTER_GRADIENT(SpatialBN, [](GradientContext& g) {
  bool is_test = GradientArgOr(g.def(), "is_test", 0) != 0;
  std::vector<std::string> inputs =
      is_test ? std::vector<std::string>{g.I(0), g.I(1), g.GO(0), g.I(3), g.I(4)}
              : std::vector<std::string>{g.I(0), g.I(1), g.GO(0), g.O(3), g.O(4)};
  return Ops{g.Op("SpatialBNGradient", inputs, {g.GI(0), g.GI(1), g.GI(2)})};
});

PARITY_REGISTER_GRADIENT(LayerNorm, [](GradientContext& g) {
  if (GradientArgOr(g.def(), "elementwise_affine", 0) != 0) {  // Caffe2's 6-input form.
    return Ops{g.Op("LayerNormGradient", {g.GO(0), g.O(0), g.O(1), g.O(2), g.I(0), g.I(1)},
                    {g.GI(0), g.GI(1), g.GI(2)})};
  }
  return Ops{g.Op("LayerNormGradient", {g.GO(0), g.O(0), g.O(1), g.O(2), g.I(0)}, {g.GI(0)})};
});

// Caffe2's GetLRNGradient: the scale output is not read (LRNGradient recomputes it from X).
PARITY_REGISTER_GRADIENT(LRN, [](GradientContext& g) {
  return Ops{g.Op("LRNGradient", {g.I(0), g.O(0), g.GO(0)}, {g.GI(0)})};
});

}  // namespace parity

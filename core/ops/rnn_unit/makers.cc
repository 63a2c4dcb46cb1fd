// Gradient makers of LSTMUnit and GRUUnit: which gradient ops the backward pass emits for each op
// of this family (Caffe2's GetGradientDefs), beside their kernels. Gradient-op input/output
// conventions are tabulated in core/ops/GRADIENTS.md.
#include <numeric>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/grad/gradient.h"
#include "core/proto/error.h"

namespace parity {

PARITY_REGISTER_GRADIENT(LSTMUnit, [](GradientContext& g) {
  std::vector<std::string> inputs;
  for (int i = 0; i < g.num_inputs(); ++i) inputs.push_back(g.I(i));
  for (const auto& extra : {g.O(0), g.O(1), g.GO(0), g.GO(1)}) inputs.push_back(extra);
  return Ops{g.Op("LSTMUnitGradient", inputs, {g.GI(0), g.GI(1), g.GI(2)})};
});

PARITY_REGISTER_GRADIENT(GRUUnit, [](GradientContext& g) {
  std::vector<std::string> inputs;
  for (int i = 0; i < g.num_inputs(); ++i) inputs.push_back(g.I(i));
  inputs.push_back(g.O(0));
  inputs.push_back(g.GO(0));
  return Ops{g.Op("GRUUnitGradient", inputs, {g.GI(0), g.GI(1)})};
});

}  // namespace parity

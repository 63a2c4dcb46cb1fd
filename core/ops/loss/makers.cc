// Gradient makers of the losses: which gradient ops the backward pass emits for each op of this
// family (Caffe2's GetGradientDefs), beside their kernels. Gradient-op input/output conventions
// are tabulated in core/ops/GRADIENTS.md.
#include <numeric>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/grad/gradient.h"
#include "core/proto/error.h"

namespace parity {

PARITY_REGISTER_GRADIENT(SquaredL2Distance, [](GradientContext& g) {
  return Ops{g.Op("SquaredL2DistanceGradient", {g.I(0), g.I(1), g.GO(0)}, {g.GI(0), g.GI(1)})};
});

PARITY_REGISTER_GRADIENT(AveragedLoss, [](GradientContext& g) {
  return Ops{g.Op("AveragedLossGradient", {g.I(0), g.GO(0)}, {g.GI(0)})};
});

PARITY_REGISTER_GRADIENT(LabelCrossEntropy, [](GradientContext& g) {
  return Ops{g.Op("LabelCrossEntropyGradient", {g.I(0), g.I(1), g.GO(0)}, {g.GI(0)})};
});

PARITY_REGISTER_GRADIENT(SoftmaxWithLoss, [](GradientContext& g) {
  std::vector<std::string> inputs = {g.I(0), g.I(1)};
  if (g.num_inputs() == 3) inputs.push_back(g.I(2));
  inputs.push_back(g.O(0));
  inputs.push_back(g.GO(1));
  return Ops{g.Op("SoftmaxWithLossGradient", inputs, {g.GI(0)})};
});

PARITY_REGISTER_GRADIENT(SigmoidCrossEntropyWithLogits, [](GradientContext& g) {
  return Ops{g.Op("SigmoidCrossEntropyWithLogitsGradient", {g.GO(0), g.I(0), g.I(1)}, {g.GI(0)})};
});

// ONNX's class losses: the gradient wrt the log-probabilities / scores only (the weights are
// constants of the loss); SoftmaxCrossEntropyLoss's log_prob output carries none.
namespace {
Ops ClassLossGradient(GradientContext& g, const char* type) {
  std::vector<std::string> inputs = {g.I(0), g.I(1)};
  if (g.num_inputs() == 3) inputs.push_back(g.I(2));
  inputs.push_back(g.GO(0));
  return Ops{g.Op(type, inputs, {g.GI(0)})};
}
}  // namespace

PARITY_REGISTER_GRADIENT(NegativeLogLikelihoodLoss, [](GradientContext& g) {
  return ClassLossGradient(g, "NegativeLogLikelihoodLossGradient");
});

PARITY_REGISTER_GRADIENT(SoftmaxCrossEntropyLoss, [](GradientContext& g) {
  return ClassLossGradient(g, "SoftmaxCrossEntropyLossGradient");
});

}  // namespace parity

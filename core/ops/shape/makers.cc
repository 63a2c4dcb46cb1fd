// Gradient makers of the shape ops: which gradient ops the backward pass emits for each op of this
// family (Caffe2's GetGradientDefs), beside their kernels. Gradient-op input/output conventions
// are tabulated in core/ops/GRADIENTS.md.
#include <numeric>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/grad/gradient.h"
#include "core/proto/error.h"

namespace parity {

// old_shape holds X's real dims: a 0 there is an empty dim, not "copy dY's dim" (Caffe2's maker
// reshaped an empty X's gradient wrongly, or failed, with the copying 0), hence allowzero.
PARITY_REGISTER_GRADIENT_OWN_ARGS(Reshape, [](GradientContext& g) {
  std::string dx = g.GI(0);
  return Ops{g.Op("Reshape", {g.GO(0), g.O(1)}, {dx, "_" + dx + "_dims"}, {IntArg("allowzero", 1)})};
});

PARITY_REGISTER_GRADIENT_OWN_ARGS(Transpose, [](GradientContext& g) {
  std::vector<int64_t> axes = ArgumentHelper(g.def(), nullptr).GetVector<int64_t>("axes");
  std::vector<caffe2::Argument> args;
  if (!axes.empty()) {
    std::vector<int64_t> inverse(axes.size());
    for (size_t i = 0; i < axes.size(); ++i) {
      int64_t axis = axes[i] < 0 ? axes[i] + static_cast<int64_t>(axes.size()) : axes[i];
      if (axis >= 0 && axis < static_cast<int64_t>(axes.size())) inverse[axis] = i;
    }
    args.push_back(IntsArg("axes", inverse));
  }
  return Ops{g.Op("Transpose", {g.GO(0)}, {g.GI(0)}, args)};
});

PARITY_REGISTER_GRADIENT(Concat, [](GradientContext& g) {
  std::vector<std::string> outputs;
  for (int i = 0; i < g.num_inputs(); ++i) outputs.push_back(g.GI(i));
  return Ops{g.Op("Split", {g.GO(0), g.O(1)}, outputs)};
});

PARITY_REGISTER_GRADIENT(Split, [](GradientContext& g) {
  Ops ops;
  std::vector<std::string> pieces;
  for (int i = 0; i < g.num_outputs(); ++i) {
    if (g.HasGO(i)) {
      pieces.push_back(g.GO(i));
      continue;
    }
    std::string zeros = "_" + g.O(i) + "_zero_grad";
    ops.push_back(g.Op("ConstantFill", {g.O(i)}, {zeros}, {FloatArg("value", 0.0f)}));
    pieces.push_back(zeros);
  }
  // Split by a second input (sizes) takes the same sizes back; only data is differentiable.
  std::string dx = g.GI(0);
  ops.push_back(g.Op("Concat", pieces, {dx, "_" + dx + "_dims"}));
  return ops;
});

PARITY_REGISTER_GRADIENT(Flatten, [](GradientContext& g) {
  return Ops{g.Op("ResizeLike", {g.GO(0), g.I(0)}, {g.GI(0)})};
});

PARITY_REGISTER_GRADIENT(FlattenToVec, [](GradientContext& g) {
  return Ops{g.Op("ResizeLike", {g.GO(0), g.I(0)}, {g.GI(0)})};
});

PARITY_REGISTER_GRADIENT(ResizeLike, [](GradientContext& g) {
  return Ops{g.Op("ResizeLike", {g.GO(0), g.I(0)}, {g.GI(0)})};
});

PARITY_REGISTER_GRADIENT(ExpandDims, [](GradientContext& g) {
  return Ops{g.Op("Squeeze", {g.GO(0)}, {g.GI(0)})};
});

PARITY_REGISTER_GRADIENT(Squeeze, [](GradientContext& g) {
  return Ops{g.Op("ExpandDims", {g.GO(0)}, {g.GI(0)})};
});

PARITY_REGISTER_GRADIENT(Slice, [](GradientContext& g) {
  if (g.num_inputs() == 3) {
    return Ops{g.Op("SliceGradient", {g.I(0), g.I(1), g.I(2), g.GO(0)}, {g.GI(0)})};
  }
  return Ops{g.Op("SliceGradient", {g.I(0), g.GO(0)}, {g.GI(0)})};
});

PARITY_REGISTER_GRADIENT(Gather, [](GradientContext& g) {
  return Ops{g.Op("GatherGradient", {g.I(0), g.I(1), g.GO(0)}, {g.GI(0)})};
});

// GatherElements: a dense scatter-add of dY at the picked positions (the axis copied).
PARITY_REGISTER_GRADIENT(GatherElements, [](GradientContext& g) {
  return Ops{g.Op("GatherElementsGradient", {g.I(0), g.I(1), g.GO(0)}, {g.GI(0)})};
});

PARITY_REGISTER_GRADIENT(Tile, [](GradientContext& g) {
  std::vector<std::string> inputs = {g.GO(0)};
  for (int i = 1; i < g.num_inputs(); ++i) inputs.push_back(g.I(i));
  return Ops{g.Op("TileGradient", inputs, {g.GI(0)})};
});

PARITY_NO_GRADIENT(Shape);

}  // namespace parity

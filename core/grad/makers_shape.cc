// Gradient makers of shape, reduction, fill and plumbing ops. Conventions:
//   Reshape: Reshape(dY, old_shape) -> (dX, "_dX_dims")        (Caffe2's; old_shape is output 1)
//   Transpose: Transpose(dY) with the inverse permutation
//   Concat: Split(dY, split_info) -> (dX0, ...), Concat's args copied
//   Split: Concat(dY0, ...) -> (dX, "_dX_dims"); absent output gradients are zero-filled first
//   Flatten, FlattenToVec: ResizeLike(dY, X);  ExpandDims <-> Squeeze with the same dims
//   SliceGradient (X, [starts, ends], dY) -> dX;  GatherGradient (DATA, INDICES, dY) -> dDATA
//       (parity's dense scatter-add; Caffe2 makes a sparse GradientSlice, out of scope here)
//   TileGradient (dY, [tiles, axis]) -> dX;  Copy: Copy(dY);  Alias: pass-through
//   ReduceSumGradient / ReduceMeanGradient / ReduceMaxGradient / ReduceMinGradient (dY, X, Y) -> dX
//   SumElementsGradient (X, dY) -> dX;  ResizeLike: ResizeLike(dY, X)
#include <numeric>

#include "core/argument.h"
#include "core/grad/gradient.h"

namespace parity {

PARITY_REGISTER_GRADIENT_OWN_ARGS(Reshape, [](GradientContext& g) {
  std::string dx = g.GI(0);
  return Ops{g.Op("Reshape", {g.GO(0), g.O(1)}, {dx, "_" + dx + "_dims"})};
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
PARITY_REGISTER_GRADIENT(Tile, [](GradientContext& g) {
  std::vector<std::string> inputs = {g.GO(0)};
  for (int i = 1; i < g.num_inputs(); ++i) inputs.push_back(g.I(i));
  return Ops{g.Op("TileGradient", inputs, {g.GI(0)})};
});

PARITY_REGISTER_GRADIENT(Copy, [](GradientContext& g) {
  return Ops{g.Op("Copy", {g.GO(0)}, {g.GI(0)})};
});
PARITY_REGISTER_GRADIENT(Alias, [](GradientContext& g) {
  g.SetGI(0, g.GO(0));
  return Ops{};
});

#define PARITY_REDUCE_GRADIENT(ReduceType)                                                \
  PARITY_REGISTER_GRADIENT(ReduceType, [](GradientContext& g) {                           \
    return Ops{g.Op(#ReduceType "Gradient", {g.GO(0), g.I(0), g.O(0)}, {g.GI(0)})};      \
  })
PARITY_REDUCE_GRADIENT(ReduceSum);
PARITY_REDUCE_GRADIENT(ReduceMean);
PARITY_REDUCE_GRADIENT(ReduceMax);
PARITY_REDUCE_GRADIENT(ReduceMin);
#undef PARITY_REDUCE_GRADIENT

PARITY_REGISTER_GRADIENT(SumElements, [](GradientContext& g) {
  return Ops{g.Op("SumElementsGradient", {g.I(0), g.GO(0)}, {g.GI(0)})};
});

PARITY_NO_GRADIENT(Shape);
PARITY_NO_GRADIENT(ConstantFill);
PARITY_NO_GRADIENT(GivenTensorFill);
PARITY_NO_GRADIENT(GivenTensorDoubleFill);
PARITY_NO_GRADIENT(GivenTensorIntFill);
PARITY_NO_GRADIENT(GivenTensorInt64Fill);
PARITY_NO_GRADIENT(GivenTensorBoolFill);
PARITY_NO_GRADIENT(UniformFill);
PARITY_NO_GRADIENT(GaussianFill);
PARITY_NO_GRADIENT(XavierFill);

}  // namespace parity

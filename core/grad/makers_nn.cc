// Gradient makers of linear algebra, convolution, pooling, normalization, losses and RNN cells.
// Gradient-op conventions (Caffe2's):
//   FCGradient / FCTransposedGradient (X, W, dY)             -> (dW, db, dX)
//   MatMul:      MatMul ops with transposes on the 2-D views, then ResizeLike to each input's
//                dims (axis_a = axis_b = 1 only)
//   BatchMatMul: BatchMatMul ops with transposes (not with broadcast=1)
//   ConvGradient (X, W, dY)                                  -> (dW, db, dX), or (dW, dX) with
//                                                               no_bias=1 when Conv has no bias
//   MaxPoolGradient / AveragePoolGradient (X, Y, dY)          -> dX
//   SpatialBNGradient (X, scale, dY, saved_mean, saved_inv_std) -> (dX, dscale, dbias);
//       with is_test=1: (X, scale, dY, running_mean, running_var)
//   LayerNormGradient (dY, Y, mean, std, X)                   -> dX
//       with elementwise_affine=1: (dY, Y, mean, std, X, gamma) -> (dX, dgamma, dbeta)
//   SoftmaxGradient (Y, dY) -> dX
//   SquaredL2DistanceGradient (X, Y, dDist)                   -> (dX, dY)
//   AveragedLossGradient (X, dLoss)                           -> dX
//   LabelCrossEntropyGradient (X, label, dY)                  -> dX
//   SoftmaxWithLossGradient (X, label, [weight], P, dLoss)    -> dX
//   SigmoidCrossEntropyWithLogitsGradient (dLoss, logits, targets) -> dlogits
//   LSTMUnitGradient (h_prev, c_prev, gates, [seq_lengths], timestep, h, c, dh, dc)
//                                                             -> (dh_prev, dc_prev, dgates)
//   GRUUnitGradient (h_prev, gates, [seq_lengths], timestep, h, dh) -> (dh_prev, dgates)
#include "core/argument.h"
#include "core/grad/gradient.h"
#include "core/proto/error.h"

namespace parity {
namespace {

int64_t IntArgOr(const caffe2::OperatorDef& def, const char* name, int64_t fallback) {
  return ArgumentHelper(def, nullptr).Get<int64_t>(name, fallback);
}

}  // namespace

PARITY_REGISTER_GRADIENT(FC, [](GradientContext& g) {
  return Ops{g.Op("FCGradient", {g.I(0), g.I(1), g.GO(0)}, {g.GI(1), g.GI(2), g.GI(0)})};
});
PARITY_REGISTER_GRADIENT(FCTransposed, [](GradientContext& g) {
  return Ops{g.Op("FCTransposedGradient", {g.I(0), g.I(1), g.GO(0)}, {g.GI(1), g.GI(2), g.GI(0)})};
});

// C = op(A) op(B) with op a transpose by the flags; the gradients are products of the other
// operand and dC with the transposes that make the shapes come out as A's and B's.
PARITY_REGISTER_GRADIENT_OWN_ARGS(MatMul, [](GradientContext& g) {
  const caffe2::OperatorDef& def = g.def();
  PARITY_ENFORCE(IntArgOr(def, "axis_a", 1) == 1 && IntArgOr(def, "axis_b", 1) == 1,
                 ErrorKind::kBadArgument, OpLabel(def),
                 ": the gradient of MatMul supports only axis_a = axis_b = 1");
  bool ta = IntArgOr(def, "trans_a", 0) != 0;
  bool tb = IntArgOr(def, "trans_b", 0) != 0;
  const std::string &a = g.I(0), &b = g.I(1), &dc = g.GO(0);
  std::string da = g.GI(0), db = g.GI(1);
  // MatMul coerces operands of higher rank to 2-D; the products are 2-D, so ResizeLike gives each
  // gradient its input's dims back.
  std::string da2 = "_" + da + "_2d", db2 = "_" + db + "_2d";
  auto mm = [&](const std::string& x, const std::string& y, const std::string& out, bool tx,
                bool ty) {
    return g.Op("MatMul", {x, y}, {out}, {IntArg("trans_a", tx), IntArg("trans_b", ty)});
  };
  Ops ops;
  if (ta && tb) {
    ops = {mm(b, dc, da2, true, true), mm(dc, a, db2, true, true)};
  } else if (ta) {
    ops = {mm(b, dc, da2, false, true), mm(a, dc, db2, false, false)};
  } else if (tb) {
    ops = {mm(dc, b, da2, false, false), mm(dc, a, db2, true, false)};
  } else {
    ops = {mm(dc, b, da2, false, true), mm(a, dc, db2, true, false)};
  }
  ops.push_back(g.Op("ResizeLike", {da2, a}, {da}));
  ops.push_back(g.Op("ResizeLike", {db2, b}, {db}));
  return ops;
});

PARITY_REGISTER_GRADIENT_OWN_ARGS(BatchMatMul, [](GradientContext& g) {
  const caffe2::OperatorDef& def = g.def();
  PARITY_ENFORCE(IntArgOr(def, "broadcast", 0) == 0, ErrorKind::kBadArgument, OpLabel(def),
                 ": the gradient of BatchMatMul with broadcast=1 is not supported");
  bool ta = IntArgOr(def, "trans_a", 0) != 0;
  bool tb = IntArgOr(def, "trans_b", 0) != 0;
  const std::string &a = g.I(0), &b = g.I(1), &dc = g.GO(0);
  std::string da = g.GI(0), db = g.GI(1);
  auto bmm = [&](const std::string& x, const std::string& y, const std::string& out, bool tx,
                 bool ty) {
    return g.Op("BatchMatMul", {x, y}, {out}, {IntArg("trans_a", tx), IntArg("trans_b", ty)});
  };
  if (ta && tb) return Ops{bmm(b, dc, da, true, true), bmm(dc, a, db, true, true)};
  if (ta) return Ops{bmm(b, dc, da, false, true), bmm(a, dc, db, false, false)};
  if (tb) return Ops{bmm(dc, b, da, false, false), bmm(dc, a, db, true, false)};
  return Ops{bmm(dc, b, da, false, true), bmm(a, dc, db, true, false)};
});

PARITY_REGISTER_GRADIENT(Conv, [](GradientContext& g) {
  if (g.num_inputs() == 3) {
    return Ops{g.Op("ConvGradient", {g.I(0), g.I(1), g.GO(0)}, {g.GI(1), g.GI(2), g.GI(0)})};
  }
  return Ops{g.Op("ConvGradient", {g.I(0), g.I(1), g.GO(0)}, {g.GI(1), g.GI(0)},
                  {IntArg("no_bias", 1)})};
});
PARITY_REGISTER_GRADIENT(MaxPool, [](GradientContext& g) {
  return Ops{g.Op("MaxPoolGradient", {g.I(0), g.O(0), g.GO(0)}, {g.GI(0)})};
});
PARITY_REGISTER_GRADIENT(AveragePool, [](GradientContext& g) {
  return Ops{g.Op("AveragePoolGradient", {g.I(0), g.O(0), g.GO(0)}, {g.GI(0)})};
});

PARITY_REGISTER_GRADIENT(SpatialBN, [](GradientContext& g) {
  bool is_test = IntArgOr(g.def(), "is_test", 0) != 0;
  std::vector<std::string> inputs =
      is_test ? std::vector<std::string>{g.I(0), g.I(1), g.GO(0), g.I(3), g.I(4)}
              : std::vector<std::string>{g.I(0), g.I(1), g.GO(0), g.O(3), g.O(4)};
  return Ops{g.Op("SpatialBNGradient", inputs, {g.GI(0), g.GI(1), g.GI(2)})};
});
PARITY_REGISTER_GRADIENT(LayerNorm, [](GradientContext& g) {
  if (IntArgOr(g.def(), "elementwise_affine", 0) != 0) {  // Caffe2's 6-input form.
    return Ops{g.Op("LayerNormGradient", {g.GO(0), g.O(0), g.O(1), g.O(2), g.I(0), g.I(1)},
                    {g.GI(0), g.GI(1), g.GI(2)})};
  }
  return Ops{g.Op("LayerNormGradient", {g.GO(0), g.O(0), g.O(1), g.O(2), g.I(0)}, {g.GI(0)})};
});
PARITY_REGISTER_GRADIENT(Softmax, [](GradientContext& g) {
  return Ops{g.Op("SoftmaxGradient", {g.O(0), g.GO(0)}, {g.GI(0)})};
});

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

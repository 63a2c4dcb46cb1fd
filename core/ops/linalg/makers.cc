// Gradient makers of FC, FCTransposed, FCRelu, MatMul and BatchMatMul: which gradient ops the
// backward pass emits for each op of this family (Caffe2's GetGradientDefs), beside their kernels.
// Gradient-op input/output conventions are tabulated in core/ops/GRADIENTS.md.
#include <numeric>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/grad/gradient.h"
#include "core/proto/error.h"

namespace parity {

PARITY_REGISTER_GRADIENT(FC, [](GradientContext& g) {
  return Ops{g.Op("FCGradient", {g.I(0), g.I(1), g.GO(0)}, {g.GI(1), g.GI(2), g.GI(0)})};
});

PARITY_REGISTER_GRADIENT(FCTransposed, [](GradientContext& g) {
  return Ops{g.Op("FCTransposedGradient", {g.I(0), g.I(1), g.GO(0)}, {g.GI(1), g.GI(2), g.GI(0)})};
});

// FCRelu = Relu(FC(X, W, b)): the unfused pair's gradient ops, in order. ReluGradient (Y, dY)
// masks dY where Y <= 0 into a temporary (not an input gradient, see Sqrt's maker), which
// FCGradient takes as its output gradient. Only FCGradient gets FCRelu's arguments (axis,
// axis_w); ReluGradient takes none.
PARITY_REGISTER_GRADIENT_OWN_ARGS(FCRelu, [](GradientContext& g) {
  const std::string masked = g.O(0) + "_grad_relu_tmp";
  const std::vector<caffe2::Argument> fc_args(g.def().arg().begin(), g.def().arg().end());
  return Ops{g.Op("ReluGradient", {g.O(0), g.GO(0)}, {masked}),
             g.Op("FCGradient", {g.I(0), g.I(1), masked}, {g.GI(1), g.GI(2), g.GI(0)}, fc_args)};
});

// C = op(A) op(B) with op a transpose by the flags; the gradients are products of the other
// operand and dC with the transposes that make the shapes come out as A's and B's.
PARITY_REGISTER_GRADIENT_OWN_ARGS(MatMul, [](GradientContext& g) {
  const caffe2::OperatorDef& def = g.def();
  PARITY_ENFORCE(GradientArgOr(def, "axis_a", 1) == 1 && GradientArgOr(def, "axis_b", 1) == 1,
                 ErrorKind::kBadArgument, OpLabel(def),
                 ": the gradient of MatMul supports only axis_a = axis_b = 1");
  PARITY_ENFORCE(def.input_size() == 2, ErrorKind::kBadArgument, OpLabel(def),
                 ": the gradient of MatMul with a third input (the dims Y takes) is not supported");
  bool ta = GradientArgOr(def, "trans_a", 0) != 0;
  bool tb = GradientArgOr(def, "trans_b", 0) != 0;
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
  PARITY_ENFORCE(GradientArgOr(def, "broadcast", 0) == 0, ErrorKind::kBadArgument, OpLabel(def),
                 ": the gradient of BatchMatMul with broadcast=1 is not supported");
  bool ta = GradientArgOr(def, "trans_a", 0) != 0;
  bool tb = GradientArgOr(def, "trans_b", 0) != 0;
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

// Trilu is linear: the gradient keeps the same triangle of dY (arguments copied).
PARITY_REGISTER_GRADIENT(Trilu, [](GradientContext& g) {
  return Ops{g.Op("Trilu", {g.GO(0)}, {g.GI(0)})};
});

}  // namespace parity

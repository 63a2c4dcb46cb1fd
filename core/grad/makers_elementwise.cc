// Gradient makers of the elementwise ops. Gradient-op conventions (newer Caffe2):
//   AddGradient / SubGradient / MulGradient (dC, A, B)      -> (dA, dB)   broadcast args copied
//   DivGradient (dC, A, B, C)                                -> (dA, dB)
//   PowGradient (dY, X, Y)  [exponent argument]              -> (dX)
//   PowGradient (dY, X, E, Y)  [exponent as input]           -> (dX, dE)
//   MaxGradient / MinGradient (Y, dY, X0, ..., Xn-1)         -> (dX0, ..., dXn-1)
//       parity: on ties the first input holding the extremum takes the whole gradient (Caffe2
//       gives it to every tied input, which double-counts).
//   MeanGradient (dY) -> (dX0, ..., dXn-1), each dY / n;  Sum: pass-through (no op)
//   ReluGradient, SigmoidGradient, TanhGradient, EluGradient, LeakyReluGradient,
//   ReciprocalGradient (Y, dY) -> dX
//   SoftsignGradient, AbsGradient, SinGradient, CosGradient (X, dY) -> dX
//   ClipGradient (Y, dY) -> dX                                min/max args copied
//   Exp: Mul(Y, dY);  Log: Div(dY, X);  Neg: Neg(dY);  Scale: Scale(dY) with the same scale
//   Sqrt: Scale(dY, 0.5) -> Y_grad_sqrt_tmp, then Div(., Y) -> dX
//   Sqr: Scale(X, 2) -> Y_grad_sqr_tmp, then Mul(., dY) -> dX
//   Cast: Cast(dY, to=from_type) — needs the `from_type` argument, as in Caffe2
#include "core/argument.h"
#include "core/grad/gradient.h"
#include "core/proto/error.h"

namespace parity {
namespace {

Ops BinaryGradient(GradientContext& g, const char* type, bool needs_output) {
  std::vector<std::string> inputs = {g.GO(0), g.I(0), g.I(1)};
  if (needs_output) inputs.push_back(g.O(0));
  return {g.Op(type, inputs, {g.GI(0), g.GI(1)})};
}

Ops UnaryFromOutput(GradientContext& g, const char* type) {
  return {g.Op(type, {g.O(0), g.GO(0)}, {g.GI(0)})};
}

Ops UnaryFromInput(GradientContext& g, const char* type) {
  return {g.Op(type, {g.I(0), g.GO(0)}, {g.GI(0)})};
}

Ops ExtremumGradient(GradientContext& g, const char* type) {
  std::vector<std::string> inputs = {g.O(0), g.GO(0)};
  std::vector<std::string> outputs;
  for (int i = 0; i < g.num_inputs(); ++i) {
    inputs.push_back(g.I(i));
    outputs.push_back(g.GI(i));
  }
  return {g.Op(type, inputs, outputs)};
}

}  // namespace

PARITY_REGISTER_GRADIENT(Add, [](GradientContext& g) {
  return BinaryGradient(g, "AddGradient", false);
});
PARITY_REGISTER_GRADIENT(Sub, [](GradientContext& g) {
  return BinaryGradient(g, "SubGradient", false);
});
PARITY_REGISTER_GRADIENT(Mul, [](GradientContext& g) {
  return BinaryGradient(g, "MulGradient", false);
});
PARITY_REGISTER_GRADIENT(Div,
                         [](GradientContext& g) { return BinaryGradient(g, "DivGradient", true); });

PARITY_REGISTER_GRADIENT(Pow, [](GradientContext& g) {
  if (g.num_inputs() == 1) return Ops{g.Op("PowGradient", {g.GO(0), g.I(0), g.O(0)}, {g.GI(0)})};
  return Ops{g.Op("PowGradient", {g.GO(0), g.I(0), g.I(1), g.O(0)}, {g.GI(0), g.GI(1)})};
});

PARITY_REGISTER_GRADIENT(Max,
                         [](GradientContext& g) { return ExtremumGradient(g, "MaxGradient"); });
PARITY_REGISTER_GRADIENT(Min,
                         [](GradientContext& g) { return ExtremumGradient(g, "MinGradient"); });

PARITY_REGISTER_GRADIENT(Sum, [](GradientContext& g) {
  for (int i = 0; i < g.num_inputs(); ++i) g.SetGI(i, g.GO(0));
  return Ops{};
});

PARITY_REGISTER_GRADIENT(Mean, [](GradientContext& g) {
  std::vector<std::string> outputs;
  for (int i = 0; i < g.num_inputs(); ++i) outputs.push_back(g.GI(i));
  return Ops{g.Op("MeanGradient", {g.GO(0)}, outputs)};
});

PARITY_NO_GRADIENT(LT);
PARITY_NO_GRADIENT(LE);
PARITY_NO_GRADIENT(GT);
PARITY_NO_GRADIENT(GE);
PARITY_NO_GRADIENT(EQ);
PARITY_NO_GRADIENT(NE);
PARITY_NO_GRADIENT(And);
PARITY_NO_GRADIENT(Or);
PARITY_NO_GRADIENT(Xor);
PARITY_NO_GRADIENT(Not);
PARITY_NO_GRADIENT(StopGradient);

PARITY_REGISTER_GRADIENT(Relu,
                         [](GradientContext& g) { return UnaryFromOutput(g, "ReluGradient"); });
PARITY_REGISTER_GRADIENT(LeakyRelu, [](GradientContext& g) {
  return UnaryFromOutput(g, "LeakyReluGradient");
});
PARITY_REGISTER_GRADIENT(Elu, [](GradientContext& g) { return UnaryFromOutput(g, "EluGradient"); });
PARITY_REGISTER_GRADIENT(Sigmoid,
                         [](GradientContext& g) { return UnaryFromOutput(g, "SigmoidGradient"); });
PARITY_REGISTER_GRADIENT(Tanh,
                         [](GradientContext& g) { return UnaryFromOutput(g, "TanhGradient"); });
PARITY_REGISTER_GRADIENT(Reciprocal, [](GradientContext& g) {
  return UnaryFromOutput(g, "ReciprocalGradient");
});
PARITY_REGISTER_GRADIENT(Clip,
                         [](GradientContext& g) { return UnaryFromOutput(g, "ClipGradient"); });
PARITY_REGISTER_GRADIENT(Softsign,
                         [](GradientContext& g) { return UnaryFromInput(g, "SoftsignGradient"); });
PARITY_REGISTER_GRADIENT(Abs, [](GradientContext& g) { return UnaryFromInput(g, "AbsGradient"); });
PARITY_REGISTER_GRADIENT(Sin, [](GradientContext& g) { return UnaryFromInput(g, "SinGradient"); });
PARITY_REGISTER_GRADIENT(Cos, [](GradientContext& g) { return UnaryFromInput(g, "CosGradient"); });

PARITY_REGISTER_GRADIENT(Exp, [](GradientContext& g) {
  return Ops{g.Op("Mul", {g.O(0), g.GO(0)}, {g.GI(0)})};
});
PARITY_REGISTER_GRADIENT(Log, [](GradientContext& g) {
  return Ops{g.Op("Div", {g.GO(0), g.I(0)}, {g.GI(0)})};
});
PARITY_REGISTER_GRADIENT(Neg,
                         [](GradientContext& g) { return Ops{g.Op("Neg", {g.GO(0)}, {g.GI(0)})}; });
PARITY_REGISTER_GRADIENT(Scale, [](GradientContext& g) {
  return Ops{g.Op("Scale", {g.GO(0)}, {g.GI(0)})};
});
// Sqrt and Sqr need two ops; the first writes a temporary, not dX: were both to write dX (in
// place, as Caffe2's makers do), the backward pass would record both as generators of dX, and a
// fan-out accumulation would Sum the temporary in (a wrong gradient, which Caffe2 shares).
PARITY_REGISTER_GRADIENT_OWN_ARGS(Sqrt, [](GradientContext& g) {
  const std::string tmp = g.O(0) + "_grad_sqrt_tmp";
  return Ops{g.Op("Scale", {g.GO(0)}, {tmp}, {FloatArg("scale", 0.5f)}),
             g.Op("Div", {tmp, g.O(0)}, {g.GI(0)})};
});
PARITY_REGISTER_GRADIENT_OWN_ARGS(Sqr, [](GradientContext& g) {
  const std::string tmp = g.O(0) + "_grad_sqr_tmp";
  return Ops{g.Op("Scale", {g.I(0)}, {tmp}, {FloatArg("scale", 2.0f)}),
             g.Op("Mul", {tmp, g.GO(0)}, {g.GI(0)})};
});
PARITY_REGISTER_GRADIENT_OWN_ARGS(Cast, [](GradientContext& g) {
  ArgumentHelper args(g.def(), nullptr);
  PARITY_ENFORCE(args.Has("from_type"), ErrorKind::kBadArgument, OpLabel(g.def()),
                 ": the gradient of Cast needs the argument 'from_type' (the input's dtype)");
  return Ops{g.Op("Cast", {g.GO(0)}, {g.GI(0)},
                  {IntArg("to", DataTypeArgument(args, "from_type")),
                   IntArg("from_type", DataTypeArgument(args, "to"))})};
});

}  // namespace parity

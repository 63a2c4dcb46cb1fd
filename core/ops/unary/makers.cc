// Gradient makers of the unary ops: which gradient ops the backward pass emits for each op of this
// family (Caffe2's GetGradientDefs), beside their kernels. Gradient-op input/output conventions
// are tabulated in core/ops/GRADIENTS.md.
#include <numeric>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/grad/gradient.h"
#include "core/proto/error.h"

namespace parity {

namespace {

Ops UnaryFromOutput(GradientContext& g, const char* type) {
  return {g.Op(type, {g.O(0), g.GO(0)}, {g.GI(0)})};
}

Ops UnaryFromInput(GradientContext& g, const char* type) {
  return {g.Op(type, {g.I(0), g.GO(0)}, {g.GI(0)})};
}

}  // namespace

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
#define PARITY_FROM_INPUT(Name)                    \
  PARITY_REGISTER_GRADIENT(Name, [](GradientContext& g) { \
    return UnaryFromInput(g, #Name "Gradient");    \
  })
PARITY_FROM_INPUT(Tan);
PARITY_FROM_INPUT(Asin);
PARITY_FROM_INPUT(Acos);
PARITY_FROM_INPUT(Atan);
PARITY_FROM_INPUT(Sinh);
PARITY_FROM_INPUT(Cosh);
PARITY_FROM_INPUT(Asinh);
PARITY_FROM_INPUT(Atanh);
PARITY_FROM_INPUT(Erf);
#undef PARITY_FROM_INPUT
// Piecewise constant: the derivative is 0 where it exists (Caffe2: no gradient for Sign, none
// implemented for Ceil and Floor).
PARITY_NO_GRADIENT(Ceil);
PARITY_NO_GRADIENT(Floor);
PARITY_NO_GRADIENT(Round);
PARITY_NO_GRADIENT(Sign);

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

// Gradient makers of the binary and variadic elementwise ops: which gradient ops the backward pass
// emits for each op of this family (Caffe2's GetGradientDefs), beside their kernels. Gradient-op
// input/output conventions are tabulated in core/ops/GRADIENTS.md.
#include <numeric>
#include <string>
#include <vector>

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

// Where: dZ goes to X where C holds and to Y elsewhere (C, a bool condition, gets none).
PARITY_REGISTER_GRADIENT(Where, [](GradientContext& g) {
  return Ops{g.Op("WhereGradient", {g.I(0), g.I(1), g.I(2), g.GO(0)}, {g.GI(1), g.GI(2)})};
});

// Mod: differentiable away from the jumps at multiples of B (Caffe2's, an integer op, had no
// gradient). With Caffe2's divisor argument the output has A's dims and dA = dC passes through.
PARITY_REGISTER_GRADIENT(Mod, [](GradientContext& g) {
  if (g.num_inputs() == 1) {
    g.SetGI(0, g.GO(0));
    return Ops{};
  }
  return Ops{g.Op("ModGradient", {g.GO(0), g.I(0), g.I(1), g.O(0)}, {g.GI(0), g.GI(1)})};
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

}  // namespace parity

// Gradient kernels of the unary elementwise ops (ReluGradient, LeakyReluGradient, EluGradient,
// SigmoidGradient, TanhGradient, ReciprocalGradient, ClipGradient, SoftsignGradient, AbsGradient,
// SinGradient, CosGradient): hand-derived values (worked out in comments), in-place use, shape
// inference, one error per schema check, and the gradient oracle on every differentiable unary op
// (also Exp, Log, Neg, Scale, Sqrt, Sqr and Cast, whose gradients the makers build from forward
// ops), with inputs away from kinks and poles.
#include <cmath>
#include <random>

#include "core/schema.h"
#include "oracles/testing/op_checks.h"
#include "tests/grad_kernels/grad_test_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// Deterministic values in [lo, hi].
// Values in [-hi, -lo] u [lo, hi]: at least `lo` from 0 (the kink of Relu, Abs, ...).
Tensor AwayFromZero(const Ints& dims, uint32_t seed, float lo = 0.1f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(lo, hi);
  std::bernoulli_distribution sign(0.5);
  Tensor t;
  t.Resize(dims);
  float* data = t.mutable_data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) data[i] = sign(rng) ? uniform(rng) : -uniform(rng);
  return t;
}

// Runs Name(v, dy) -> dx on 1-D float inputs.
std::unique_ptr<Workspace> Run1(const std::string& type, const std::vector<float>& v,
                                const std::vector<float>& dy,
                                const std::vector<TestArg>& args = {}) {
  const int64_t n = static_cast<int64_t>(v.size());
  return RunOp(MakeOp(type, {"v", "dy"}, {"dx"}, args),
               {{"v", MakeTensor<float>({n}, v)}, {"dy", MakeTensor<float>({n}, dy)}});
}

// ---- hand-derived values ----

TEST(UnaryGradients, Relu) {
  // Y = [0, 2, 0.5, 0] (Y = 0 where X <= 0): dX = dY where Y > 0: [0, 2, 3, 0].
  auto ws = Run1("ReluGradient", {0, 2, 0.5f, 0}, {1, 2, 3, 4});
  ExpectTensorNear(ws->GetTensor("dx"), {4}, {0, 2, 3, 0});
}

TEST(UnaryGradients, LeakyRelu) {
  // alpha = 0.1, Y = [-0.2, 3]: dX = [0.1 * 5, 7] = [0.5, 7]. Default alpha 0.01: [0.05, 7].
  auto ws = Run1("LeakyReluGradient", {-0.2f, 3}, {5, 7}, {{"alpha", 0.1f}});
  ExpectTensorNear(ws->GetTensor("dx"), {2}, {0.5, 7});
  auto def = Run1("LeakyReluGradient", {-0.2f, 3}, {5, 7});
  ExpectTensorNear(def->GetTensor("dx"), {2}, {0.05, 7});
}

TEST(UnaryGradients, Elu) {
  // alpha = 2, Y = [-1, 0.5] (Y = -1 is X = ln(1/2)): dX = [dY * (Y + alpha), dY] =
  // [3 * (-1 + 2), 4] = [3, 4].
  auto ws = Run1("EluGradient", {-1, 0.5f}, {3, 4}, {{"alpha", 2.0f}});
  ExpectTensorNear(ws->GetTensor("dx"), {2}, {3, 4});
}

TEST(UnaryGradients, Sigmoid) {
  // Y = [0.5, 0.25]: dX = dY Y (1 - Y) = [2 * 0.25, 4 * 0.1875] = [0.5, 0.75].
  auto ws = Run1("SigmoidGradient", {0.5f, 0.25f}, {2, 4});
  ExpectTensorNear(ws->GetTensor("dx"), {2}, {0.5, 0.75});
}

TEST(UnaryGradients, Tanh) {
  // Y = [0, 0.5]: dX = dY (1 - Y^2) = [2, 4 * 0.75] = [2, 3].
  auto ws = Run1("TanhGradient", {0, 0.5f}, {2, 4});
  ExpectTensorNear(ws->GetTensor("dx"), {2}, {2, 3});
}

TEST(UnaryGradients, Reciprocal) {
  // Y = 1 / X = [0.5, -4]: dX = -dY Y^2 = [-1 * 0.25, -2 * 16] = [-0.25, -32].
  auto ws = Run1("ReciprocalGradient", {0.5f, -4}, {1, 2});
  ExpectTensorNear(ws->GetTensor("dx"), {2}, {-0.25, -32});
}

TEST(UnaryGradients, ClipIsStrictAtTheBounds) {
  // min = -1, max = 2. Y = [-1, -0.5, 2, 1.5]: the bounds themselves pass nothing (Caffe2's rule
  // min < Y < max), the interior passes dY: dX = [0, 2, 0, 4].
  auto ws =
      Run1("ClipGradient", {-1, -0.5f, 2, 1.5f}, {1, 2, 3, 4}, {{"min", -1.0f}, {"max", 2.0f}});
  ExpectTensorNear(ws->GetTensor("dx"), {4}, {0, 2, 0, 4});
  // Only max given: the lower bound is the dtype's lowest, so -1000 passes.
  auto upper = Run1("ClipGradient", {-1000, 2}, {1, 2}, {{"max", 2.0f}});
  ExpectTensorNear(upper->GetTensor("dx"), {2}, {1, 0});
}

TEST(UnaryGradients, Softsign) {
  // X = [1, -3]: dX = dY / (1 + |X|)^2 = [4 / 4, 32 / 16] = [1, 2].
  auto ws = Run1("SoftsignGradient", {1, -3}, {4, 32});
  ExpectTensorNear(ws->GetTensor("dx"), {2}, {1, 2});
}

TEST(UnaryGradients, Abs) {
  // X = [2, -3, 0]: dX = dY sign(X) = [5, -6, 0].
  auto ws = Run1("AbsGradient", {2, -3, 0}, {5, 6, 7});
  ExpectTensorNear(ws->GetTensor("dx"), {3}, {5, -6, 0});
}

TEST(UnaryGradients, SinCos) {
  // X = [0, pi/2 (float)]: Sin: dX = dY cos X = [2, ~0]; Cos: dX = -dY sin X = [0, -3].
  const float half_pi = static_cast<float>(M_PI / 2);
  auto sin = Run1("SinGradient", {0, half_pi}, {2, 3});
  ExpectTensorNear(sin->GetTensor("dx"), {2}, {2, 0}, 1e-6);
  auto cos = Run1("CosGradient", {0, half_pi}, {2, 3});
  ExpectTensorNear(cos->GetTensor("dx"), {2}, {0, -3}, 1e-6);
}

TEST(UnaryGradients, Double) {
  auto ws =
      RunOp(MakeOp("TanhGradient", {"y", "dy"}, {"dx"}),
            {{"y", MakeTensor<double>({2}, {0, 0.5})}, {"dy", MakeTensor<double>({2}, {2, 4})}});
  EXPECT_EQ(ws->GetTensor("dx").dtype(), DataType::kDouble);
  ExpectTensorNear(ws->GetTensor("dx"), {2}, {2, 3});
}

TEST(UnaryGradients, InPlaceOverDy) {
  // Sigmoid numbers, dX written over dY.
  auto ws =
      RunOp(MakeOp("SigmoidGradient", {"y", "dy"}, {"dy"}),
            {{"y", MakeTensor<float>({2}, {0.5f, 0.25f})}, {"dy", MakeTensor<float>({2}, {2, 4})}});
  ExpectTensorNear(ws->GetTensor("dy"), {2}, {0.5, 0.75});
}

TEST(UnaryGradients, EmptyTensor) {
  auto ws = Run1("ReluGradient", {}, {});
  ExpectTensorNear(ws->GetTensor("dx"), {0}, {});
}

TEST(UnaryGradients, ShapeInference) {
  auto out = Infer(MakeOp("EluGradient", {"y", "dy"}, {"dx"}),
                   {Type({2, 3}, DataType::kDouble), Type({2, 3}, DataType::kDouble)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dims, (Ints{2, 3}));
  EXPECT_EQ(out[0].dtype, DataType::kDouble);
}

// ---- errors: one per check ----

TEST(UnaryGradientErrors, Arity) {
  ExpectError(
      [] {
        RunOp(MakeOp("ReluGradient", {"y"}, {"dx"}), {{"y", MakeTensor<float>({1}, {1})}});
      },
      ErrorKind::kBadArgument, {"ReluGradient", "takes 2 inputs"});
}

TEST(UnaryGradientErrors, InPlaceOnlyOverDy) {
  // dX may replace dY (input 1), not Y (input 0).
  ExpectError(
      [] {
        RunOp(MakeOp("SigmoidGradient", {"y", "dy"}, {"y"}),
              {{"y", MakeTensor<float>({1}, {0.5f})}, {"dy", MakeTensor<float>({1}, {1})}});
      },
      ErrorKind::kBadArgument, {"SigmoidGradient", "cannot run in place"});
}

TEST(UnaryGradientErrors, CopiedArgumentType) {
  ExpectError(
      [] {
        Run1("EluGradient", {1}, {1}, {{"alpha", "x"}});
      },
      ErrorKind::kBadArgument, {"EluGradient", "alpha"});
}

TEST(UnaryGradientErrors, ClipMinAboveMax) {
  ExpectError(
      [] {
        Run1("ClipGradient", {1}, {1}, {{"min", 2.0f}, {"max", 1.0f}});
      },
      ErrorKind::kBadArgument, {"ClipGradient", "'min' = 2", "'max' = 1"});
}

TEST(UnaryGradientErrors, Dtypes) {
  ExpectError(
      [] {
        RunOp(MakeOp("TanhGradient", {"y", "dy"}, {"dx"}),
              {{"y", MakeTensor<float>({1}, {1})}, {"dy", MakeTensor<double>({1}, {1})}});
      },
      ErrorKind::kShapeMismatch, {"TanhGradient", "dY (double [1])", "dtype of Y"});
  ExpectError(
      [] {
        RunOp(MakeOp("AbsGradient", {"x", "dy"}, {"dx"}),
              {{"x", MakeTensor<int32_t>({1}, {1})}, {"dy", MakeTensor<int32_t>({1}, {1})}});
      },
      ErrorKind::kShapeMismatch, {"AbsGradient", "dtype of X (int32 [1])", "float, double"});
}

TEST(UnaryGradientErrors, Dims) {
  ExpectError(
      [] {
        RunOp(MakeOp("SinGradient", {"x", "dy"}, {"dx"}),
              {{"x", MakeTensor<float>({2}, {1, 2})}, {"dy", MakeTensor<float>({1, 2}, {1, 2})}});
      },
      ErrorKind::kShapeMismatch, {"SinGradient", "dY [1, 2]", "dims of X [2]"});
  ExpectError(
      [] {
        Infer(MakeOp("ReluGradient", {"y", "dy"}, {"dx"}), {Type({3}), Type({4})});
      },
      ErrorKind::kShapeMismatch, {"dY [4]", "dims of Y [3]"});
}

// ---- the gradient oracle ----

void CheckUnary(const std::string& type, const Tensor& x, const std::vector<TestArg>& args = {}) {
  const auto op = MakeOp(type, {"x"}, {"y"}, args);
  EXPECT_GRADIENT_CHECKS(op, oracles::NamedTensors{{"x", x}}, 0) << type << " " << x.DebugString();
}

const Ints kShapes[] = {{5}, {2, 3}, {2, 1, 3, 2}};

TEST(ElementwiseUnaryGradientOracle, Kinked) {
  // Inputs at least 0.1 from the kink at 0.
  uint32_t seed = 1;
  for (const Ints& dims : kShapes) {
    CheckUnary("Relu", AwayFromZero(dims, seed++));
    CheckUnary("Abs", AwayFromZero(dims, seed++));
    CheckUnary("LeakyRelu", AwayFromZero(dims, seed++));
    CheckUnary("LeakyRelu", AwayFromZero(dims, seed++), {{"alpha", 0.3f}});
    CheckUnary("Elu", AwayFromZero(dims, seed++, 0.1f, 2.0f));
    CheckUnary("Elu", AwayFromZero(dims, seed++, 0.1f, 2.0f), {{"alpha", 0.5f}});
  }
}

TEST(ElementwiseUnaryGradientOracle, Clip) {
  // Bounds -0.5 and 0.5; inputs at least 0.1 from both (some clipped, some inside).
  uint32_t seed = 20;
  for (const Ints& dims : kShapes) {
    Tensor x = AwayFromZero(dims, seed++, 0.1f, 0.9f);
    float* data = x.mutable_data<float>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      if (std::abs(std::abs(data[i]) - 0.5f) < 0.1f) data[i] = data[i] > 0 ? 0.3f : -0.75f;
    }
    CheckUnary("Clip", x, {{"min", -0.5f}, {"max", 0.5f}});
  }
  CheckUnary("Clip", Random({2, 3}, 30), {{"min", -2.0f}});  // one bound, never reached
}

TEST(ElementwiseUnaryGradientOracle, Smooth) {
  uint32_t seed = 40;
  for (const Ints& dims : kShapes) {
    CheckUnary("Sigmoid", Random(dims, seed++, -3.0f, 3.0f));
    CheckUnary("Tanh", Random(dims, seed++, -2.0f, 2.0f));
    CheckUnary("Softsign", Random(dims, seed++, -3.0f, 3.0f));
    CheckUnary("Sin", Random(dims, seed++, -3.0f, 3.0f));
    CheckUnary("Cos", Random(dims, seed++, -3.0f, 3.0f));
    CheckUnary("Tan", Random(dims, seed++, -1.0f, 1.0f));
    CheckUnary("Atan", Random(dims, seed++, -3.0f, 3.0f));
    CheckUnary("Sinh", Random(dims, seed++, -2.0f, 2.0f));
    CheckUnary("Cosh", Random(dims, seed++, -2.0f, 2.0f));
    CheckUnary("Asinh", Random(dims, seed++, -3.0f, 3.0f));
    CheckUnary("Erf", Random(dims, seed++, -2.0f, 2.0f));
    // On (-1, 1), away from the ends where the derivatives blow up.
    CheckUnary("Asin", Random(dims, seed++, -0.6f, 0.6f));
    CheckUnary("Acos", Random(dims, seed++, -0.6f, 0.6f));
    CheckUnary("Atanh", Random(dims, seed++, -0.6f, 0.6f));
    CheckUnary("Exp", Random(dims, seed++, -2.0f, 2.0f));
    CheckUnary("Neg", Random(dims, seed++));
    CheckUnary("Sqr", Random(dims, seed++));
    CheckUnary("Scale", Random(dims, seed++), {{"scale", -2.5f}});
  }
}

TEST(ElementwiseUnaryGradientOracle, PositiveDomain) {
  // Log, Sqrt: positive inputs; Reciprocal: away from its pole at 0.
  uint32_t seed = 70;
  for (const Ints& dims : kShapes) {
    CheckUnary("Log", Random(dims, seed++, 0.2f, 3.0f));
    CheckUnary("Sqrt", Random(dims, seed++, 0.2f, 3.0f));
    CheckUnary("Reciprocal", AwayFromZero(dims, seed++, 0.3f, 2.0f));
  }
}

TEST(ElementwiseUnaryGradientOracle, CastBetweenFloatTypes) {
  // float -> double and float -> float: the gradient casts back (to = from_type).
  CheckUnary("Cast", Random({2, 3}, 90), {{"to", 13}, {"from_type", 1}});
  CheckUnary("Cast", Random({2, 3}, 91), {{"to", 1}, {"from_type", 1}});
}

}  // namespace
}  // namespace parity::testing

#include "core/tensor_proto.h"
#include "oracles/check.h"
#include "oracles/testing/op_checks.h"

namespace parity::testing {
namespace {

// A blob read by Sqr / Sqrt and another op: the backward pass accumulates the two gradients of
// x. The makers' first op writes a temporary (not dX), so only the final dX is summed in (were it
// dX in place, the Sum would also add 2x or dY/2: a wrong gradient the net fuzzer found).
TEST(ElementwiseUnaryGradientOracle, SqrAndSqrtGradientsAccumulate) {
  for (const char* type : {"Sqr", "Sqrt"}) {
    Case c;
    caffe2::NetDef* net = c.mutable_net();
    net->set_name("fan_out");
    *net->add_op() = MakeOp("Sin", {"x"}, {"s"});
    *net->add_op() = MakeOp(type, {"s"}, {"y1"});
    *net->add_op() = MakeOp("Mean", {"s", "p"}, {"y2"});
    net->add_external_input("x");
    net->add_external_input("p");
    net->add_external_output("y1");
    net->add_external_output("y2");
    *c.add_inputs() = TensorToProto(Random({2, 3}, 100, 0.3f, 1.2f), "x");
    *c.add_inputs() = TensorToProto(Random({2, 3}, 101), "p");
    oracles::CheckRequest request;
    request.oracles = {"gradient"};
    request.tolerance = "default";
    EXPECT_TRUE(oracles::AllVerdictsOk(oracles::CheckCase(c, request))) << type;
  }
}

}  // namespace
}  // namespace parity::testing

// The unary family on the device (gpu/ops/unary.cc): registered in CUDA builds only, and CPU vs
// GPU through the device oracle where a device is present (those tests skip with one line where
// none is): every forward op and gradient over its domain and at NaN / infinities, Pow and
// PowGradient in both forms and under broadcasting, in place, StopGradient and Alias, and nets
// both devices refuse alike.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "core/operator.h"
#include "gpu/device.h"
#include "oracles/testing/op_checks.h"
#include "tests/gpu/device_test_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(CudaRegistry, UnaryFamilyRegisteredExactlyInCudaBuilds) {
  for (const char* type : {"Tan",
                           "Asin",
                           "Acos",
                           "Atan",
                           "Sinh",
                           "Cosh",
                           "Asinh",
                           "Atanh",
                           "Erf",
                           "Round",
                           "Sign",
                           "Elu",
                           "LeakyRelu",
                           "Scale",
                           "Clip",
                           "Pow",
                           "AbsGradient",
                           "SinGradient",
                           "CosGradient",
                           "TanGradient",
                           "AsinGradient",
                           "AcosGradient",
                           "AtanGradient",
                           "SinhGradient",
                           "CoshGradient",
                           "AsinhGradient",
                           "AtanhGradient",
                           "ErfGradient",
                           "EluGradient",
                           "LeakyReluGradient",
                           "ClipGradient",
                           "ReciprocalGradient",
                           "SoftsignGradient",
                           "PowGradient",
                           "StopGradient",
                           "Alias"}) {
    EXPECT_EQ(OperatorRegistry::HasKernel(type, kCudaDeviceType), gpu::CudaBuild()) << type;
    EXPECT_TRUE(OperatorRegistry::HasKernel(type, kCpuDeviceType)) << type;
  }
}

// start, start + step, ... (17 values, repeating) with NaN, +inf, -inf, -0 and +0 in front.
Tensor WithSpecials(std::vector<int64_t> dims, float start, float step) {
  Tensor t = Values(dims, start, step);
  float* p = t.mutable_data<float>();
  const float specials[] = {kNaN, kInf, -kInf, -0.0f, 0.0f};
  for (int i = 0; i < 5 && i < t.numel(); ++i) p[i] = specials[i];
  return t;
}

void CheckUnary(const char* type, const Tensor& x, const std::vector<TestArg>& args = {},
                bool in_place = false) {
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp(type, {"x"}, {in_place ? "x" : "y"}, args), {{"x", x}}))
      << type << (in_place ? " in place" : "");
}

TEST(DeviceChecks, Trigonometric) {
  SKIP_WITHOUT_DEVICE();
  CheckUnary("Tan", Values({2, 3, 4}, -1.3f, 0.16f));
  CheckUnary("Atan", Values({2, 3, 4}, -4.0f, 0.5f));
  // Asin, Acos, Atanh inside (-1, 1), then at and beyond its edges (NaN and infinities).
  for (const char* type : {"Asin", "Acos", "Atanh"}) {
    CheckUnary(type, Values({2, 3, 4}, -0.96f, 0.12f));
    CheckUnary(type, MakeTensor<float>({6}, {-1.0f, 1.0f, 1.5f, -2.0f, kNaN, 0.0f}));
  }
}

TEST(DeviceChecks, HyperbolicAndErf) {
  SKIP_WITHOUT_DEVICE();
  for (const char* type : {"Sinh", "Cosh", "Asinh", "Erf"}) {
    CheckUnary(type, Values({3, 17}, -4.0f, 0.5f));
    CheckUnary(type, WithSpecials({8}, -1.0f, 0.3f));
  }
}

TEST(DeviceChecks, RoundSignScaleClip) {
  SKIP_WITHOUT_DEVICE();
  // Halves round to even: -2.5, -2.0, ..., 5.5 in steps of 0.5.
  CheckUnary("Round", WithSpecials({2, 17}, -2.5f, 0.5f));
  CheckUnary("Sign", WithSpecials({2, 17}, -2.0f, 0.25f));
  CheckUnary("Scale", WithSpecials({2, 17}, -2.0f, 0.3f), {{"scale", 0.7f}});
  CheckUnary("Clip", WithSpecials({2, 17}, -2.0f, 0.3f), {{"min", -0.5f}, {"max", 0.8f}});
  CheckUnary("Clip", Values({2, 17}, -2.0f, 0.3f), {{"min", 0.1f}});
  CheckUnary("Clip", Values({2, 17}, -2.0f, 0.3f), {{"max", -0.2f}});
}

TEST(DeviceChecks, EluAndLeakyRelu) {
  SKIP_WITHOUT_DEVICE();
  CheckUnary("Elu", WithSpecials({2, 17}, -3.0f, 0.4f));
  CheckUnary("Elu", Values({2, 17}, -3.0f, 0.4f), {{"alpha", 0.5f}});
  CheckUnary("LeakyRelu", WithSpecials({2, 17}, -3.0f, 0.4f));
  CheckUnary("LeakyRelu", Values({2, 17}, -3.0f, 0.4f), {{"alpha", 0.2f}});
}

TEST(DeviceChecks, UnaryInPlace) {
  SKIP_WITHOUT_DEVICE();
  CheckUnary("Tan", Values({4, 5}, -1.0f, 0.1f), {}, true);
  CheckUnary("Clip", Values({4, 5}, -1.0f, 0.1f), {{"min", -0.5f}, {"max", 0.5f}}, true);
}

TEST(DeviceChecks, PowWithTheExponentArgument) {
  SKIP_WITHOUT_DEVICE();
  const Tensor x = Values({3, 17}, 0.25f, 0.2f);
  for (float e : {2.0f, 3.0f, 0.5f, -1.5f, 0.0f}) CheckUnary("Pow", x, {{"exponent", e}});
  // A negative base: integer exponents are defined, a fractional one gives NaN on both.
  CheckUnary("Pow", Values({3, 17}, -2.0f, 0.25f), {{"exponent", 3.0f}});
  CheckUnary("Pow", Values({3, 17}, -2.0f, 0.25f), {{"exponent", 0.5f}});
}

TEST(DeviceChecks, PowWithAnExponentInput) {
  SKIP_WITHOUT_DEVICE();
  struct Case {
    std::vector<int64_t> x, e;
    std::vector<TestArg> args;
  };
  for (const Case& c :
       {Case{{2, 3, 4}, {2, 3, 4}, {}}, Case{{2, 3, 4}, {3, 1}, {}}, Case{{3, 1}, {2, 1, 4}, {}},
        Case{{2, 3, 4}, {}, {}}, Case{{2, 3, 4}, {3}, {{"broadcast", 1}, {"axis", 1}}}}) {
    EXPECT_TRUE(
        oracles::DeviceChecks(MakeOp("Pow", {"x", "e"}, {"y"}, c.args),
                              {{"x", Values(c.x, 0.3f, 0.15f)}, {"e", Values(c.e, -1.5f, 0.25f)}}))
        << "X " << ShapeString(c.x) << " E " << ShapeString(c.e);
  }
}

// (V, dY) -> dX: V = start + step k (k < 17, repeating), dY general.
void CheckGradient(const char* type, float start, float step, const std::vector<TestArg>& args = {},
                   bool in_place = false) {
  const Tensor v = Values({3, 17}, start, step);
  const Tensor dy = RandomTensor({3, 17}, 5, -1.0f, 1.0f);
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp(type, {"v", "dy"}, {in_place ? "dy" : "dx"}, args),
                                    {{"v", v}, {"dy", dy}}))
      << type << (in_place ? " in place" : "");
}

TEST(DeviceChecks, GradientsOfTheMathOps) {
  SKIP_WITHOUT_DEVICE();
  CheckGradient("AbsGradient", -2.0f, 0.25f);
  CheckGradient("SinGradient", -4.0f, 0.5f);
  CheckGradient("CosGradient", -4.0f, 0.5f);
  CheckGradient("TanGradient", -1.3f, 0.16f);
  CheckGradient("AsinGradient", -0.96f, 0.12f);
  CheckGradient("AcosGradient", -0.96f, 0.12f);
  CheckGradient("AtanhGradient", -0.96f, 0.12f);
  CheckGradient("AtanGradient", -4.0f, 0.5f);
  CheckGradient("SinhGradient", -4.0f, 0.5f);
  CheckGradient("CoshGradient", -4.0f, 0.5f);
  CheckGradient("AsinhGradient", -4.0f, 0.5f);
  CheckGradient("ErfGradient", -3.0f, 0.4f);
  CheckGradient("SoftsignGradient", -4.0f, 0.5f);
  CheckGradient("ReciprocalGradient", -4.0f, 0.45f);
}

TEST(DeviceChecks, GradientsFromTheOutput) {
  SKIP_WITHOUT_DEVICE();
  CheckGradient("EluGradient", -0.9f, 0.2f);
  CheckGradient("EluGradient", -0.45f, 0.2f, {{"alpha", 0.5f}});
  CheckGradient("LeakyReluGradient", -2.0f, 0.25f, {{"alpha", 0.2f}});
  // Y on and between the bounds: the gradient passes strictly inside only.
  CheckGradient("ClipGradient", -1.0f, 0.125f, {{"min", -0.5f}, {"max", 0.5f}});
  CheckGradient("ClipGradient", -1.0f, 0.125f, {{"min", 0.0f}});
}

TEST(DeviceChecks, GradientsInPlaceOfDy) {
  SKIP_WITHOUT_DEVICE();
  CheckGradient("AbsGradient", -2.0f, 0.25f, {}, true);
  CheckGradient("ErfGradient", -3.0f, 0.4f, {}, true);
}

TEST(DeviceChecks, PowGradientWithTheExponentArgument) {
  SKIP_WITHOUT_DEVICE();
  const Tensor x = Values({3, 17}, 0.25f, 0.2f);
  for (float e : {0.0f, 1.0f, 2.0f, 3.0f, 0.5f, -1.5f}) {
    auto ws = RunOp(MakeOp("Pow", {"x"}, {"y"}, {{"exponent", e}}), {{"x", x}});
    EXPECT_TRUE(oracles::DeviceChecks(
        MakeOp("PowGradient", {"dy", "x", "y"}, {"dx"}, {{"exponent", e}}),
        {{"dy", RandomTensor({3, 17}, 9, -1.0f, 1.0f)}, {"x", x}, {"y", ws->GetTensor("y")}}))
        << "exponent " << e;
  }
}

TEST(DeviceChecks, PowGradientWithAnExponentInput) {
  SKIP_WITHOUT_DEVICE();
  struct Case {
    std::vector<int64_t> x, e;
    std::vector<TestArg> args;
    bool in_place;
  };
  for (const Case& c : {Case{{2, 3, 4}, {2, 3, 4}, {}, false}, Case{{2, 3, 4}, {3, 1}, {}, false},
                        Case{{3, 1}, {2, 1, 4}, {}, false}, Case{{2, 3, 4}, {}, {}, false},
                        Case{{2, 3, 4}, {3}, {{"broadcast", 1}, {"axis", 1}}, false},
                        Case{{2, 3, 4}, {4}, {}, true}}) {
    const Tensor x = Values(c.x, 0.5f, 0.15f);
    const Tensor e = Values(c.e, -1.5f, 0.25f);
    auto ws = RunOp(MakeOp("Pow", {"x", "e"}, {"y"}, c.args), {{"x", x}, {"e", e}});
    const Tensor& y = ws->GetTensor("y");
    EXPECT_TRUE(oracles::DeviceChecks(
        MakeOp("PowGradient", {"dy", "x", "e", "y"}, {c.in_place ? "dy" : "dx", "de"}, c.args),
        {{"dy", RandomTensor(y.dims(), 13, -1.0f, 1.0f)}, {"x", x}, {"e", e}, {"y", y}}))
        << "X " << ShapeString(c.x) << " E " << ShapeString(c.e) << (c.in_place ? " in place" : "");
  }
}

TEST(DeviceChecks, StopGradientAndAlias) {
  SKIP_WITHOUT_DEVICE();
  const Tensor x = WithSpecials({2, 3, 4}, -1.0f, 0.2f);
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("StopGradient", {"x"}, {"y"}), {{"x", x}}));
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("StopGradient", {"x"}, {"x"}), {{"x", x}}));
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Alias", {"x"}, {"y"}), {{"x", x}}));
}

// Nets the CPU refuses are refused on the device too (the CUDA ops run the CPU's checks).
TEST(DeviceChecks, RefusedOnBoth) {
  SKIP_WITHOUT_DEVICE();
  const Tensor x = Values({2, 3}, -1.0f, 0.3f);
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Clip", {"x"}, {"y"}, {{"min", 1.0f}, {"max", 0.0f}}),
                                    {{"x", x}}));
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Pow", {"x"}, {"y"}), {{"x", x}}));
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Pow", {"x", "e"}, {"y"}, {{"exponent", 2.0f}}),
                                    {{"x", x}, {"e", x}}));
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("TanGradient", {"x", "dy"}, {"dx"}),
                                    {{"x", x}, {"dy", Values({3, 2}, 0.1f, 0.1f)}}));
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Pow", {"x", "e"}, {"y"}),
                                    {{"x", x}, {"e", Values({4}, 1.0f, 0.5f)}}));
}

}  // namespace
}  // namespace parity::testing

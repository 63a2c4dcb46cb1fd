// Unary elementwise ops, Cast and StopGradient against hand-computed values.
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// Runs `type` on float X and returns the output.
Tensor RunUnary(const std::string& type, const Tensor& x, const std::vector<TestArg>& args = {}) {
  auto ws = RunOp(MakeOp(type, {"x"}, {"y"}, args), {{"x", x}});
  return ws->GetTensor("y");
}

TEST(Unary, HandComputedValues) {
  struct Case {
    const char* type;
    std::vector<float> x;
    std::vector<double> y;
  };
  const std::vector<Case> cases = {
      {"Relu", {-1, 0, 2}, {0, 0, 2}},
      {"LeakyRelu", {-2, 3}, {-0.02, 3}},                       // default alpha 0.01
      {"Elu", {-1, 2}, {-0.6321205588, 2}},                     // e^-1 - 1
      {"Sigmoid", {0, 1, -1, 10}, {0.5, 0.7310585786, 0.2689414214, 0.9999546021}},
      {"Tanh", {0.5, -2, 0}, {0.4621171573, -0.9640275801, 0}},
      {"Softsign", {3, -1}, {0.75, -0.5}},                      // 3 / 4, -1 / 2
      {"Exp", {0, 1, -1}, {1, 2.7182818285, 0.3678794412}},
      {"Log", {1, 2}, {0, 0.6931471806}},
      {"Sqrt", {4, 2}, {2, 1.4142135624}},
      {"Sqr", {-3, 0.5}, {9, 0.25}},
      {"Abs", {-3, 2}, {3, 2}},
      {"Neg", {1, -2}, {-1, 2}},
      {"Reciprocal", {4, -0.5}, {0.25, -2}},
      {"Sin", {0, 1}, {0, 0.8414709848}},
      {"Cos", {0, 1}, {1, 0.5403023059}},
      {"Tan", {0.7853981634f, 0}, {1, 0}},                      // tan(pi / 4)
      {"Asin", {0.5, -1}, {0.5235987756, -1.5707963268}},       // pi / 6, -pi / 2
      {"Acos", {0.5, 1}, {1.0471975512, 0}},                    // pi / 3
      {"Atan", {1, 0}, {0.7853981634, 0}},                      // pi / 4
      {"Sinh", {1, 0}, {1.1752011936, 0}},                      // (e - 1/e) / 2
      {"Cosh", {1, 0}, {1.5430806348, 1}},                      // (e + 1/e) / 2
      {"Asinh", {1, 0}, {0.8813735870, 0}},                     // ln(1 + sqrt 2)
      {"Atanh", {0.5, 0}, {0.5493061443, 0}},                   // ln(3) / 2
      {"Erf", {1, 0, -1}, {0.8427007929, 0, -0.8427007929}},
      {"Ceil", {-1.5, 1.2, 2}, {-1, 2, 2}},
      {"Floor", {-1.5, 1.8, 2}, {-2, 1, 2}},
      {"Round", {2.5, 1.5, -0.5, -2.6, 0.4}, {2, 2, 0, -3, 0}},  // halves to even
      {"Sign", {-3, 0, 0.25}, {-1, 0, 1}},
      {"Scale", {2, -1}, {2, -1}},                              // default scale 1
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type);
    Tensor y = RunUnary(c.type, MakeTensor<float>({static_cast<int64_t>(c.x.size())}, c.x));
    EXPECT_EQ(y.dtype(), DataType::kFloat);
    ExpectTensorNear(y, {static_cast<int64_t>(c.x.size())}, c.y, 1e-7, 1e-6);
  }
}

TEST(Unary, Arguments) {
  ExpectTensorNear(RunUnary("LeakyRelu", MakeTensor<float>({2}, {-2, 2}), {{"alpha", 0.5f}}), {2},
                   {-1, 2});
  // alpha (e^-1 - 1) with alpha 2.
  ExpectTensorNear(RunUnary("Elu", MakeTensor<float>({1}, {-1}), {{"alpha", 2.0f}}), {1},
                   {-1.2642411177}, 1e-7, 1e-6);
  ExpectTensorNear(RunUnary("Scale", MakeTensor<float>({2}, {4, -2}), {{"scale", 0.5f}}), {2},
                   {2, -1});
  ExpectTensorNear(
      RunUnary("Clip", MakeTensor<float>({3}, {-1, 0.5, 2}), {{"min", 0.0f}, {"max", 1.0f}}), {3},
      {0, 0.5, 1});
  // Only one bound given: the other is the dtype's limit.
  ExpectTensorNear(RunUnary("Clip", MakeTensor<float>({2}, {-5, 5}), {{"min", -1.0f}}), {2},
                   {-1, 5});
}

TEST(Unary, DoublePrecision) {
  Tensor y = RunUnary("Sigmoid", MakeTensor<double>({2}, {1, -30}));
  EXPECT_EQ(y.dtype(), DataType::kDouble);
  // 1 / (1 + e^-1); 1 / (1 + e^30) = 9.3576229688e-14.
  ExpectTensorNear(y, {2}, {0.7310585786300049, 9.357622968840175e-14}, 0, 1e-13);
  ExpectTensorNear(RunUnary("Tanh", MakeTensor<double>({1}, {0.5})), {1}, {0.46211715726000974},
                   0, 1e-14);
  ExpectTensorNear(RunUnary("Relu", MakeTensor<double>({2}, {-1e300, 1e300})), {2}, {0, 1e300});
}

TEST(Sigmoid, AccurateForLargeNegativeInputs) {
  // sigma(-20) = 2.0611536181e-9; sigma(-90) = 8.2e-40 is below FLT_MIN and may flush to 0.
  Tensor y = RunUnary("Sigmoid", MakeTensor<float>({3}, {-20, -90, 90}));
  ExpectTensorNear(y, {3}, {2.0611536181902e-9, 0, 1}, 1e-38, 1e-6);
}

TEST(Sigmoid, WithinFourUlpAcrossTheRange) {
  // Against the double-precision definition on a sweep of [-80, 80] (also covers the scalar tail
  // of the vectorized loop: 16001 elements).
  std::vector<float> x(16001);
  for (size_t i = 0; i < x.size(); ++i) x[i] = -80.0f + 0.01f * static_cast<float>(i);
  Tensor y = RunUnary("Sigmoid", MakeTensor<float>({static_cast<int64_t>(x.size())}, x));
  const float* got = y.data<float>();
  int worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    float want = static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(x[i]))));
    int32_t a, b;
    std::memcpy(&a, &got[i], 4);
    std::memcpy(&b, &want, 4);
    worst = std::max(worst, std::abs(a - b));
  }
  EXPECT_LE(worst, 4);
}

TEST(Unary, NaNAndInfinities) {
  // NaN stays NaN through Relu, Clip, Sigmoid, LeakyRelu, Elu; sigmoid(+-inf) = 1, 0.
  for (const char* type : {"Relu", "Sigmoid", "LeakyRelu", "Elu", "Tanh", "Abs"}) {
    Tensor y = RunUnary(type, MakeTensor<float>({1}, {kNaN}));
    EXPECT_TRUE(std::isnan(y.data<float>()[0])) << type;
  }
  Tensor y = RunUnary("Clip", MakeTensor<float>({1}, {kNaN}), {{"min", 0.0f}, {"max", 1.0f}});
  EXPECT_TRUE(std::isnan(y.data<float>()[0]));
  ExpectTensorNear(RunUnary("Sigmoid", MakeTensor<float>({2}, {kInf, -kInf})), {2}, {1, 0});
  // Clip's default bounds are float's finite limits (Caffe2): +-inf clip to +-FLT_MAX.
  y = RunUnary("Clip", MakeTensor<float>({3}, {kInf, -kInf, 1e30f}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{FLT_MAX, -FLT_MAX, 1e30f}));
}

TEST(Unary, InPlaceEmptyAndBufferReuse) {
  auto ws = RunOp(MakeOp("Relu", {"x"}, {"x"}), {{"x", MakeTensor<float>({3}, {-1, 0, 1})}});
  ExpectTensorNear(ws->GetTensor("x"), {3}, {0, 0, 1});
  Tensor y = RunUnary("Exp", MakeTensor<float>({0, 3}, {}));
  EXPECT_EQ(y.dims(), (std::vector<int64_t>{0, 3}));
  for (const char* type : {"Relu", "LeakyRelu", "Elu", "Sigmoid", "Tanh", "Softsign", "Exp",
                           "Log", "Sqrt", "Sqr", "Abs", "Neg", "Reciprocal", "Sin", "Cos", "Clip",
                           "Scale", "StopGradient", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
                           "Asinh", "Atanh", "Erf", "Ceil", "Floor", "Round", "Sign"}) {
    EXPECT_TRUE(OpSchemaRegistry::Get(type).IsInplaceAllowed(0, 0)) << type;
  }
}

TEST(Abs, IntegersWrapAtTheMinimum) {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  Tensor y = RunUnary("Abs", MakeTensor<int32_t>({4}, {kMin, -5, 0, 3}));
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{kMin, 5, 0, 3}));
  y = RunUnary("Abs", MakeTensor<int64_t>({2}, {-7, 8}));
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{7, 8}));
}

TEST(Neg, IntegersWrapAtTheMinimum) {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  Tensor y = RunUnary("Neg", MakeTensor<int32_t>({2}, {kMin, 5}));
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{kMin, -5}));
  y = RunUnary("Neg", MakeTensor<int64_t>({1}, {-7}));
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{7}));
}

TEST(Unary, Errors) {
  ExpectError([] { RunUnary("Relu", MakeTensor<int32_t>({2}, {1, 2})); },
              ErrorKind::kShapeMismatch, {"Relu", "int32 [2]", "float, double"});
  ExpectError([] {
    RunUnary("Clip", MakeTensor<float>({1}, {0}), {{"min", 2.0f}, {"max", 1.0f}});
  }, ErrorKind::kBadArgument, {"Clip", "min", "max"});
  ExpectError([] {
    OpSchemaRegistry::Get("Clip").InferShapes(
        MakeOp("Clip", {"x"}, {"y"}, {{"min", 2.0f}, {"max", 1.0f}}), {{DataType::kFloat, {1}}});
  }, ErrorKind::kBadArgument, {"Clip", "min", "max"});
  ExpectError([] {
    OpSchemaRegistry::Get("Sigmoid").InferShapes(MakeOp("Sigmoid", {"x"}, {"y"}),
                                                {{DataType::kInt64, {3}}});
  }, ErrorKind::kShapeMismatch, {"Sigmoid", "int64 [3]"});
  ExpectError([] { RunUnary("LeakyRelu", MakeTensor<float>({1}, {0}), {{"alpha", "x"}}); },
              ErrorKind::kBadArgument, {"LeakyRelu", "alpha"});
}

TEST(Unary, SchemaDefaults) {
  EXPECT_EQ(std::get<double>(OpSchemaRegistry::Get("LeakyRelu").FindArg("alpha")->default_value),
            0.01);
  EXPECT_EQ(std::get<double>(OpSchemaRegistry::Get("Elu").FindArg("alpha")->default_value), 1.0);
  EXPECT_EQ(std::get<double>(OpSchemaRegistry::Get("Scale").FindArg("scale")->default_value), 1.0);
  EXPECT_EQ(std::get<double>(OpSchemaRegistry::Get("Clip").FindArg("max")->default_value),
            static_cast<double>(FLT_MAX));
  EXPECT_EQ(std::get<int64_t>(OpSchemaRegistry::Get("Cast").FindArg("to")->default_value), 1);
}

// ---------------------------------------------------------------------------------------------
// Cast.

TEST(Cast, FloatToIntTruncatesAndSaturates) {
  // 2.7 -> 2, -2.7 -> -2 (toward zero); 1e10 / -1e10 saturate; NaN -> 0.
  Tensor y = RunUnary("Cast", MakeTensor<float>({5}, {2.7f, -2.7f, 1e10f, -1e10f, kNaN}),
                      {{"to", 2}});
  EXPECT_EQ(y.dtype(), DataType::kInt32);
  EXPECT_EQ(Values<int32_t>(y),
            (std::vector<int32_t>{2, -2, std::numeric_limits<int32_t>::max(),
                                  std::numeric_limits<int32_t>::min(), 0}));
  // uint8 saturates at 0 and 255; BYTE (3) is read back as uint8.
  y = RunUnary("Cast", MakeTensor<float>({3}, {300, -5, 7.9f}), {{"to", 6}});
  EXPECT_EQ(Values<uint8_t>(y), (std::vector<uint8_t>{255, 0, 7}));
  y = RunUnary("Cast", MakeTensor<float>({1}, {7}), {{"to", 3}});
  EXPECT_EQ(y.dtype(), DataType::kUint8);
}

TEST(Cast, BoolsIntegersAndDefaults) {
  // To bool: x != 0.
  Tensor y = RunUnary("Cast", MakeTensor<float>({3}, {0, 0.5f, -1}), {{"to", 5}});
  EXPECT_EQ(Values<bool>(y), (std::vector<bool>{false, true, true}));
  y = RunUnary("Cast", MakeTensor<bool>({2}, {true, false}), {{"to", 1}});
  ExpectTensorNear(y, {2}, {1, 0});
  // Without `to`: FLOAT.
  y = RunUnary("Cast", MakeTensor<int32_t>({1}, {3}));
  EXPECT_EQ(y.dtype(), DataType::kFloat);
  ExpectTensorNear(y, {1}, {3});
  y = RunUnary("Cast", MakeTensor<int64_t>({2}, {int64_t{1} << 40, -3}), {{"to", 13}});
  EXPECT_EQ(y.dtype(), DataType::kDouble);
  ExpectTensorNear(y, {2}, {1099511627776.0, -3});
  // int64 -> int16 keeps the low bits (70000 - 65536 = 4464).
  y = RunUnary("Cast", MakeTensor<int64_t>({1}, {70000}), {{"to", 9}});
  EXPECT_EQ(Values<int16_t>(y), (std::vector<int16_t>{4464}));
  auto out = OpSchemaRegistry::Get("Cast").InferShapes(MakeOp("Cast", {"x"}, {"y"}, {{"to", 10}}),
                                                       {{DataType::kFloat, {2, 3}}});
  EXPECT_EQ(out[0].dtype, DataType::kInt64);
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 3}));
}

TEST(Cast, UnsupportedTargetsAndInputs) {
  for (int to : {0, 4, 12, 99}) {
    ExpectError([&] { RunUnary("Cast", MakeTensor<float>({1}, {1}), {{"to", to}}); },
                ErrorKind::kBadArgument, {"Cast", "'to' = " + std::to_string(to)});
  }
  ExpectError([] { RunUnary("Cast", MakeTensor<Half>({1}, {Half{}}), {{"to", 1}}); },
              ErrorKind::kShapeMismatch, {"Cast", "float16 [1]"});
  EXPECT_FALSE(OpSchemaRegistry::Get("Cast").IsInplaceAllowed(0, 0));
}

// ---------------------------------------------------------------------------------------------
// StopGradient.

TEST(StopGradient, IdentityAnyDtypeNotDifferentiable) {
  Tensor y = RunUnary("StopGradient", MakeTensor<int64_t>({2}, {5, -6}));
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{5, -6}));
  auto ws = RunOp(MakeOp("StopGradient", {"x"}, {"x"}), {{"x", MakeTensor<float>({1}, {2})}});
  ExpectTensorNear(ws->GetTensor("x"), {1}, {2});
  EXPECT_FALSE(OpSchemaRegistry::Get("StopGradient").IsDifferentiable(0));
  EXPECT_TRUE(OpSchemaRegistry::Get("Relu").IsDifferentiable(0));
}

}  // namespace
}  // namespace parity::testing

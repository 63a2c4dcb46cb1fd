// The integer dtypes ONNX's ops take beyond Caffe2's int32 / int64 (issue 17's conformance
// failures): Add / Sub / Mul / Div on int8, int16, uint8, uint16 (wrap-around, truncating
// division), Pow on int32 / int64 (exact, wrapping), Max / Min on the narrow integers, Clip on
// integers (whole-number bounds, saturated to the dtype) and MaxPool on int8 / uint8. Every
// expected value is worked by hand (modular arithmetic noted beside it).
#include <limits>

#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

Tensor Output(const caffe2::OperatorDef& op, const std::map<std::string, Tensor>& in,
              const std::string& out = "c") {
  auto ws = RunOp(op, in);
  Tensor t;
  t.CopyFrom(ws->GetTensor(out));
  return t;
}

template <typename T>
std::vector<T> Binary(const std::string& type, const std::vector<T>& a, const std::vector<T>& b) {
  const int64_t n = static_cast<int64_t>(a.size());
  const Tensor c = Output(MakeOp(type, {"a", "b"}, {"c"}),
                          {{"a", MakeTensor<T>({n}, a)}, {"b", MakeTensor<T>({n}, b)}});
  EXPECT_EQ(c.dtype(), DataTypeOf<T>::value) << type;
  return Values<T>(c);
}

TEST(SmallIntegers, Uint8ArithmeticWrapsModulo256) {
  // 200 + 100 = 300 = 44 (mod 256); 255 + 1 = 0.
  EXPECT_EQ(Binary<uint8_t>("Add", {200, 255, 3}, {100, 1, 4}),
            (std::vector<uint8_t>{44, 0, 7}));
  // 3 - 5 = -2 = 254; 0 - 255 = 1.
  EXPECT_EQ(Binary<uint8_t>("Sub", {3, 0, 9}, {5, 255, 4}), (std::vector<uint8_t>{254, 1, 5}));
  // 16 * 17 = 272 = 16; 23 * 23 = 529 = 17 (529 - 512).
  EXPECT_EQ(Binary<uint8_t>("Mul", {16, 23, 2}, {17, 23, 3}), (std::vector<uint8_t>{16, 17, 6}));
  // Unsigned division truncates, which is numpy's floor division: 200 / 7 = 28, 255 / 16 = 15.
  EXPECT_EQ(Binary<uint8_t>("Div", {200, 255, 3}, {7, 16, 4}), (std::vector<uint8_t>{28, 15, 0}));
}

TEST(SmallIntegers, SignedAndSixteenBitArithmetic) {
  // int8: 127 + 1 = -128; -128 * -1 = 128 = -128; -128 / -1 = -128 (wraps); -7 / 2 = -3.
  EXPECT_EQ(Binary<int8_t>("Add", {127, -5}, {1, 3}), (std::vector<int8_t>{-128, -2}));
  EXPECT_EQ(Binary<int8_t>("Mul", {-128, 11}, {-1, 12}), (std::vector<int8_t>{-128, -124}));
  EXPECT_EQ(Binary<int8_t>("Div", {-128, -7}, {-1, 2}), (std::vector<int8_t>{-128, -3}));
  // int16: 32767 + 2 = -32767; -32768 - 1 = 32767.
  EXPECT_EQ(Binary<int16_t>("Add", {32767}, {2}), (std::vector<int16_t>{-32767}));
  EXPECT_EQ(Binary<int16_t>("Sub", {-32768}, {1}), (std::vector<int16_t>{32767}));
  // uint16: 65535^2 = 2^32 - 2^17 + 1 = 1 (mod 2^16), a product that overflows a C++ int;
  // 300 * 300 = 90000 = 24464.
  EXPECT_EQ(Binary<uint16_t>("Mul", {65535, 300}, {65535, 300}),
            (std::vector<uint16_t>{1, 24464}));
}

TEST(SmallIntegers, DivisionByZeroAndBroadcasting) {
  ExpectError(
      [] { Binary<uint8_t>("Div", {1, 2}, {1, 0}); }, ErrorKind::kBadArgument,
      {"Div", "division by zero", "element 1"});
  // [2, 2] uint8 + [2] broadcast: {250, 1, 2, 3} + {10, 20} = {4, 21, 12, 23}.
  const Tensor c = Output(MakeOp("Add", {"a", "b"}, {"c"}),
                          {{"a", MakeTensor<uint8_t>({2, 2}, {250, 1, 2, 3})},
                           {"b", MakeTensor<uint8_t>({2}, {10, 20})}});
  EXPECT_EQ(Values<uint8_t>(c), (std::vector<uint8_t>{4, 21, 12, 23}));
}

TEST(SmallIntegers, IntegerPowIsExactAndWraps) {
  // 3^4 = 81, (-2)^3 = -8, 5^0 = 1, 0^0 = 1 (numpy), 3^21 = 10460353203 = 1870418611 (mod 2^32).
  EXPECT_EQ(Binary<int32_t>("Pow", {3, -2, 5, 0, 3}, {4, 3, 0, 0, 21}),
            (std::vector<int32_t>{81, -8, 1, 1, 1870418611}));
  // int64: 2^62 exact, 2^63 wraps to INT64_MIN, 2^64 to 0; (-3)^3 = -27.
  EXPECT_EQ(Binary<int64_t>("Pow", {2, 2, 2, -3}, {62, 63, 64, 3}),
            (std::vector<int64_t>{int64_t{1} << 62, std::numeric_limits<int64_t>::min(), 0, -27}));
  ExpectError([] { Binary<int32_t>("Pow", {2, 2}, {1, -1}); }, ErrorKind::kBadArgument,
              {"Pow", "negative integer power", "element 1"});
  // The one-input form's exponent is a float argument: floats only.
  ExpectError(
      [] {
        RunOp(MakeOp("Pow", {"x"}, {"y"}, {{"exponent", 2.0f}}),
              {{"x", MakeTensor<int64_t>({1}, {2})}});
      },
      ErrorKind::kShapeMismatch, {"Pow", "int64 [1]", "'exponent' argument"});
  ExpectError([] { Binary<uint8_t>("Pow", {2}, {2}); }, ErrorKind::kShapeMismatch,
              {"Pow", "uint8", "float, double, int32, int64"});
}

TEST(SmallIntegers, MaxMinOfNarrowIntegers) {
  EXPECT_EQ(Binary<int8_t>("Max", {-128, 5, 127}, {3, -7, 0}), (std::vector<int8_t>{3, 5, 127}));
  EXPECT_EQ(Binary<int8_t>("Min", {-128, 5, 127}, {3, -7, 0}), (std::vector<int8_t>{-128, -7, 0}));
  EXPECT_EQ(Binary<uint16_t>("Max", {65535, 0}, {1, 2}), (std::vector<uint16_t>{65535, 2}));
  EXPECT_EQ(Binary<uint16_t>("Min", {65535, 0}, {1, 2}), (std::vector<uint16_t>{1, 0}));
  EXPECT_EQ(Binary<int16_t>("Max", {-300, 300}, {-301, 299}), (std::vector<int16_t>{-300, 300}));
  EXPECT_EQ(Binary<uint8_t>("Min", {200, 7}, {100, 8}), (std::vector<uint8_t>{100, 7}));
  // Three inputs with broadcasting: max({1, 9}, {[5]}, {[2, 1] = 0, 200}) per position.
  const Tensor c = Output(MakeOp("Max", {"a", "b", "d"}, {"c"}),
                          {{"a", MakeTensor<uint8_t>({2}, {1, 9})},
                           {"b", MakeTensor<uint8_t>({1}, {5})},
                           {"d", MakeTensor<uint8_t>({2, 1}, {0, 200})}});
  EXPECT_EQ(c.dims(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Values<uint8_t>(c), (std::vector<uint8_t>{5, 9, 200, 200}));
}

std::vector<int8_t> ClipInt8(const std::vector<TestArg>& args) {
  return Values<int8_t>(Output(MakeOp("Clip", {"x"}, {"c"}, args),
                               {{"x", MakeTensor<int8_t>({5}, {-128, -5, 0, 5, 127})}}));
}

TEST(SmallIntegers, ClipOnIntegers) {
  EXPECT_EQ(ClipInt8({{"min", -4.0f}, {"max", 4.0f}}), (std::vector<int8_t>{-4, -4, 0, 4, 4}));
  // An absent bound is the dtype's limit; one beyond the range saturates to it.
  EXPECT_EQ(ClipInt8({{"max", 0.0f}}), (std::vector<int8_t>{-128, -5, 0, 0, 0}));
  EXPECT_EQ(ClipInt8({{"min", -1000.0f}, {"max", 100.0f}}),
            (std::vector<int8_t>{-128, -5, 0, 5, 100}));
  EXPECT_EQ(ClipInt8({{"min", 200.0f}}), (std::vector<int8_t>{127, 127, 127, 127, 127}));
  // uint8 with a negative min: no lower bound at all.
  EXPECT_EQ(Values<uint8_t>(Output(MakeOp("Clip", {"x"}, {"c"}, {{"min", -5.0f}, {"max", 9.0f}}),
                                   {{"x", MakeTensor<uint8_t>({3}, {0, 7, 255})}})),
            (std::vector<uint8_t>{0, 7, 9}));
  // int64 near its limits: the default bounds leave every value alone.
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(Values<int64_t>(Output(MakeOp("Clip", {"x"}, {"c"}, {{"min", -3.0f}}),
                                   {{"x", MakeTensor<int64_t>({2}, {kMax, -4})}})),
            (std::vector<int64_t>{kMax, -3}));
  ExpectError([] { ClipInt8({{"min", 0.5f}}); }, ErrorKind::kBadArgument,
              {"Clip", "'min' = 0.5", "not a whole number", "int8"});
  // Shape inference checks the same.
  const auto& schema = OpSchemaRegistry::Get("Clip");
  TensorType x{DataType::kInt16, {2}};
  EXPECT_EQ(schema.InferShapes(MakeOp("Clip", {"x"}, {"y"}, {{"max", 3.0f}}), {x})[0].dtype,
            DataType::kInt16);
  ExpectError(
      [&] { schema.InferShapes(MakeOp("Clip", {"x"}, {"y"}, {{"max", 2.5f}}), {x}); },
      ErrorKind::kBadArgument, {"Clip", "not a whole number"});
}

TEST(SmallIntegers, MaxPoolOnUint8AndInt8) {
  // 3x3 uint8 image, kernel 2, stride 1: max of each 2x2 block.
  const Tensor y = Output(MakeOp("MaxPool", {"x"}, {"c"}, {{"kernel", 2}}),
                          {{"x", MakeTensor<uint8_t>({1, 1, 3, 3}, {1, 200, 3, 4, 5, 255, 7, 8, 9})}});
  EXPECT_EQ(y.dtype(), DataType::kUint8);
  EXPECT_EQ(y.dims(), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(Values<uint8_t>(y), (std::vector<uint8_t>{200, 255, 8, 255}));
  // int8 with pad 1, kernel 2, stride 2: each window holds one real element, and padding never
  // wins (a zero pad would beat these negatives).
  const Tensor z = Output(MakeOp("MaxPool", {"x"}, {"c"}, {{"kernel", 2}, {"stride", 2}, {"pad", 1}}),
                          {{"x", MakeTensor<int8_t>({1, 1, 2, 2}, {-128, -100, -50, -1})}});
  EXPECT_EQ(Values<int8_t>(z), (std::vector<int8_t>{-128, -100, -50, -1}));
  // AveragePool stays floating.
  ExpectError(
      [] {
        RunOp(MakeOp("AveragePool", {"x"}, {"c"}, {{"kernel", 1}}),
              {{"x", MakeTensor<uint8_t>({1, 1, 1, 1}, {1})}});
      },
      ErrorKind::kShapeMismatch, {"AveragePool", "float or double", "uint8"});
  ExpectError(
      [] {
        RunOp(MakeOp("MaxPool", {"x"}, {"c"}, {{"kernel", 1}}),
              {{"x", MakeTensor<int16_t>({1, 1, 1, 1}, {1})}});
      },
      ErrorKind::kShapeMismatch, {"MaxPool", "int8 or uint8", "int16"});
}

}  // namespace
}  // namespace parity::testing

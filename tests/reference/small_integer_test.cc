// The reference on the integer dtypes ONNX's ops take beyond int32 / int64: arithmetic on the
// narrow integers (wrap-around), integer Pow, Max / Min, Clip and MaxPool. Values worked by hand,
// the same cases as tests/ops/small_integer_test.cc so both halves are held to one definition.
#include <limits>

#include "tests/reference/test_util.h"

namespace parity::reference::testing {
namespace {

using caffe2::TensorProto;

caffe2::TensorProto Typed(TensorProto::DataType type, std::vector<int64_t> values) {
  return Int({static_cast<int64_t>(values.size())}, values, type);
}

std::vector<int64_t> Binary(const std::string& op, TensorProto::DataType type,
                            std::vector<int64_t> a, std::vector<int64_t> b) {
  const auto y = RunOp(Op(op, {"a", "b"}, {"y"}), {{"a", Typed(type, a)}, {"b", Typed(type, b)}},
                       "y");
  EXPECT_EQ(y.data_type(), type) << op;
  return IntValues(y);
}

using V = std::vector<int64_t>;

TEST(SmallIntegers, Uint8ArithmeticWrapsModulo256) {
  EXPECT_EQ(Binary("Add", TensorProto::UINT8, {200, 255, 3}, {100, 1, 4}), (V{44, 0, 7}));
  EXPECT_EQ(Binary("Sub", TensorProto::UINT8, {3, 0, 9}, {5, 255, 4}), (V{254, 1, 5}));
  EXPECT_EQ(Binary("Mul", TensorProto::UINT8, {16, 23, 2}, {17, 23, 3}), (V{16, 17, 6}));
  EXPECT_EQ(Binary("Div", TensorProto::UINT8, {200, 255, 3}, {7, 16, 4}), (V{28, 15, 0}));
}

TEST(SmallIntegers, SignedAndSixteenBitArithmetic) {
  EXPECT_EQ(Binary("Add", TensorProto::INT8, {127, -5}, {1, 3}), (V{-128, -2}));
  EXPECT_EQ(Binary("Mul", TensorProto::INT8, {-128, 11}, {-1, 12}), (V{-128, -124}));
  EXPECT_EQ(Binary("Div", TensorProto::INT8, {-128, -7}, {-1, 2}), (V{-128, -3}));
  EXPECT_EQ(Binary("Add", TensorProto::INT16, {32767}, {2}), (V{-32767}));
  EXPECT_EQ(Binary("Sub", TensorProto::INT16, {-32768}, {1}), (V{32767}));
  EXPECT_EQ(Binary("Mul", TensorProto::UINT16, {65535, 300}, {65535, 300}), (V{1, 24464}));
  ExpectError([] { Binary("Div", TensorProto::UINT8, {1, 2}, {1, 0}); }, ErrorKind::kBadArgument);
}

TEST(SmallIntegers, IntegerPowIsExactAndWraps) {
  EXPECT_EQ(Binary("Pow", TensorProto::INT32, {3, -2, 5, 0, 3}, {4, 3, 0, 0, 21}),
            (V{81, -8, 1, 1, 1870418611}));
  EXPECT_EQ(Binary("Pow", TensorProto::INT64, {2, 2, 2, -3}, {62, 63, 64, 3}),
            (V{int64_t{1} << 62, std::numeric_limits<int64_t>::min(), 0, -27}));
  const std::string negative = ExpectError(
      [] { Binary("Pow", TensorProto::INT32, {2, 2}, {1, -1}); }, ErrorKind::kBadArgument);
  EXPECT_NE(negative.find("negative integer power"), std::string::npos) << negative;
  // The one-input form takes floats only; so does Pow on a narrow integer.
  ExpectError(
      [] {
        RunOp(Op("Pow", {"x"}, {"y"}).F("exponent", 2), {{"x", I64({1}, {2})}}, "y");
      },
      ErrorKind::kShapeMismatch);
  ExpectError([] { Binary("Pow", TensorProto::UINT8, {2}, {2}); }, ErrorKind::kShapeMismatch);
}

TEST(SmallIntegers, MaxMinOfNarrowIntegers) {
  EXPECT_EQ(Binary("Max", TensorProto::INT8, {-128, 5, 127}, {3, -7, 0}), (V{3, 5, 127}));
  EXPECT_EQ(Binary("Min", TensorProto::INT8, {-128, 5, 127}, {3, -7, 0}), (V{-128, -7, 0}));
  EXPECT_EQ(Binary("Max", TensorProto::UINT16, {65535, 0}, {1, 2}), (V{65535, 2}));
  EXPECT_EQ(Binary("Min", TensorProto::UINT16, {65535, 0}, {1, 2}), (V{1, 0}));
  EXPECT_EQ(Binary("Max", TensorProto::INT16, {-300, 300}, {-301, 299}), (V{-300, 300}));
  EXPECT_EQ(Binary("Min", TensorProto::UINT8, {200, 7}, {100, 8}), (V{100, 7}));
}

V ClipInt8(Op op) {
  return IntValues(RunOp(op, {{"x", Typed(TensorProto::INT8, {-128, -5, 0, 5, 127})}}, "y"));
}

TEST(SmallIntegers, ClipOnIntegers) {
  EXPECT_EQ(ClipInt8(Op("Clip", {"x"}, {"y"}).F("min", -4).F("max", 4)), (V{-4, -4, 0, 4, 4}));
  EXPECT_EQ(ClipInt8(Op("Clip", {"x"}, {"y"}).F("max", 0)), (V{-128, -5, 0, 0, 0}));
  EXPECT_EQ(ClipInt8(Op("Clip", {"x"}, {"y"}).F("min", -1000).F("max", 100)),
            (V{-128, -5, 0, 5, 100}));
  EXPECT_EQ(ClipInt8(Op("Clip", {"x"}, {"y"}).F("min", 200)), (V{127, 127, 127, 127, 127}));
  EXPECT_EQ(IntValues(RunOp(Op("Clip", {"x"}, {"y"}).F("min", -5).F("max", 9),
                            {{"x", Typed(TensorProto::UINT8, {0, 7, 255})}}, "y")),
            (V{0, 7, 9}));
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(IntValues(RunOp(Op("Clip", {"x"}, {"y"}).F("min", -3), {{"x", I64({2}, {kMax, -4})}},
                            "y")),
            (V{kMax, -3}));
  const std::string fractional = ExpectError(
      [] { ClipInt8(Op("Clip", {"x"}, {"y"}).F("min", 0.5)); }, ErrorKind::kBadArgument);
  EXPECT_NE(fractional.find("not a whole number"), std::string::npos) << fractional;
}

TEST(SmallIntegers, MaxPoolOnUint8AndInt8) {
  const auto y = RunOp(Op("MaxPool", {"x"}, {"y"}).I("kernel", 2),
                       {{"x", Int({1, 1, 3, 3}, {1, 200, 3, 4, 5, 255, 7, 8, 9}, TensorProto::UINT8)}},
                       "y");
  EXPECT_EQ(y.data_type(), TensorProto::UINT8);
  EXPECT_EQ(Dims(y), (V{1, 1, 2, 2}));
  EXPECT_EQ(IntValues(y), (V{200, 255, 8, 255}));
  const auto z = RunOp(Op("MaxPool", {"x"}, {"y"}).I("kernel", 2).I("stride", 2).I("pad", 1),
                       {{"x", Int({1, 1, 2, 2}, {-128, -100, -50, -1}, TensorProto::INT8)}}, "y");
  EXPECT_EQ(IntValues(z), (V{-128, -100, -50, -1}));
  ExpectError(
      [] {
        RunOp(Op("AveragePool", {"x"}, {"y"}).I("kernel", 1),
              {{"x", Int({1, 1, 1, 1}, {1}, TensorProto::UINT8)}}, "y");
      },
      ErrorKind::kShapeMismatch);
  ExpectError(
      [] {
        RunOp(Op("MaxPool", {"x"}, {"y"}).I("kernel", 1),
              {{"x", Int({1, 1, 1, 1}, {1}, TensorProto::INT16)}}, "y");
      },
      ErrorKind::kShapeMismatch);
}

}  // namespace
}  // namespace parity::reference::testing

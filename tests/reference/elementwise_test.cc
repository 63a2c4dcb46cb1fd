// Hand-computed values for the elementwise binary, variadic and unary ops.
#include <cmath>

#include "tests/reference/test_util.h"

namespace parity::reference::testing {
namespace {

TEST(Elementwise, AddNumpyBroadcastsTrailingDims) {
  // [[1,2,3],[4,5,6]] + [10,20,30]
  auto y = RunOp(Op("Add", {"a", "b"}, {"y"}),
                 {{"a", F({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", F({3}, {10, 20, 30})}}, "y");
  EXPECT_EQ(Dims(y), (std::vector<int64_t>{2, 3}));
  EXPECT_VALUES_NEAR(y, (std::vector<double>{11, 22, 33, 14, 25, 36}), 0);
}

TEST(Elementwise, AddBroadcastsBothSidesAndScalars) {
  // [2,1] + [1,3]: a column plus a row gives the outer sum.
  auto y = RunOp(Op("Add", {"a", "b"}, {"y"}),
                 {{"a", F({2, 1}, {1, 2})}, {"b", F({1, 3}, {10, 20, 30})}}, "y");
  EXPECT_EQ(Dims(y), (std::vector<int64_t>{2, 3}));
  EXPECT_VALUES_NEAR(y, (std::vector<double>{11, 21, 31, 12, 22, 32}), 0);
  // 0-D scalar on the right.
  auto z = RunOp(Op("Sub", {"a", "b"}, {"y"}), {{"a", F({2}, {1, 2})}, {"b", F({}, {5})}}, "y");
  EXPECT_EQ(Dims(z), (std::vector<int64_t>{2}));
  EXPECT_VALUES_NEAR(z, (std::vector<double>{-4, -3}), 0);
  // Empty tensors broadcast to empty.
  auto e =
      RunOp(Op("Mul", {"a", "b"}, {"y"}), {{"a", F({0, 3}, {})}, {"b", F({3}, {1, 2, 3})}}, "y");
  EXPECT_EQ(Dims(e), (std::vector<int64_t>{0, 3}));
}

TEST(Elementwise, LegacyBroadcastWithAxis) {
  // B [2] matched to A's dim 0: row i gets B[i]. Numpy rules would reject [2,3] + [2].
  const Tensors in = {{"a", F({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", F({2}, {10, 20})}};
  auto y = RunOp(Op("Add", {"a", "b"}, {"y"}).I("broadcast", 1).I("axis", 0), in, "y");
  EXPECT_VALUES_NEAR(y, (std::vector<double>{11, 12, 13, 24, 25, 26}), 0);
  // Trailing 1s of B are ignored: [2, 1] at axis 0 behaves like [2].
  auto y2 = RunOp(Op("Add", {"a", "b"}, {"y"}).I("broadcast", 1).I("axis", 0),
                  {{"a", F({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", F({2, 1}, {10, 20})}}, "y");
  EXPECT_VALUES_NEAR(y2, (std::vector<double>{11, 12, 13, 24, 25, 26}), 0);
  // axis_str picks the axis from `order`: 'C' of NCHW is 1.
  auto y3 = RunOp(Op("Mul", {"a", "b"}, {"y"}).I("broadcast", 1).S("axis_str", "C"),
                  {{"a", F({1, 2, 1, 2}, {1, 2, 3, 4})}, {"b", F({2}, {10, 100})}}, "y");
  EXPECT_VALUES_NEAR(y3, (std::vector<double>{10, 20, 300, 400}), 0);
  ExpectError([&] { RunOps({Op("Add", {"a", "b"}, {"y"})}, in); }, ErrorKind::kShapeMismatch);
  // Legacy default axis aligns B to the end: [3] onto [2,3].
  auto y4 = RunOp(Op("Sub", {"a", "b"}, {"y"}).I("broadcast", 1),
                  {{"a", F({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", F({3}, {1, 1, 1})}}, "y");
  EXPECT_VALUES_NEAR(y4, (std::vector<double>{0, 1, 2, 3, 4, 5}), 0);
}

TEST(Elementwise, IntegerArithmeticIsExactAndWraps) {
  auto d =
      RunOp(Op("Div", {"a", "b"}, {"y"}), {{"a", Int({2}, {7, -7})}, {"b", Int({2}, {2, 2})}}, "y");
  EXPECT_EQ(d.data_type(), caffe2::TensorProto::INT32);
  EXPECT_EQ(IntValues(d), (std::vector<int64_t>{3, -3}));  // truncation toward zero
  auto w = RunOp(Op("Add", {"a", "b"}, {"y"}),
                 {{"a", Int({1}, {2147483647})}, {"b", Int({1}, {1})}}, "y");
  EXPECT_EQ(IntValues(w), (std::vector<int64_t>{-2147483648LL}));
  // int64 beyond 2^53 stays exact (a double would round 2^53 + 1).
  auto big = RunOp(Op("Add", {"a", "b"}, {"y"}),
                   {{"a", I64({1}, {int64_t{1} << 53})}, {"b", I64({1}, {1})}}, "y");
  EXPECT_EQ(IntValues(big), (std::vector<int64_t>{(int64_t{1} << 53) + 1}));
  ExpectError(
      [] {
        RunOps({Op("Div", {"a", "b"}, {"y"})}, {{"a", Int({1}, {1})}, {"b", Int({1}, {0})}});
      },
      ErrorKind::kBadArgument);
  ExpectError(
      [] {
        RunOps({Op("Add", {"a", "b"}, {"y"})}, {{"a", Int({1}, {1})}, {"b", F({1}, {1})}});
      },
      ErrorKind::kShapeMismatch);
}

TEST(Elementwise, Pow) {
  auto y = RunOp(Op("Pow", {"x"}, {"y"}).F("exponent", 2), {{"x", F({2}, {2, 3})}}, "y");
  EXPECT_VALUES_NEAR(y, (std::vector<double>{4, 9}), 0);
  auto z = RunOp(Op("Pow", {"x", "e"}, {"y"}), {{"x", F({2}, {2, 3})}, {"e", F({2}, {3, 2})}}, "y");
  EXPECT_VALUES_NEAR(z, (std::vector<double>{8, 9}), 0);
  ExpectError(
      [] {
        RunOps({Op("Pow", {"x"}, {"y"})}, {{"x", F({1}, {2})}});
      },
      ErrorKind::kBadArgument);
}

TEST(Elementwise, ComparisonsGiveBool) {
  const Tensors in = {{"a", F({3}, {1, 2, 3})}, {"b", F({3}, {2, 2, 2})}};
  auto lt = RunOp(Op("LT", {"a", "b"}, {"y"}), in, "y");
  EXPECT_EQ(lt.data_type(), caffe2::TensorProto::BOOL);
  EXPECT_EQ(IntValues(lt), (std::vector<int64_t>{1, 0, 0}));
  EXPECT_EQ(IntValues(RunOp(Op("LE", {"a", "b"}, {"y"}), in, "y")),
            (std::vector<int64_t>{1, 1, 0}));
  EXPECT_EQ(IntValues(RunOp(Op("GT", {"a", "b"}, {"y"}), in, "y")),
            (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(IntValues(RunOp(Op("GE", {"a", "b"}, {"y"}), in, "y")),
            (std::vector<int64_t>{0, 1, 1}));
  EXPECT_EQ(IntValues(RunOp(Op("EQ", {"a", "b"}, {"y"}), in, "y")),
            (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(IntValues(RunOp(Op("NE", {"a", "b"}, {"y"}), in, "y")),
            (std::vector<int64_t>{1, 0, 1}));
  // Broadcast against a scalar, on int64.
  auto s =
      RunOp(Op("EQ", {"a", "b"}, {"y"}), {{"a", I64({3}, {5, 6, 5})}, {"b", I64({}, {5})}}, "y");
  EXPECT_EQ(IntValues(s), (std::vector<int64_t>{1, 0, 1}));
}

TEST(Elementwise, Logical) {
  const Tensors in = {{"a", Bool({4}, {1, 1, 0, 0})}, {"b", Bool({4}, {1, 0, 1, 0})}};
  EXPECT_EQ(IntValues(RunOp(Op("And", {"a", "b"}, {"y"}), in, "y")),
            (std::vector<int64_t>{1, 0, 0, 0}));
  EXPECT_EQ(IntValues(RunOp(Op("Or", {"a", "b"}, {"y"}), in, "y")),
            (std::vector<int64_t>{1, 1, 1, 0}));
  EXPECT_EQ(IntValues(RunOp(Op("Xor", {"a", "b"}, {"y"}), in, "y")),
            (std::vector<int64_t>{0, 1, 1, 0}));
  EXPECT_EQ(IntValues(RunOp(Op("Not", {"a"}, {"y"}), in, "y")), (std::vector<int64_t>{0, 0, 1, 1}));
  ExpectError(
      [] {
        RunOps({Op("And", {"a", "b"}, {"y"})}, {{"a", F({1}, {1})}, {"b", F({1}, {1})}});
      },
      ErrorKind::kShapeMismatch);
}

TEST(Elementwise, VariadicMaxMinWithTies) {
  const Tensors in = {{"a", F({3}, {1, 5, 3})}, {"b", F({3}, {4, 5, 2})}, {"c", F({3}, {0, 6, 1})}};
  EXPECT_VALUES_NEAR(RunOp(Op("Max", {"a", "b", "c"}, {"y"}), in, "y"),
                     (std::vector<double>{4, 6, 3}), 0);
  EXPECT_VALUES_NEAR(RunOp(Op("Min", {"a", "b", "c"}, {"y"}), in, "y"),
                     (std::vector<double>{0, 5, 1}), 0);
  EXPECT_VALUES_NEAR(RunOp(Op("Sum", {"a", "b", "c"}, {"y"}), in, "y"),
                     (std::vector<double>{5, 16, 6}), 0);
  EXPECT_VALUES_NEAR(RunOp(Op("Mean", {"a", "b"}, {"y"}), in, "y"),
                     (std::vector<double>{2.5, 5, 2.5}), 0);
  // Sum in place on input 0.
  EXPECT_VALUES_NEAR(RunOp(Op("Sum", {"a", "b"}, {"a"}), in, "a"), (std::vector<double>{5, 10, 5}),
                     0);
  ExpectError(
      [] {
        RunOps({Op("Sum", {"a", "b"}, {"y"})}, {{"a", F({2}, {1, 2})}, {"b", F({1}, {1})}});
      },
      ErrorKind::kShapeMismatch);
}

TEST(Unary, Activations) {
  EXPECT_VALUES_NEAR(RunOp(Op("Relu", {"x"}, {"y"}), {{"x", F({3}, {-1, 0, 2})}}, "y"),
                     (std::vector<double>{0, 0, 2}), 0);
  EXPECT_VALUES_NEAR(
      RunOp(Op("LeakyRelu", {"x"}, {"y"}).F("alpha", 0.5), {{"x", F({2}, {-2, 3})}}, "y"),
      (std::vector<double>{-1, 3}), 0);
  // Default alpha 0.01.
  EXPECT_VALUES_NEAR(RunOp(Op("LeakyRelu", {"x"}, {"y"}), {{"x", F({1}, {-2})}}, "y"),
                     (std::vector<double>{-0.02}), 1e-15);
  // Elu(-1) = e^-1 - 1 = -0.63212055882855767.
  EXPECT_VALUES_NEAR(RunOp(Op("Elu", {"x"}, {"y"}), {{"x", F({2}, {-1, 2})}}, "y"),
                     (std::vector<double>{-0.63212055882855767, 2}), 1e-15);
  // sigmoid(ln 3) = 3/4; tanh(ln 2) = (2 - 1/2)/(2 + 1/2) = 0.6.
  EXPECT_VALUES_NEAR(RunOp(Op("Sigmoid", {"x"}, {"y"}), {{"x", F({2}, {0, std::log(3.0)})}}, "y"),
                     (std::vector<double>{0.5, 0.75}), 1e-15);
  EXPECT_VALUES_NEAR(RunOp(Op("Tanh", {"x"}, {"y"}), {{"x", F({1}, {std::log(2.0)})}}, "y"),
                     (std::vector<double>{0.6}), 1e-15);
  EXPECT_VALUES_NEAR(RunOp(Op("Softsign", {"x"}, {"y"}), {{"x", F({2}, {3, -1})}}, "y"),
                     (std::vector<double>{0.75, -0.5}), 0);
}

TEST(Unary, MathFunctions) {
  EXPECT_VALUES_NEAR(RunOp(Op("Exp", {"x"}, {"y"}), {{"x", F({1}, {std::log(5.0)})}}, "y"),
                     (std::vector<double>{5}), 1e-14);
  EXPECT_VALUES_NEAR(RunOp(Op("Log", {"x"}, {"y"}), {{"x", F({1}, {std::exp(2.0)})}}, "y"),
                     (std::vector<double>{2}), 1e-15);
  EXPECT_VALUES_NEAR(RunOp(Op("Sqrt", {"x"}, {"y"}), {{"x", F({1}, {9})}}, "y"),
                     (std::vector<double>{3}), 0);
  EXPECT_VALUES_NEAR(RunOp(Op("Sqr", {"x"}, {"y"}), {{"x", F({1}, {-3})}}, "y"),
                     (std::vector<double>{9}), 0);
  EXPECT_VALUES_NEAR(RunOp(Op("Abs", {"x"}, {"y"}), {{"x", F({2}, {-2, 2})}}, "y"),
                     (std::vector<double>{2, 2}), 0);
  EXPECT_EQ(IntValues(RunOp(Op("Neg", {"x"}, {"y"}), {{"x", Int({2}, {3, -4})}}, "y")),
            (std::vector<int64_t>{-3, 4}));
  EXPECT_VALUES_NEAR(RunOp(Op("Reciprocal", {"x"}, {"y"}), {{"x", F({1}, {4})}}, "y"),
                     (std::vector<double>{0.25}), 0);
  EXPECT_VALUES_NEAR(RunOp(Op("Sin", {"x"}, {"y"}), {{"x", F({1}, {M_PI / 6})}}, "y"),
                     (std::vector<double>{0.5}), 1e-15);
  EXPECT_VALUES_NEAR(RunOp(Op("Cos", {"x"}, {"y"}), {{"x", F({1}, {M_PI / 3})}}, "y"),
                     (std::vector<double>{0.5}), 1e-15);
  EXPECT_VALUES_NEAR(
      RunOp(Op("Clip", {"x"}, {"y"}).F("min", -1).F("max", 2), {{"x", F({3}, {-3, 0.5, 5})}}, "y"),
      (std::vector<double>{-1, 0.5, 2}), 0);
  EXPECT_VALUES_NEAR(RunOp(Op("Scale", {"x"}, {"y"}).F("scale", 2.5), {{"x", F({1}, {2})}}, "y"),
                     (std::vector<double>{5}), 0);
  EXPECT_VALUES_NEAR(RunOp(Op("StopGradient", {"x"}, {"y"}), {{"x", F({1}, {7})}}, "y"),
                     (std::vector<double>{7}), 0);
  // NaN stays visible through Relu.
  auto n = RunOp(Op("Relu", {"x"}, {"y"}), {{"x", F({1}, {NAN})}}, "y");
  EXPECT_TRUE(std::isnan(Values(n)[0]));
}

TEST(Unary, Cast) {
  auto i = RunOp(Op("Cast", {"x"}, {"y"}).I("to", caffe2::TensorProto::INT32),
                 {{"x", F({3}, {1.7, -1.7, 0})}}, "y");
  EXPECT_EQ(i.data_type(), caffe2::TensorProto::INT32);
  EXPECT_EQ(IntValues(i), (std::vector<int64_t>{1, -1, 0}));
  auto b = RunOp(Op("Cast", {"x"}, {"y"}).S("to", "bool"), {{"x", Int({3}, {0, 2, -1})}}, "y");
  EXPECT_EQ(b.data_type(), caffe2::TensorProto::BOOL);
  EXPECT_EQ(IntValues(b), (std::vector<int64_t>{0, 1, 1}));
  auto f = RunOp(Op("Cast", {"x"}, {"y"}).I("to", caffe2::TensorProto::FLOAT),
                 {{"x", Bool({2}, {1, 0})}}, "y");
  EXPECT_VALUES_NEAR(f, (std::vector<double>{1, 0}), 0);
  auto u8 = RunOp(Op("Cast", {"x"}, {"y"}).I("to", caffe2::TensorProto::UINT8),
                  {{"x", Int({1}, {300})}}, "y");
  EXPECT_EQ(IntValues(u8), (std::vector<int64_t>{44}));  // 300 mod 256
  ExpectError(
      [] {
        RunOps({Op("Cast", {"x"}, {"y"}).I("to", caffe2::TensorProto::INT8)},
               {{"x", F({1}, {200})}});
      },
      ErrorKind::kBadArgument);
  ExpectError(
      [] {
        RunOps({Op("Cast", {"x"}, {"y"}).I("to", caffe2::TensorProto::STRING)},
               {{"x", F({1}, {2})}});
      },
      ErrorKind::kBadArgument);
}

// Mod: the dividend's sign by default, the divisor's with sign_follow_divisor; floats by fmod.
TEST(Elementwise, Mod) {
  const Tensors in = {{"a", Int({4}, {7, -7, 7, -7})}, {"b", Int({4}, {3, 3, -3, -3})}};
  EXPECT_EQ(IntValues(RunOp(Op("Mod", {"a", "b"}, {"c"}), in, "c")),
            (std::vector<int64_t>{1, -1, 1, -1}));
  EXPECT_EQ(IntValues(RunOp(Op("Mod", {"a", "b"}, {"c"}).I("sign_follow_divisor", 1), in, "c")),
            (std::vector<int64_t>{1, 2, -2, -1}));
  EXPECT_EQ(IntValues(RunOp(Op("Mod", {"a"}, {"c"}).I("divisor", 4), in, "c")),
            (std::vector<int64_t>{3, -3, 3, -3}));
  EXPECT_VALUES_NEAR(RunOp(Op("Mod", {"x", "y"}, {"c"}).I("sign_follow_divisor", 1),
                           {{"x", F({2}, {5.5, -5.5})}, {"y", F({1}, {2})}}, "c"),
                     (std::vector<double>{1.5, 0.5}), 0);
  ExpectError(
      [] { RunOps({Op("Mod", {"a", "b"}, {"c"})}, {{"a", Int({1}, {1})}, {"b", Int({1}, {0})}}); },
      ErrorKind::kBadArgument);
}

// Where: C [2, 1] picks rows, X [3] a row, Y a scalar; integers pass through exactly.
TEST(Elementwise, WhereBroadcastsAndSelectsRows) {
  auto z = RunOp(Op("Where", {"c", "x", "y"}, {"z"}),
                 {{"c", Bool({2, 1}, {0, 1})}, {"x", I64({3}, {1, 2, 3})}, {"y", I64({}, {-5})}},
                 "z");
  EXPECT_EQ(Dims(z), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(IntValues(z), (std::vector<int64_t>{-5, -5, -5, 1, 2, 3}));
  auto rows = RunOp(Op("Where", {"c", "x", "y"}, {"z"}).I("broadcast_on_rows", 1),
                    {{"c", Bool({2}, {1, 0})},
                     {"x", F({2, 2}, {1, 2, 3, 4})},
                     {"y", F({2, 2}, {5, 6, 7, 8})}},
                    "z");
  EXPECT_VALUES_NEAR(rows, (std::vector<double>{1, 2, 7, 8}), 0);
  ExpectError(
      [] {
        RunOps({Op("Where", {"c", "x", "y"}, {"z"})},
               {{"c", F({1}, {1})}, {"x", F({1}, {1})}, {"y", F({1}, {2})}});
      },
      ErrorKind::kShapeMismatch);
}

}  // namespace
}  // namespace parity::reference::testing

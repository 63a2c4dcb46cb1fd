// Mod (Caffe2's, with ONNX's two-input broadcast form) against hand-worked remainders.
#include <cmath>

#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

Tensor Output(const caffe2::OperatorDef& op, const std::map<std::string, Tensor>& in) {
  auto ws = RunOp(op, in);
  Tensor t;
  t.CopyFrom(ws->GetTensor("c"));
  return t;
}

TEST(Mod, SignOfTheDividendOrOfTheDivisor) {
  const auto a = MakeTensor<int32_t>({4}, {7, -7, 7, -7});
  const auto b = MakeTensor<int32_t>({4}, {3, 3, -3, -3});
  // C's %: the dividend's sign.
  EXPECT_EQ(Values<int32_t>(Output(MakeOp("Mod", {"a", "b"}, {"c"}), {{"a", a}, {"b", b}})),
            (std::vector<int32_t>{1, -1, 1, -1}));
  // Python's %: the divisor's sign.
  EXPECT_EQ(Values<int32_t>(Output(MakeOp("Mod", {"a", "b"}, {"c"}, {{"sign_follow_divisor", 1}}),
                                   {{"a", a}, {"b", b}})),
            (std::vector<int32_t>{1, 2, -2, -1}));
}

TEST(Mod, FloatsBroadcastAndCaffe2sDivisor) {
  // fmod(5.5, 2) = 1.5, fmod(-5.5, 2) = -1.5; with the divisor's sign -1.5 + 2 = 0.5.
  const auto a = MakeTensor<float>({2, 2}, {5.5f, -5.5f, 5.5f, -5.5f});
  const auto b = MakeTensor<float>({2, 1}, {2, -2});
  ExpectTensorNear(Output(MakeOp("Mod", {"a", "b"}, {"c"}), {{"a", a}, {"b", b}}), {2, 2},
                   {1.5, -1.5, 1.5, -1.5});
  ExpectTensorNear(
      Output(MakeOp("Mod", {"a", "b"}, {"c"}, {{"sign_follow_divisor", 1}}), {{"a", a}, {"b", b}}),
      {2, 2}, {1.5, 0.5, -0.5, -1.5});
  // Caffe2's one-input form; INT64_MIN % -1 is 0.
  EXPECT_EQ(Values<int64_t>(Output(MakeOp("Mod", {"a"}, {"c"}, {{"divisor", 4}}),
                                   {{"a", MakeTensor<int64_t>({3}, {9, -9, 4})}})),
            (std::vector<int64_t>{1, -1, 0}));
  EXPECT_EQ(Values<int64_t>(
                Output(MakeOp("Mod", {"a"}, {"c"}, {{"divisor", -1}}),
                       {{"a", MakeTensor<int64_t>({1}, {std::numeric_limits<int64_t>::min()})}})),
            (std::vector<int64_t>{0}));
  // Narrow integers: uint8 and int8 keep their dtype.
  const Tensor u8 =
      Output(MakeOp("Mod", {"a", "b"}, {"c"}),
             {{"a", MakeTensor<uint8_t>({2}, {200, 7})}, {"b", MakeTensor<uint8_t>({1}, {9})}});
  EXPECT_EQ(u8.dtype(), DataType::kUint8);
  EXPECT_EQ(Values<uint8_t>(u8), (std::vector<uint8_t>{2, 7}));
  EXPECT_EQ(Values<int8_t>(Output(MakeOp("Mod", {"a", "b"}, {"c"}, {{"sign_follow_divisor", 1}}),
                                  {{"a", MakeTensor<int8_t>({2}, {-128, 5})},
                                   {"b", MakeTensor<int8_t>({2}, {3, -3})}})),
            (std::vector<int8_t>{1, -1}));
}

TEST(Mod, Errors) {
  const auto a = MakeTensor<int32_t>({2}, {1, 2});
  ExpectError(
      [&] {
        RunOp(MakeOp("Mod", {"a", "b"}, {"c"}),
              {{"a", a}, {"b", MakeTensor<int32_t>({2}, {1, 0})}});
      },
      ErrorKind::kBadArgument, {"Mod", "modulo by zero", "element 1"});
  ExpectError(
      [&] {
        RunOp(MakeOp("Mod", {"a"}, {"c"}), {{"a", a}});
      },
      ErrorKind::kBadArgument, {"Mod", "'divisor'"});
  ExpectError(
      [&] {
        RunOp(MakeOp("Mod", {"a"}, {"c"}, {{"divisor", 0}}), {{"a", a}});
      },
      ErrorKind::kBadArgument, {"Mod", "must not be 0"});
  ExpectError(
      [&] {
        RunOp(MakeOp("Mod", {"a", "b"}, {"c"}),
              {{"a", a}, {"b", MakeTensor<int64_t>({2}, {1, 2})}});
      },
      ErrorKind::kShapeMismatch, {"Mod", "same dtype"});
  ExpectError(
      [&] {
        RunOp(MakeOp("Mod", {"a", "b"}, {"c"}),
              {{"a", MakeTensor<bool>({1}, {true})}, {"b", MakeTensor<bool>({1}, {true})}});
      },
      ErrorKind::kShapeMismatch, {"Mod", "unsupported dtype"});
}

}  // namespace
}  // namespace parity::testing

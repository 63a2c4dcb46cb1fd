// ArgMax and ArgMin against hand-worked indices; X = [[1, 5, 5], [7, 3, 7]].
#include <cmath>
#include <limits>

#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

const std::vector<float> kX = {1, 5, 5, 7, 3, 7};

Tensor Arg(const std::string& type, const std::vector<TestArg>& args, const Tensor& x) {
  auto ws = RunOp(MakeOp(type, {"x"}, {"y"}, args), {{"x", x}});
  Tensor out;
  out.CopyFrom(ws->GetTensor("y"));
  return out;
}

TEST(ArgMax, FirstOfTiesAlongTheLastAxis) {
  const Tensor y = Arg("ArgMax", {}, MakeTensor<float>({2, 3}, kX));
  EXPECT_EQ(y.dtype(), DataType::kInt64);
  EXPECT_EQ(y.dims(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(
      Values<int64_t>(Arg("ArgMax", {{"select_last_index", 1}}, MakeTensor<float>({2, 3}, kX))),
      (std::vector<int64_t>{2, 2}));
}

TEST(ArgMin, AlongAxisZeroWithoutKeepdims) {
  // Column minima 1, 3, 5 at rows 0, 1, 0.
  const Tensor y =
      Arg("ArgMin", {{"axis", 0}, {"keepdims", 0}}, MakeTensor<double>({2, 3}, {1, 5, 5, 7, 3, 7}));
  EXPECT_EQ(y.dims(), (std::vector<int64_t>{3}));
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(Values<int64_t>(Arg("ArgMin", {}, MakeTensor<int32_t>({4}, {4, -2, 9, -2}))),
            (std::vector<int64_t>{1}));
}

TEST(ArgMax, NaNOnlyInFrontAndExactInt64) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(Values<int64_t>(Arg("ArgMax", {}, MakeTensor<float>({3}, {nan, 1, 2}))),
            (std::vector<int64_t>{0}));
  EXPECT_EQ(Values<int64_t>(Arg("ArgMax", {}, MakeTensor<float>({3}, {1, nan, 2}))),
            (std::vector<int64_t>{2}));
  const int64_t big = int64_t{1} << 60;
  EXPECT_EQ(Values<int64_t>(Arg("ArgMax", {}, MakeTensor<int64_t>({2}, {big, big + 1}))),
            (std::vector<int64_t>{1}));
}

TEST(ArgMax, ShapeInferenceAndErrors) {
  const auto out = OpSchemaRegistry::Get("ArgMax").InferShapes(
      MakeOp("ArgMax", {"x"}, {"y"}, {{"axis", 1}, {"keepdims", 0}}),
      {TensorType{DataType::kFloat, {2, 3, 4}}});
  EXPECT_EQ(out[0].dtype, DataType::kInt64);
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 4}));
  ExpectError(
      [] {
        RunOp(MakeOp("ArgMax", {"x"}, {"y"}), {{"x", MakeTensor<float>({2, 0}, {})}});
      },
      ErrorKind::kShapeMismatch, {"ArgMax", "empty"});
  ExpectError(
      [] {
        RunOp(MakeOp("ArgMin", {"x"}, {"y"}), {{"x", MakeTensor<bool>({2}, {true, false})}});
      },
      ErrorKind::kShapeMismatch, {"ArgMin", "bool"});
  ExpectError(
      [] {
        RunOp(MakeOp("ArgMax", {"x"}, {"y"}, {{"axis", 2}}),
              {{"x", MakeTensor<float>({2, 3}, kX)}});
      },
      ErrorKind::kBadArgument, {"ArgMax", "axis"});
}

}  // namespace
}  // namespace parity::testing

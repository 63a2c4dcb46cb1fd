// Reductions against hand-computed values: ReduceSum/Mean/Max/Min/Prod, SumElements, Softmax,
// Hardmax.
#include <cmath>
#include <limits>
#include <numeric>

#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

std::vector<TensorType> Infer(const caffe2::OperatorDef& def, const std::vector<TensorType>& in) {
  return OpSchemaRegistry::Get(def.type()).InferShapes(def, in);
}

// x = [[1, 2, 3], [4, 5, 6]].
Tensor X23() { return MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}); }

TEST(ReduceSum, KeepdimsBothWays) {
  // Row sums 1+2+3 = 6, 4+5+6 = 15.
  auto ws = RunOp(MakeOp("ReduceSum", {"x"}, {"y"}, {{"axes", Ints{1}}}), {{"x", X23()}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 1}, {6, 15});
  ws = RunOp(MakeOp("ReduceSum", {"x"}, {"y"}, {{"axes", Ints{1}}, {"keepdims", 0}}), {{"x", X23()}});
  ExpectTensorNear(ws->GetTensor("y"), {2}, {6, 15});
  // Column sums 5, 7, 9, via a negative axis.
  ws = RunOp(MakeOp("ReduceSum", {"x"}, {"y"}, {{"axes", Ints{-2}}, {"keepdims", 0}}), {{"x", X23()}});
  ExpectTensorNear(ws->GetTensor("y"), {3}, {5, 7, 9});
  // All axes: 21, as [] or [1, 1].
  ws = RunOp(MakeOp("ReduceSum", {"x"}, {"y"}, {{"keepdims", 0}}), {{"x", X23()}});
  ExpectTensorNear(ws->GetTensor("y"), {}, {21});
  ws = RunOp(MakeOp("ReduceSum", {"x"}, {"y"}), {{"x", X23()}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 1}, {21});
}

// A NaN anywhere in a reduced row or column gives NaN (numpy, PyTorch, the reference). Eigen's
// default maxCoeff kept it only where it started a packet accumulator: [1, NaN, 2, 3] gave 2.
TEST(ReduceMaxMin, PropagateNaNWhereverItIs) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const char* type : {"ReduceMax", "ReduceMin"}) {
    for (int64_t len : {4, 5, 9, 17}) {
      for (int64_t at = 0; at < len; ++at) {
        // Rows: [2, len] over axis 1, a NaN at `at` in row 0 only.
        std::vector<float> values(2 * len);
        for (int64_t i = 0; i < 2 * len; ++i) values[i] = static_cast<float>((i * 5) % 7) - 3.0f;
        values[at] = nan;
        auto ws = RunOp(MakeOp(type, {"x"}, {"y"}, {{"axes", Ints{1}}, {"keepdims", 0}}),
                        {{"x", MakeTensor<float>({2, len}, values)}});
        const std::vector<float> y = Values<float>(ws->GetTensor("y"));
        EXPECT_TRUE(std::isnan(y[0])) << type << " row, length " << len << ", NaN at " << at;
        EXPECT_FALSE(std::isnan(y[1])) << type << " row, length " << len << ", NaN at " << at;
        // Columns: [len, 2] over axis 0 (the accumulator pass), the NaN in column 1.
        std::vector<float> columns(2 * len);
        for (int64_t i = 0; i < 2 * len; ++i) columns[i] = static_cast<float>((i * 3) % 5) - 2.0f;
        columns[at * 2 + 1] = nan;
        ws = RunOp(MakeOp(type, {"x"}, {"y"}, {{"axes", Ints{0}}, {"keepdims", 0}}),
                   {{"x", MakeTensor<float>({len, 2}, columns)}});
        const std::vector<float> c = Values<float>(ws->GetTensor("y"));
        EXPECT_FALSE(std::isnan(c[0])) << type << " column, length " << len << ", NaN at " << at;
        EXPECT_TRUE(std::isnan(c[1])) << type << " column, length " << len << ", NaN at " << at;
      }
    }
  }
  // Without a NaN, the plain max and min (row 0 of [[1, 5, -2, 5]]).
  auto ws = RunOp(MakeOp("ReduceMax", {"x"}, {"y"}, {{"keepdims", 0}}),
                  {{"x", MakeTensor<float>({1, 4}, {1, 5, -2, 5})}});
  ExpectTensorNear(ws->GetTensor("y"), {}, {5});
  ws = RunOp(MakeOp("ReduceMin", {"x"}, {"y"}, {{"keepdims", 0}}),
             {{"x", MakeTensor<float>({1, 4}, {1, 5, -2, 5})}});
  ExpectTensorNear(ws->GetTensor("y"), {}, {-2});
}

TEST(ReduceSum, NonAdjacentAxesAndInt) {
  // x[i, j, k] = 6i + 2j + k over [2, 3, 2]; axes {0, 2}: for each j, the sum of
  // 2j + (0 + 1 + 6 + 7) = 8j + 14: 14, 22, 30. Duplicated axes count once.
  std::vector<int64_t> x(12);
  std::iota(x.begin(), x.end(), 0);
  auto ws = RunOp(MakeOp("ReduceSum", {"x"}, {"y"}, {{"axes", Ints{2, 0, -1}}, {"keepdims", 0}}),
                  {{"x", MakeTensor<int64_t>({2, 3, 2}, x)}});
  EXPECT_EQ(ws->GetTensor("y").dims(), (Ints{3}));
  EXPECT_EQ(Values<int64_t>(ws->GetTensor("y")), (std::vector<int64_t>{14, 22, 30}));
}

TEST(ReduceMean, NonAdjacentAxesAndEmpty) {
  // Same sums as above over 4 elements each: 3.5, 5.5, 7.5.
  std::vector<double> x(12);
  std::iota(x.begin(), x.end(), 0.0);
  auto ws = RunOp(MakeOp("ReduceMean", {"x"}, {"y"}, {{"axes", Ints{0, 2}}}),
                  {{"x", MakeTensor<double>({2, 3, 2}, x)}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 3, 1}, {3.5, 5.5, 7.5});
  // Mean over an empty axis is 0/0.
  ws = RunOp(MakeOp("ReduceMean", {"x"}, {"y"}, {{"axes", Ints{1}}}),
             {{"x", MakeTensor<float>({2, 0}, {})}});
  EXPECT_EQ(ws->GetTensor("y").dims(), (Ints{2, 1}));
  for (float v : Values<float>(ws->GetTensor("y"))) EXPECT_TRUE(std::isnan(v));
  ExpectError([] {
    RunOp(MakeOp("ReduceMean", {"x"}, {"y"}), {{"x", MakeTensor<int32_t>({2}, {1, 2})}});
  }, ErrorKind::kShapeMismatch, {"ReduceMean", "int32"});
}

TEST(ReduceProd, OverAxesEmptyAndErrors) {
  // Row products 1*2*3 = 6, 4*5*6 = 120; column products 4, 10, 18; all 720.
  auto ws = RunOp(MakeOp("ReduceProd", {"x"}, {"y"}, {{"axes", Ints{1}}}), {{"x", X23()}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 1}, {6, 120});
  ws = RunOp(MakeOp("ReduceProd", {"x"}, {"y"}, {{"axes", Ints{-2}}, {"keepdims", 0}}),
             {{"x", X23()}});
  ExpectTensorNear(ws->GetTensor("y"), {3}, {4, 10, 18});
  ws = RunOp(MakeOp("ReduceProd", {"x"}, {"y"}, {{"keepdims", 0}}), {{"x", X23()}});
  ExpectTensorNear(ws->GetTensor("y"), {}, {720});
  // The empty product is 1.
  ws = RunOp(MakeOp("ReduceProd", {"x"}, {"y"}, {{"axes", Ints{1}}}),
             {{"x", MakeTensor<double>({2, 0}, {})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 1}, {1, 1});
  ExpectError([] {
    RunOp(MakeOp("ReduceProd", {"x"}, {"y"}), {{"x", MakeTensor<int32_t>({2}, {1, 2})}});
  }, ErrorKind::kShapeMismatch, {"ReduceProd", "int32"});
}

TEST(ReduceProdGradient, ProductOfTheOthersZerosIncluded) {
  // Rows [2, 3, 4] and [0, 5, 0], axes {1}, dY = [1, 2]: row 0 gets 12, 8, 6; row 1 has two
  // zeros, so every product of the others is 0.
  auto ws = RunOp(MakeOp("ReduceProdGradient", {"dy", "x", "y"}, {"dx"}, {{"axes", Ints{1}}}),
                  {{"dy", MakeTensor<float>({2, 1}, {1, 2})},
                   {"x", MakeTensor<float>({2, 3}, {2, 3, 4, 0, 5, 0})},
                   {"y", MakeTensor<float>({2, 1}, {24, 0})}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 3}, {12, 8, 6, 0, 0, 0});
  // One zero: only it gets dY times the others' product (3 * 4 * 2).
  ws = RunOp(MakeOp("ReduceProdGradient", {"dy", "x", "y"}, {"dx"}, {{"keepdims", 0}}),
             {{"dy", MakeTensor<float>({}, {2})},
              {"x", MakeTensor<float>({3}, {3, 0, 4})},
              {"y", MakeTensor<float>({}, {0})}});
  ExpectTensorNear(ws->GetTensor("dx"), {3}, {0, 24, 0});
}

TEST(ReduceMaxMin, TiesAndInts) {
  // Rows [3, 1, 3] and [-2, -2, -5]: max 3 (tied), -2 (tied); min 1, -5.
  auto x = MakeTensor<float>({2, 3}, {3, 1, 3, -2, -2, -5});
  auto ws = RunOp(MakeOp("ReduceMax", {"x"}, {"y"}, {{"axes", Ints{1}}, {"keepdims", 0}}), {{"x", x}});
  ExpectTensorNear(ws->GetTensor("y"), {2}, {3, -2});
  ws = RunOp(MakeOp("ReduceMin", {"x"}, {"y"}, {{"axes", Ints{1}}, {"keepdims", 0}}), {{"x", x}});
  ExpectTensorNear(ws->GetTensor("y"), {2}, {1, -5});
  // Column-wise over int32 [[3, 1, 3], [-2, 7, 3]]: max 3, 7, 3.
  ws = RunOp(MakeOp("ReduceMax", {"x"}, {"y"}, {{"axes", Ints{0}}}),
             {{"x", MakeTensor<int32_t>({2, 3}, {3, 1, 3, -2, 7, 3})}});
  EXPECT_EQ(ws->GetTensor("y").dims(), (Ints{1, 3}));
  EXPECT_EQ(Values<int32_t>(ws->GetTensor("y")), (std::vector<int32_t>{3, 7, 3}));
}

TEST(Reduce, EmptyAndErrors) {
  auto empty = MakeTensor<float>({2, 0}, {});
  auto ws = RunOp(MakeOp("ReduceSum", {"x"}, {"y"}, {{"axes", Ints{1}}}), {{"x", empty}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 1}, {0, 0});
  ws = RunOp(MakeOp("ReduceMax", {"x"}, {"y"}, {{"axes", Ints{0}}}), {{"x", empty}});
  EXPECT_EQ(ws->GetTensor("y").dims(), (Ints{1, 0}));  // Nothing to take the max of, no error.
  // Over the empty axis: the identity of max (min), -inf (+inf); an integer's lowest (highest).
  constexpr float kInf = std::numeric_limits<float>::infinity();
  ws = RunOp(MakeOp("ReduceMax", {"x"}, {"y"}, {{"axes", Ints{1}}}), {{"x", empty}});
  EXPECT_EQ(ws->GetTensor("y").dims(), (Ints{2, 1}));
  EXPECT_EQ(Values<float>(ws->GetTensor("y")), (std::vector<float>{-kInf, -kInf}));
  ws = RunOp(MakeOp("ReduceMin", {"x"}, {"y"}, {{"axes", Ints{1}}, {"keepdims", 0}}),
             {{"x", empty}});
  EXPECT_EQ(Values<float>(ws->GetTensor("y")), (std::vector<float>{kInf, kInf}));
  ws = RunOp(MakeOp("ReduceMax", {"x"}, {"y"}), {{"x", MakeTensor<int32_t>({0, 3}, {})}});
  EXPECT_EQ(Values<int32_t>(ws->GetTensor("y")),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::lowest()}));
  ws = RunOp(MakeOp("ReduceMin", {"x"}, {"y"}), {{"x", MakeTensor<int64_t>({0}, {})}});
  EXPECT_EQ(Values<int64_t>(ws->GetTensor("y")),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::max()}));
  ExpectError([] { RunOp(MakeOp("ReduceSum", {"x"}, {"y"}, {{"axes", Ints{2}}}), {{"x", X23()}}); },
              ErrorKind::kBadArgument, {"ReduceSum", "axes", "[2, 3]"});
  ExpectError([] {
    RunOp(MakeOp("ReduceMin", {"x"}, {"y"}), {{"x", MakeTensor<bool>({1}, {true})}});
  }, ErrorKind::kShapeMismatch, {"ReduceMin", "bool"});
}

TEST(Reduce, ShapeInference) {
  TensorType x{DataType::kFloat, {2, 3, 4}, true};
  EXPECT_EQ(Infer(MakeOp("ReduceMean", {"x"}, {"y"}, {{"axes", Ints{-1, 0}}}), {x})[0].dims,
            (Ints{1, 3, 1}));
  EXPECT_EQ(Infer(MakeOp("ReduceMean", {"x"}, {"y"}, {{"axes", Ints{-1, 0}}, {"keepdims", 0}}),
                  {x})[0].dims,
            (Ints{3}));
  ExpectError([&] { Infer(MakeOp("ReduceMax", {"x"}, {"y"}, {{"axes", Ints{3}}}), {x}); },
              ErrorKind::kBadArgument, {"ReduceMax", "axes"});
}

TEST(SumElements, SumAverageAndScalarOutput) {
  auto ws = RunOp(MakeOp("SumElements", {"x"}, {"y"}), {{"x", MakeTensor<float>({2, 2}, {1, 2, 3, 4})}});
  ExpectTensorNear(ws->GetTensor("y"), {}, {10});
  ws = RunOp(MakeOp("SumElements", {"x"}, {"y"}, {{"average", 1}}),
             {{"x", MakeTensor<float>({2, 2}, {1, 2, 3, 4})}});
  ExpectTensorNear(ws->GetTensor("y"), {}, {2.5});
  ws = RunOp(MakeOp("SumElements", {"x"}, {"y"}), {{"x", MakeTensor<int32_t>({3}, {1, -2, 7})}});
  EXPECT_EQ(Values<int32_t>(ws->GetTensor("y")), (std::vector<int32_t>{6}));
  ws = RunOp(MakeOp("SumElements", {"x"}, {"y"}), {{"x", MakeTensor<float>({0}, {})}});
  ExpectTensorNear(ws->GetTensor("y"), {}, {0});
  ExpectError([] {
    RunOp(MakeOp("SumElements", {"x"}, {"y"}, {{"average", 1}}), {{"x", MakeTensor<int32_t>({1}, {1})}});
  }, ErrorKind::kShapeMismatch, {"SumElements", "average"});
}

TEST(Softmax, RowsAreStable) {
  // Row [1, 2, 3]: exp(x - 3) = e^-2, e^-1, 1 over 1.50321472 -> 0.09003057, 0.24472847,
  // 0.66524096. Row [0, 0, 0]: 1/3 each.
  auto ws = RunOp(MakeOp("Softmax", {"x"}, {"y"}),
                  {{"x", MakeTensor<float>({2, 3}, {1, 2, 3, 0, 0, 0})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 3},
                   {0.09003057, 0.24472847, 0.66524096, 1.0 / 3, 1.0 / 3, 1.0 / 3}, 1e-6);
  // Huge logits: without the max subtraction exp overflows; here 0.5, 0.5.
  ws = RunOp(MakeOp("Softmax", {"x"}, {"y"}, {{"axis", -1}}),
             {{"x", MakeTensor<float>({1, 2}, {1000, 1000})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 2}, {0.5, 0.5});
}

TEST(Softmax, CoercedTo2DAtAxis) {
  // x = log [1, 2, 3, 4] in double. Over everything (axis 0 of [2, 2], or axis 1 of [1, 2, 2]):
  // [1, 2, 3, 4] / 10. Per row of 2 (axis 1 of [2, 2], axis 2 of [1, 2, 2]): [1/3, 2/3, 3/7, 4/7].
  std::vector<double> x{std::log(1.0), std::log(2.0), std::log(3.0), std::log(4.0)};
  const std::vector<double> all{0.1, 0.2, 0.3, 0.4};
  const std::vector<double> rows{1.0 / 3, 2.0 / 3, 3.0 / 7, 4.0 / 7};
  auto ws = RunOp(MakeOp("Softmax", {"x"}, {"y"}, {{"axis", 0}}), {{"x", MakeTensor<double>({2, 2}, x)}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, all, 1e-12);
  ws = RunOp(MakeOp("Softmax", {"x"}, {"y"}), {{"x", MakeTensor<double>({2, 2}, x)}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, rows, 1e-12);
  ws = RunOp(MakeOp("Softmax", {"x"}, {"y"}), {{"x", MakeTensor<double>({1, 2, 2}, x)}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 2, 2}, all, 1e-12);
  ws = RunOp(MakeOp("Softmax", {"x"}, {"y"}, {{"axis", 2}}), {{"x", MakeTensor<double>({1, 2, 2}, x)}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 2, 2}, rows, 1e-12);
}

TEST(Hardmax, FirstMaximumOfEachRow) {
  // Rows of the 2-D view at axis 1: [3, 1, 3] (first of the tied 3s) and [0, 5, 2].
  auto ws = RunOp(MakeOp("Hardmax", {"x"}, {"y"}),
                  {{"x", MakeTensor<float>({2, 3}, {3, 1, 3, 0, 5, 2})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 3}, {1, 0, 0, 0, 1, 0});
  // axis 0: one row of all six; a NaN wins (numpy's argmax).
  ws = RunOp(MakeOp("Hardmax", {"x"}, {"y"}, {{"axis", 0}}),
             {{"x", MakeTensor<double>({2, 3}, {3, 1, 3, 0, 5, 2})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 3}, {0, 0, 0, 0, 1, 0});
  ws = RunOp(MakeOp("Hardmax", {"x"}, {"y"}, {{"axis", -1}}),
             {{"x", MakeTensor<float>({1, 3}, {1, std::nanf(""), 7})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 3}, {0, 1, 0});
  // Rows of no columns: an empty output of the input's dtype.
  ws = RunOp(MakeOp("Hardmax", {"x"}, {"y"}), {{"x", MakeTensor<double>({2, 0}, {})}});
  EXPECT_EQ(ws->GetTensor("y").dtype(), DataType::kDouble);
  EXPECT_EQ(ws->GetTensor("y").dims(), (std::vector<int64_t>{2, 0}));
  ExpectError([] {
    RunOp(MakeOp("Hardmax", {"x"}, {"y"}, {{"axis", 2}}), {{"x", X23()}});
  }, ErrorKind::kBadArgument, {"Hardmax", "axis 2"});
  ExpectError([] {
    RunOp(MakeOp("Hardmax", {"x"}, {"y"}), {{"x", MakeTensor<int32_t>({1, 2}, {1, 2})}});
  }, ErrorKind::kShapeMismatch, {"Hardmax", "float or double"});
}

TEST(Softmax, Errors) {
  ExpectError([] { RunOp(MakeOp("Softmax", {"x"}, {"y"}, {{"axis", 2}}), {{"x", X23()}}); },
              ErrorKind::kBadArgument, {"Softmax", "axis 2", "[2, 3]"});
  ExpectError([] {
    RunOp(MakeOp("Softmax", {"x"}, {"y"}), {{"x", MakeTensor<int32_t>({1, 2}, {1, 2})}});
  }, ErrorKind::kShapeMismatch, {"Softmax", "int32"});
  ExpectError([] {
    Infer(MakeOp("Softmax", {"x"}, {"y"}, {{"axis", -3}}), {{DataType::kFloat, {2, 3}, true}});
  }, ErrorKind::kBadArgument, {"Softmax", "axis -3"});
}

}  // namespace
}  // namespace parity::testing

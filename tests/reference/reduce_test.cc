// Hand-computed values for reductions and normalization (Softmax, SpatialBN, LayerNorm).
#include <cmath>

#include "tests/reference/test_util.h"

namespace parity::reference::testing {
namespace {

TEST(Reduce, SumMeanOverAxes) {
  // [[1,2,3],[4,5,6]]
  const Tensors in = {{"x", F({2, 3}, {1, 2, 3, 4, 5, 6})}};
  auto s = RunOp(Op("ReduceSum", {"x"}, {"y"}).Ints("axes", {1}), in, "y");
  EXPECT_EQ(Dims(s), (std::vector<int64_t>{2, 1}));  // keepdims defaults to 1
  EXPECT_VALUES_NEAR(s, (std::vector<double>{6, 15}), 0);
  auto k = RunOp(Op("ReduceSum", {"x"}, {"y"}).Ints("axes", {-2}).I("keepdims", 0), in, "y");
  EXPECT_EQ(Dims(k), (std::vector<int64_t>{3}));
  EXPECT_VALUES_NEAR(k, (std::vector<double>{5, 7, 9}), 0);
  auto all = RunOp(Op("ReduceSum", {"x"}, {"y"}), in, "y");
  EXPECT_EQ(Dims(all), (std::vector<int64_t>{1, 1}));
  EXPECT_VALUES_NEAR(all, (std::vector<double>{21}), 0);
  auto m = RunOp(Op("ReduceMean", {"x"}, {"y"}).Ints("axes", {0}).I("keepdims", 0), in, "y");
  EXPECT_VALUES_NEAR(m, (std::vector<double>{2.5, 3.5, 4.5}), 0);
  ExpectError([&] { RunOps({Op("ReduceSum", {"x"}, {"y"}).Ints("axes", {2})}, in); },
              ErrorKind::kBadArgument);
}

TEST(Reduce, MaxMinWithTiesAndIntegers) {
  const Tensors in = {{"x", F({2, 2}, {3, 3, 1, 5})}};
  EXPECT_VALUES_NEAR(RunOp(Op("ReduceMax", {"x"}, {"y"}).Ints("axes", {1}), in, "y"),
                     (std::vector<double>{3, 5}), 0);
  EXPECT_VALUES_NEAR(RunOp(Op("ReduceMin", {"x"}, {"y"}).Ints("axes", {1}), in, "y"),
                     (std::vector<double>{3, 1}), 0);
  auto i = RunOp(Op("ReduceMax", {"x"}, {"y"}).I("keepdims", 0),
                 {{"x", I64({3}, {(int64_t{1} << 60) + 1, int64_t{1} << 60, -5})}}, "y");
  EXPECT_EQ(i.data_type(), caffe2::TensorProto::INT64);
  EXPECT_EQ(IntValues(i), (std::vector<int64_t>{(int64_t{1} << 60) + 1}));
}

// X = [[1, 5, 5], [7, 3, 7]].
TEST(Reduce, ArgMaxArgMin) {
  const Tensors in = {{"x", F({2, 3}, {1, 5, 5, 7, 3, 7})}};
  auto first = RunOp(Op("ArgMax", {"x"}, {"y"}), in, "y");  // axis -1, keepdims 1
  EXPECT_EQ(first.data_type(), caffe2::TensorProto::INT64);
  EXPECT_EQ(Dims(first), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(IntValues(first), (std::vector<int64_t>{1, 0}));  // ties: the first
  auto last = RunOp(Op("ArgMax", {"x"}, {"y"}).I("select_last_index", 1), in, "y");
  EXPECT_EQ(IntValues(last), (std::vector<int64_t>{2, 2}));
  // Column minima (1, 3, 5) at rows 0, 1, 0; the axis removed.
  auto min = RunOp(Op("ArgMin", {"x"}, {"y"}).I("axis", 0).I("keepdims", 0), in, "y");
  EXPECT_EQ(Dims(min), (std::vector<int64_t>{3}));
  EXPECT_EQ(IntValues(min), (std::vector<int64_t>{0, 1, 0}));
  // int64 beyond 2^53 compared exactly; NaN wins only in front (Caffe2's loop).
  auto big = RunOp(Op("ArgMax", {"x"}, {"y"}),
                   {{"x", I64({2}, {int64_t{1} << 60, (int64_t{1} << 60) + 1})}}, "y");
  EXPECT_EQ(IntValues(big), (std::vector<int64_t>{1}));
  EXPECT_EQ(IntValues(RunOp(Op("ArgMax", {"x"}, {"y"}), {{"x", F({3}, {NAN, 1, 2})}}, "y")),
            (std::vector<int64_t>{0}));
  EXPECT_EQ(IntValues(RunOp(Op("ArgMax", {"x"}, {"y"}), {{"x", F({3}, {1, NAN, 2})}}, "y")),
            (std::vector<int64_t>{2}));
  ExpectError([&] { RunOps({Op("ArgMax", {"x"}, {"y"})}, {{"x", F({2, 0}, {})}}); },
              ErrorKind::kShapeMismatch);
}

TEST(Reduce, SumElements) {
  const Tensors in = {{"x", F({2, 2}, {1, 2, 3, 4})}};
  auto s = RunOp(Op("SumElements", {"x"}, {"y"}), in, "y");
  EXPECT_TRUE(Dims(s).empty());
  EXPECT_VALUES_NEAR(s, (std::vector<double>{10}), 0);
  EXPECT_VALUES_NEAR(RunOp(Op("SumElements", {"x"}, {"y"}).I("average", 1), in, "y"),
                     (std::vector<double>{2.5}), 0);
}

TEST(Norm, SoftmaxCoercesTo2D) {
  // Rows [0, ln 3] -> [1/4, 3/4]; [1, 1] -> [1/2, 1/2].
  const Tensors in = {{"x", F({2, 2}, {0, std::log(3.0), 1, 1})}};
  for (int64_t axis : {1, -1}) {
    EXPECT_VALUES_NEAR(RunOp(Op("Softmax", {"x"}, {"y"}).I("axis", axis), in, "y"),
                       (std::vector<double>{0.25, 0.75, 0.5, 0.5}), 1e-15);
  }
  // [1, 2, 2] at axis 1 is one row of 4: exp = [1, 3, 1, 1] / 6.
  auto y = RunOp(Op("Softmax", {"x"}, {"y"}), {{"x", F({1, 2, 2}, {0, std::log(3.0), 0, 0})}}, "y");
  EXPECT_EQ(Dims(y), (std::vector<int64_t>{1, 2, 2}));
  EXPECT_VALUES_NEAR(y, (std::vector<double>{1.0 / 6, 0.5, 1.0 / 6, 1.0 / 6}), 1e-15);
  // Large logits do not overflow.
  EXPECT_VALUES_NEAR(RunOp(Op("Softmax", {"x"}, {"y"}), {{"x", F({1, 2}, {1000, 1000})}}, "y"),
                     (std::vector<double>{0.5, 0.5}), 0);
}

TEST(Norm, SpatialBNInference) {
  // Channel 0 holds (1, 2), channel 1 holds (3, 4); eps = 0.
  // c0: (x - 1)/2 * 2 + 0 = (0, 1); c1: (x - 3)/1 * 1 + 1 = (1, 2).
  const Tensors in = {{"x", F({1, 2, 1, 2}, {1, 2, 3, 4})},
                      {"s", F({2}, {2, 1})},
                      {"b", F({2}, {0, 1})},
                      {"m", F({2}, {1, 3})},
                      {"v", F({2}, {4, 1})}};
  auto y = RunOp(Op("SpatialBN", {"x", "s", "b", "m", "v"}, {"y"}).I("is_test", 1).F("epsilon", 0),
                 in, "y");
  EXPECT_VALUES_NEAR(y, (std::vector<double>{0, 1, 1, 2}), 1e-15);
}

TEST(Norm, SpatialBNTraining) {
  // One channel, N = 2, HW = 2: values 1, 2, 3, 4. mean 2.5, biased var 1.25.
  // running_mean = 0.9*0 + 0.1*2.5 = 0.25; running_var = 0.9*1 + 0.1*(4/3)*1.25 = 1.0666...
  const Tensors in = {{"x", F({2, 1, 1, 2}, {1, 2, 3, 4})},
                      {"s", F({1}, {1})},
                      {"b", F({1}, {0})},
                      {"m", F({1}, {0})},
                      {"v", F({1}, {1})}};
  RunResult r = RunOps(
      {Op("SpatialBN", {"x", "s", "b", "m", "v"}, {"y", "m", "v", "sm", "siv"}).F("epsilon", 0)},
      in);
  const double is = 1 / std::sqrt(1.25);
  EXPECT_VALUES_NEAR(r.blobs.at("y"),
                     (std::vector<double>{-1.5 * is, -0.5 * is, 0.5 * is, 1.5 * is}), 1e-12);
  EXPECT_VALUES_NEAR(r.blobs.at("m"), (std::vector<double>{0.25}), 1e-12);
  EXPECT_VALUES_NEAR(r.blobs.at("v"), (std::vector<double>{0.9 + 0.1 * 4.0 / 3.0 * 1.25}), 1e-12);
  EXPECT_VALUES_NEAR(r.blobs.at("sm"), (std::vector<double>{2.5}), 1e-12);
  EXPECT_VALUES_NEAR(r.blobs.at("siv"), (std::vector<double>{is}), 1e-12);
  // Training needs its running stats in place.
  ExpectError(
      [&] {
        RunOps({Op("SpatialBN", {"x", "s", "b", "m", "v"}, {"y", "m2", "v", "sm", "siv"})}, in);
      },
      ErrorKind::kBadArgument);
  ExpectError(
      [&] {
        RunOps({Op("SpatialBN", {"x", "s", "b", "m", "v"}, {"y"}).I("is_test", 1)},
               {{"x", in.at("x")},
                {"s", F({2}, {1, 1})},
                {"b", in.at("b")},
                {"m", in.at("m")},
                {"v", in.at("v")}});
      },
      ErrorKind::kShapeMismatch);
}

TEST(Norm, LayerNorm) {
  // Rows [1, 3] (mean 2, std 1) and [2, 6] (mean 4, std 2) both normalize to [-1, 1].
  RunResult r = RunOps({Op("LayerNorm", {"x"}, {"y", "mean", "std"}).F("epsilon", 0)},
                       {{"x", F({2, 2}, {1, 3, 2, 6})}});
  EXPECT_VALUES_NEAR(r.blobs.at("y"), (std::vector<double>{-1, 1, -1, 1}), 1e-15);
  EXPECT_EQ(Dims(r.blobs.at("mean")), (std::vector<int64_t>{2, 1}));
  EXPECT_VALUES_NEAR(r.blobs.at("mean"), (std::vector<double>{2, 4}), 0);
  EXPECT_VALUES_NEAR(r.blobs.at("std"), (std::vector<double>{1, 2}), 1e-15);
  // axis 0 normalizes everything: mean 3, var (4+0+1+9)/4 = 3.5.
  RunResult a = RunOps({Op("LayerNorm", {"x"}, {"y", "mean", "std"}).I("axis", 0).F("epsilon", 0)},
                       {{"x", F({2, 2}, {1, 3, 2, 6})}});
  EXPECT_EQ(Dims(a.blobs.at("mean")), (std::vector<int64_t>{1}));
  EXPECT_VALUES_NEAR(a.blobs.at("std"), (std::vector<double>{std::sqrt(3.5)}), 1e-15);
}

}  // namespace
}  // namespace parity::reference::testing

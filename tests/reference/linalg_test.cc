// Hand-computed values for FC, FCTransposed, FCRelu, MatMul, BatchMatMul.
#include <cmath>

#include "tests/reference/test_util.h"

namespace parity::reference::testing {
namespace {

// X = [[1,2,3],[4,5,6]], W = [[1,0,1],[0,1,0]], b = [10, 20]
// Y = X W^T + b = [[1+3+10, 2+20], [4+6+10, 5+20]] = [[14, 22], [20, 25]].
TEST(Linalg, FC) {
  const Tensors in = {{"x", F({2, 3}, {1, 2, 3, 4, 5, 6})},
                      {"w", F({2, 3}, {1, 0, 1, 0, 1, 0})},
                      {"b", F({2}, {10, 20})}};
  auto y = RunOp(Op("FC", {"x", "w", "b"}, {"y"}), in, "y");
  EXPECT_EQ(Dims(y), (std::vector<int64_t>{2, 2}));
  EXPECT_VALUES_NEAR(y, (std::vector<double>{14, 22, 20, 25}), 0);
  // axis=2 on a [1, 2, 3] input keeps the leading dims.
  auto y3 =
      RunOp(Op("FC", {"x", "w", "b"}, {"y"}).I("axis", 2),
            {{"x", F({1, 2, 3}, {1, 2, 3, 4, 5, 6})}, {"w", in.at("w")}, {"b", in.at("b")}}, "y");
  EXPECT_EQ(Dims(y3), (std::vector<int64_t>{1, 2, 2}));
  EXPECT_VALUES_NEAR(y3, (std::vector<double>{14, 22, 20, 25}), 0);
  // Negative axis: -1 of a [2, 3] input is axis 1.
  EXPECT_VALUES_NEAR(RunOp(Op("FC", {"x", "w", "b"}, {"y"}).I("axis", -1), in, "y"),
                     (std::vector<double>{14, 22, 20, 25}), 0);
  // W^T stored K x N.
  auto t = RunOp(Op("FCTransposed", {"x", "w", "b"}, {"y"}),
                 {{"x", in.at("x")}, {"w", F({3, 2}, {1, 0, 0, 1, 1, 0})}, {"b", in.at("b")}}, "y");
  EXPECT_VALUES_NEAR(t, (std::vector<double>{14, 22, 20, 25}), 0);
  ExpectError(
      [&] {
        RunOps({Op("FC", {"x", "w", "b"}, {"y"})},
               {{"x", in.at("x")}, {"w", F({2, 4}, {0, 0, 0, 0, 0, 0, 0, 0})}, {"b", in.at("b")}});
      },
      ErrorKind::kShapeMismatch);
  ExpectError(
      [&] {
        RunOps({Op("FC", {"x", "w", "b"}, {"y"})},
               {{"x", in.at("x")}, {"w", in.at("w")}, {"b", F({3}, {0, 0, 0})}});
      },
      ErrorKind::kShapeMismatch);
}

// X = [[1,2,3],[4,5,6]], W = [[1,0,-1],[0,1,0]]: X W^T = [[-2, 2], [-2, 5]]. FCRelu adds b and
// clamps the negatives: b = [1, -6] gives [[-1, -4], [-1, -1]], all clamped; b = [5, -4] gives
// [[3, -2], [3, 1]] -> [[3, 0], [3, 1]]. NaN stays NaN (NaN * 0 is NaN in the sums too).
TEST(Linalg, FCRelu) {
  const Tensors in = {{"x", F({2, 3}, {1, 2, 3, 4, 5, 6})},
                      {"w", F({2, 3}, {1, 0, -1, 0, 1, 0})},
                      {"b", F({2}, {1, -6})}};
  auto y = RunOp(Op("FCRelu", {"x", "w", "b"}, {"y"}), in, "y");
  EXPECT_EQ(Dims(y), (std::vector<int64_t>{2, 2}));
  EXPECT_VALUES_NEAR(y, (std::vector<double>{0, 0, 0, 0}), 0);
  // axis 2 on X [1, 2, 3] keeps the leading dims.
  auto m = RunOp(
      Op("FCRelu", {"x", "w", "b"}, {"y"}).I("axis", 2),
      {{"x", F({1, 2, 3}, {1, 2, 3, 4, 5, 6})}, {"w", in.at("w")}, {"b", F({2}, {5, -4})}}, "y");
  EXPECT_EQ(Dims(m), (std::vector<int64_t>{1, 2, 2}));
  EXPECT_VALUES_NEAR(m, (std::vector<double>{3, 0, 3, 1}), 0);
  // f32 precision runs the same kernel.
  RunResult f32 =
      RunOps({Op("FCRelu", {"x", "w", "b"}, {"y"})},
             {{"x", in.at("x")}, {"w", in.at("w")}, {"b", F({2}, {5, -4})}}, Precision::kF32);
  EXPECT_VALUES_NEAR(f32.blobs.at("y"), (std::vector<double>{3, 0, 3, 1}), 0);
  auto nan =
      RunOp(Op("FCRelu", {"x", "w", "b"}, {"y"}),
            {{"x", F({1, 3}, {std::nan(""), 0, 0})}, {"w", in.at("w")}, {"b", in.at("b")}}, "y");
  const std::vector<double> v = Values(nan);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_TRUE(std::isnan(v[1]));
  // FC's checks.
  ExpectError(
      [&] {
        RunOps({Op("FCRelu", {"x", "w", "b"}, {"y"})},
               {{"x", in.at("x")}, {"w", in.at("w")}, {"b", F({3}, {0, 0, 0})}});
      },
      ErrorKind::kShapeMismatch);
  ExpectError(
      [&] {
        RunOps({Op("FCRelu", {"x", "w", "b"}, {"y"})},
               {{"x", in.at("x")}, {"w", F({2, 2}, {0, 0, 0, 0})}, {"b", in.at("b")}});
      },
      ErrorKind::kShapeMismatch);
}

// A = [[1,2],[3,4]], B = [[5,6],[7,8]]: AB = [[19,22],[43,50]], A^T B = [[26,30],[38,44]],
// A B^T = [[17,23],[39,53]].
TEST(Linalg, MatMul) {
  const Tensors in = {{"a", F({2, 2}, {1, 2, 3, 4})}, {"b", F({2, 2}, {5, 6, 7, 8})}};
  EXPECT_VALUES_NEAR(RunOp(Op("MatMul", {"a", "b"}, {"y"}), in, "y"),
                     (std::vector<double>{19, 22, 43, 50}), 0);
  EXPECT_VALUES_NEAR(RunOp(Op("MatMul", {"a", "b"}, {"y"}).I("trans_a", 1), in, "y"),
                     (std::vector<double>{26, 30, 38, 44}), 0);
  EXPECT_VALUES_NEAR(RunOp(Op("MatMul", {"a", "b"}, {"y"}).I("trans_b", 1), in, "y"),
                     (std::vector<double>{17, 23, 39, 53}), 0);
  ExpectError(
      [] {
        RunOps({Op("MatMul", {"a", "b"}, {"y"})},
               {{"a", F({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", F({2, 2}, {1, 2, 3, 4})}});
      },
      ErrorKind::kShapeMismatch);
}

TEST(Linalg, BatchMatMul) {
  // Batch 0: [1,2] . [1,1]^T = 3; batch 1: [3,4] . [2,0]^T = 6.
  auto y = RunOp(Op("BatchMatMul", {"a", "b"}, {"y"}),
                 {{"a", F({2, 1, 2}, {1, 2, 3, 4})}, {"b", F({2, 2, 1}, {1, 1, 2, 0})}}, "y");
  EXPECT_EQ(Dims(y), (std::vector<int64_t>{2, 1, 1}));
  EXPECT_VALUES_NEAR(y, (std::vector<double>{3, 6}), 0);
  // Broadcast of a 2-D B over A's batch: [1,2].[1,1] = 3, [3,4].[1,1] = 7.
  const Tensors bc = {{"a", F({2, 1, 2}, {1, 2, 3, 4})}, {"b", F({2, 1}, {1, 1})}};
  auto z = RunOp(Op("BatchMatMul", {"a", "b"}, {"y"}).I("broadcast", 1), bc, "y");
  EXPECT_EQ(Dims(z), (std::vector<int64_t>{2, 1, 1}));
  EXPECT_VALUES_NEAR(z, (std::vector<double>{3, 7}), 0);
  ExpectError(
      [&] {
        RunOps({Op("BatchMatMul", {"a", "b"}, {"y"})}, bc);
      },
      ErrorKind::kShapeMismatch);
  // Two vectors: a [1] dot product.
  auto d = RunOp(Op("BatchMatMul", {"a", "b"}, {"y"}).I("broadcast", 1),
                 {{"a", F({2}, {1, 2})}, {"b", F({2}, {3, 4})}}, "y");
  EXPECT_EQ(Dims(d), (std::vector<int64_t>{1}));
  EXPECT_VALUES_NEAR(d, (std::vector<double>{11}), 0);
  // trans_a on [1, 2, 1]: A^T = [[5, 6]] times B = [[1],[2]] = 17.
  auto t = RunOp(Op("BatchMatMul", {"a", "b"}, {"y"}).I("trans_a", 1),
                 {{"a", F({1, 2, 1}, {5, 6})}, {"b", F({1, 2, 1}, {1, 2})}}, "y");
  EXPECT_VALUES_NEAR(t, (std::vector<double>{17}), 0);
}

// Trilu on [[1, 2, 3], [4, 5, 6]]: upper k = 1 keeps (0, 1), (0, 2), (1, 2).
TEST(Linalg, TriluKeepsATriangle) {
  const Tensors in = {{"x", F({2, 3}, {1, 2, 3, 4, 5, 6})}};
  EXPECT_VALUES_NEAR(RunOp(Op("Trilu", {"x"}, {"y"}).I("k", 1), in, "y"),
                     (std::vector<double>{0, 2, 3, 0, 0, 6}), 0);
  EXPECT_VALUES_NEAR(RunOp(Op("Trilu", {"x"}, {"y"}).I("upper", 0), in, "y"),
                     (std::vector<double>{1, 0, 0, 4, 5, 0}), 0);
}

}  // namespace
}  // namespace parity::reference::testing

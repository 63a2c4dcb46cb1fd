// The reference's Dropout and DropoutGrad: test mode exactly, training mode by its relation to its
// own mask and statistically (its generator is not production's), DropoutGrad exactly.
#include <cmath>

#include "tests/reference/test_util.h"

namespace parity::reference::testing {
namespace {

TEST(Dropout, TestModeIsTheIdentityWithAnAllTrueMask) {
  RunResult r = RunOps({Op("Dropout", {"x"}, {"y", "m"}).I("is_test", 1).F("ratio", 0.9f)},
                       {{"x", F({2, 2}, {1, -2, 3.5, 0})}});
  EXPECT_VALUES_NEAR(r.blobs.at("y"), (std::vector<double>{1, -2, 3.5, 0}), 0);
  EXPECT_EQ(r.blobs.at("m").data_type(), caffe2::TensorProto::BOOL);
  EXPECT_EQ(Dims(r.blobs.at("m")), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(IntValues(r.blobs.at("m")), (std::vector<int64_t>{1, 1, 1, 1}));
  // In place, one output.
  auto y = RunOp(Op("Dropout", {"x"}, {"x"}).I("is_test", 1), {{"x", F({2}, {4, 5})}}, "x");
  EXPECT_VALUES_NEAR(y, (std::vector<double>{4, 5}), 0);
}

TEST(Dropout, TrainingKeepsWhatItsMaskSaysScaledAndDropsTheRest) {
  const int n = 20000;
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) x[i] = 1 + (i % 7);
  RunResult r = RunOps({Op("Dropout", {"x"}, {"y", "m"}).F("ratio", 0.25f)}, {{"x", F({n}, x)}});
  const std::vector<double> y = Values(r.blobs.at("y"));
  const std::vector<int64_t> m = IntValues(r.blobs.at("m"));
  int64_t kept = 0;
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(y[i], m[i] ? x[i] / 0.75 : 0.0) << i;
    kept += m[i];
  }
  EXPECT_NEAR(static_cast<double>(kept) / n, 0.75, 5 * std::sqrt(0.1875 / n));
  // Ratio 0 keeps every element.
  r = RunOps({Op("Dropout", {"x"}, {"y", "m"}).F("ratio", 0.0f)}, {{"x", F({3}, {1, 2, 3})}});
  EXPECT_VALUES_NEAR(r.blobs.at("y"), (std::vector<double>{1, 2, 3}), 0);
  EXPECT_EQ(IntValues(r.blobs.at("m")), (std::vector<int64_t>{1, 1, 1}));
}

TEST(DropoutGrad, ScalesWhereTheMaskKeeps) {
  const Tensors in = {{"dy", F({2, 2}, {1, 2, -3, 0.5})}, {"m", Bool({4}, {1, 0, 1, 1})}};
  auto dx = RunOp(Op("DropoutGrad", {"dy", "m"}, {"dx"}).F("ratio", 0.75f), in, "dx");
  EXPECT_VALUES_NEAR(dx, (std::vector<double>{4, 0, -12, 2}), 1e-12);
  dx = RunOp(Op("DropoutGrad", {"dy", "m"}, {"dy"}), in, "dy");  // default ratio 0.5, in place
  EXPECT_VALUES_NEAR(dx, (std::vector<double>{2, 0, -6, 1}), 0);
  dx = RunOp(Op("DropoutGrad", {"dy"}, {"dx"}).I("is_test", 1), in, "dx");
  EXPECT_VALUES_NEAR(dx, (std::vector<double>{1, 2, -3, 0.5}), 0);
  // A dropped inf is inf * 0 = NaN (Caffe2 multiplies by the mask).
  dx = RunOp(Op("DropoutGrad", {"dy", "m"}, {"dx"}),
             {{"dy", F({2}, {INFINITY, INFINITY})}, {"m", Bool({2}, {1, 0})}}, "dx");
  EXPECT_TRUE(std::isinf(Values(dx)[0]));
  EXPECT_TRUE(std::isnan(Values(dx)[1]));
}

TEST(Dropout, ArgumentChecks) {
  const Tensors in = {{"x", F({2}, {1, 2})}};
  ExpectError(
      [&] {
        RunOps({Op("Dropout", {"x"}, {"y", "m"}).F("ratio", 1.0f)}, in);
      },
      ErrorKind::kBadArgument);
  ExpectError(
      [&] {
        RunOps({Op("Dropout", {"x"}, {"y", "m"}).F("ratio", -0.5f)}, in);
      },
      ErrorKind::kBadArgument);
  ExpectError([&] { RunOps({Op("Dropout", {"x"}, {"y"})}, in); }, ErrorKind::kBadArgument);
  ExpectError([&] { RunOps({Op("DropoutGrad", {"x"}, {"dx"})}, in); }, ErrorKind::kBadArgument);
  ExpectError(
      [&] {
        RunOps({Op("DropoutGrad", {"x", "x"}, {"dx"})}, in);
      },
      ErrorKind::kShapeMismatch);
  ExpectError(
      [&] {
        RunOps({Op("DropoutGrad", {"x", "m"}, {"dx"})},
               {{"x", F({2}, {1, 2})}, {"m", Bool({3}, {1, 1, 1})}});
      },
      ErrorKind::kShapeMismatch);
}

}  // namespace
}  // namespace parity::reference::testing

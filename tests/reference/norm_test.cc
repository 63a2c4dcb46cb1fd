// The reference's LRN and LRNGradient against hand-computed values and central differences.
#include <cmath>

#include "tests/reference/test_util.h"

namespace parity::reference::testing {
namespace {

Op Lrn(int64_t size, float alpha, float beta) {
  return Op("LRN", {"x"}, {"y", "s"}).I("size", size).F("alpha", alpha).F("beta", beta);
}

// X (1, 2, 3) over channels, alpha 3 and size 3 (alpha / size = 1), beta 0.5, bias 1: windows
// {0, 1}, {0, 1, 2}, {1, 2}, scale (6, 15, 14), Y = X / sqrt(scale).
TEST(LRN, ClippedWindowsDividedBySize) {
  RunResult r = RunOps({Lrn(3, 3, 0.5f)}, {{"x", F({1, 3, 1, 1}, {1, 2, 3})}});
  EXPECT_VALUES_NEAR(
      r.blobs.at("y"),
      (std::vector<double>{1 / std::sqrt(6.0), 2 / std::sqrt(15.0), 3 / std::sqrt(14.0)}), 1e-12);
  EXPECT_VALUES_NEAR(r.blobs.at("s"), (std::vector<double>{6, 15, 14}), 1e-12);
  // NHWC; size 5 covers all channels: scale 1 + 3/5 * 14 = 9.4. Bias 2, size 1, beta 1:
  // scale 2 + 0.5 x^2.
  r = RunOps({Lrn(5, 3, 0.5f).S("order", "NHWC")}, {{"x", F({1, 1, 1, 3}, {1, 2, 3})}});
  const double k = 1 / std::sqrt(9.4);
  EXPECT_VALUES_NEAR(r.blobs.at("y"), (std::vector<double>{k, 2 * k, 3 * k}), 1e-12);
  r = RunOps({Lrn(1, 0.5f, 1).F("bias", 2)}, {{"x", F({1, 2, 1, 2}, {1, 2, -2, 0})}});
  EXPECT_VALUES_NEAR(r.blobs.at("y"), (std::vector<double>{0.4, 0.5, -0.5, 0}), 1e-12);
}

TEST(LRN, GradientByHandAndByFiniteDifferences) {
  // size 1, x = 1, alpha 3, beta 0.5, bias 1: dy/dx = 4^-0.5 - 3 * 4^-1.5 = 0.125; dY = 2.
  auto dx = RunOp(
      Op("LRNGradient", {"x", "y", "dy"}, {"dx"}).I("size", 1).F("alpha", 3).F("beta", 0.5f),
      {{"x", F({1, 1, 1, 1}, {1})}, {"y", F({1, 1, 1, 1}, {0.5})}, {"dy", F({1, 1, 1, 1}, {2})}},
      "dx");
  EXPECT_VALUES_NEAR(dx, (std::vector<double>{0.25}), 1e-12);
  for (const char* order : {"NCHW", "NHWC"}) {
    const std::vector<int64_t> dims = {2, 4, 1, 3};
    std::vector<double> x(24), dy(24);
    for (int i = 0; i < 24; ++i) {
      x[i] = std::sin(1.3 * i + 0.2);
      dy[i] = std::cos(0.7 * i);
    }
    const Op lrn = Lrn(3, 2, 0.75f).F("bias", 0.5f).S("order", order);
    auto forward = [&](const std::vector<double>& v) {
      return Values(RunOp(lrn, {{"x", F(dims, v)}}, "y"));
    };
    const std::vector<double> y = forward(x);
    const std::vector<double> g =
        Values(RunOp(Op("LRNGradient", {"x", "y", "dy"}, {"dx"})
                         .I("size", 3)
                         .F("alpha", 2)
                         .F("beta", 0.75f)
                         .F("bias", 0.5f)
                         .S("order", order),
                     {{"x", F(dims, x)}, {"y", F(dims, y)}, {"dy", F(dims, dy)}}, "dx"));
    for (int i = 0; i < 24; ++i) {
      std::vector<double> up = x, down = x;
      up[i] += 1e-6;
      down[i] -= 1e-6;
      const std::vector<double> yu = forward(up), yd = forward(down);
      double fd = 0;
      for (int j = 0; j < 24; ++j) fd += dy[j] * (yu[j] - yd[j]) / 2e-6;
      EXPECT_NEAR(g[i], fd, 1e-7) << order << " element " << i;
    }
  }
}

TEST(LRN, ArgumentChecks) {
  const Tensors in = {{"x", F({1, 2, 1, 1}, {1, 2})}};
  ExpectError([&] { RunOps({Lrn(4, 1, 1)}, in); }, ErrorKind::kBadArgument);
  ExpectError([&] { RunOps({Lrn(0, 1, 1)}, in); }, ErrorKind::kBadArgument);
  ExpectError([&] { RunOps({Lrn(3, 0, 1)}, in); }, ErrorKind::kBadArgument);
  ExpectError([&] { RunOps({Lrn(3, 1, 0)}, in); }, ErrorKind::kBadArgument);
  ExpectError([&] { RunOps({Op("LRN", {"x"}, {"y"}).I("size", 3).F("beta", 1)}, in); },
              ErrorKind::kBadArgument);  // alpha's default 0
  ExpectError(
      [&] {
        RunOps({Lrn(3, 1, 1)}, {{"x", F({2, 1}, {1, 2})}});
      },
      ErrorKind::kShapeMismatch);
}

}  // namespace
}  // namespace parity::reference::testing

// The 8-wide exp (core/ops/common/avx2_exp.h) that Exp and Softmax take on CPUs with AVX2 + FMA:
// within 2 ulp of the correctly rounded e^x over the float range, the subnormal results, the
// overflow and underflow edges and NaN; Exp and Softmax through their operators against f64.
// On a CPU without AVX2 + FMA the path is never taken and the test says so and skips.
#include "core/ops/common/avx2_exp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "tests/test_util.h"

namespace parity::testing {
namespace {

int64_t UlpDistance(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  if (ia < 0) ia = std::numeric_limits<int32_t>::min() - ia;  // order negative floats too
  if (ib < 0) ib = std::numeric_limits<int32_t>::min() - ib;
  return std::llabs(static_cast<int64_t>(ia) - ib);
}

#ifdef PARITY_AVX2_EXP
TEST(Avx2Exp, WithinTwoUlpOverTheRangeWithItsEdges) {
  if (!UseAvx2Fma()) GTEST_SKIP() << "no AVX2 + FMA on this CPU: the path is not taken";
  std::vector<float> x;
  for (int i = 0; i <= 200000; ++i) x.push_back(-110.0f + 0.001f * static_cast<float>(i));
  const float specials[] = {88.72283935546875f,  // > ln(FLT_MAX): +inf
                            88.7228317f,         // just below: the largest finite results
                            -87.3365479f,        // FLT_MIN, the smallest normal
                            -103.27893f,         // FLT_TRUE_MIN, the smallest subnormal
                            -104.0f, -104.5f, 0.0f, -0.0f, 1e-30f, -1e-30f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN()};
  x.insert(x.end(), std::begin(specials), std::end(specials));
  std::vector<float> y(x.size());
  ExpAvx2(x.data(), y.data(), static_cast<int64_t>(x.size()));  // odd size: the padded tail too
  int64_t worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = static_cast<float>(std::exp(static_cast<double>(x[i])));
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(y[i]));
    } else if (std::isinf(want) || want == 0.0f) {
      // At the edges the last multiply may round to the neighbour of inf / 0 only within 1 ulp.
      EXPECT_LE(UlpDistance(y[i], want), 1) << "x = " << x[i] << ": " << y[i] << " vs " << want;
    } else if (want < std::numeric_limits<float>::min()) {
      // Subnormal results: the spacing is absolute, one rounding of an accurate product.
      EXPECT_LE(std::fabs(y[i] - want), 2 * std::numeric_limits<float>::denorm_min())
          << "x = " << x[i];
    } else {
      worst = std::max(worst, UlpDistance(y[i], want));
      ASSERT_LE(UlpDistance(y[i], want), 2) << "x = " << x[i] << ": " << y[i] << " vs " << want;
    }
  }
  EXPECT_EQ(y[y.size() - 13], std::numeric_limits<float>::infinity());
  EXPECT_GT(y[y.size() - 12], 3.4e38f);
  EXPECT_TRUE(std::isfinite(y[y.size() - 12]));
  EXPECT_EQ(y[y.size() - 9], 0.0f);  // -104
  EXPECT_EQ(y[y.size() - 7], 1.0f);  // e^0
  EXPECT_EQ(y[y.size() - 3], std::numeric_limits<float>::infinity());
  EXPECT_EQ(y[y.size() - 2], 0.0f);
  EXPECT_LE(worst, 2);
}

TEST(Avx2Exp, ExpAndSoftmaxOperatorsAgreeWithDouble) {
  if (!UseAvx2Fma()) GTEST_SKIP() << "no AVX2 + FMA on this CPU: the path is not taken";
  // Exp: 1 + 8k + 7 elements, so the main loop and the padded tail both run.
  std::vector<float> x;
  for (int i = 0; i < 8 * 9 + 7; ++i) x.push_back(-30.0f + 0.77f * static_cast<float>(i));
  auto ws = RunOp(MakeOp("Exp", {"x"}, {"y"}),
                  {{"x", MakeTensor<float>({static_cast<int64_t>(x.size())}, x)}});
  const float* y = ws->GetTensor("y").data<float>();
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_LE(UlpDistance(y[i], static_cast<float>(std::exp(static_cast<double>(x[i])))), 2);
  }
  // Softmax over rows of 3, 8, 9 and 23 (below, at and past the 8-wide block), logits to 1e3.
  for (int64_t d : {3, 8, 9, 23}) {
    std::vector<float> logits;
    for (int64_t r = 0; r < 4; ++r) {
      for (int64_t j = 0; j < d; ++j) logits.push_back(static_cast<float>((j * 37 + r * 11) % 41) * 25.0f - 500.0f);
    }
    ws = RunOp(MakeOp("Softmax", {"x"}, {"y"}), {{"x", MakeTensor<float>({4, d}, logits)}});
    const float* p = ws->GetTensor("y").data<float>();
    for (int64_t r = 0; r < 4; ++r) {
      double max = -1e300, sum = 0;
      for (int64_t j = 0; j < d; ++j) max = std::max<double>(max, logits[r * d + j]);
      for (int64_t j = 0; j < d; ++j) sum += std::exp(logits[r * d + j] - max);
      for (int64_t j = 0; j < d; ++j) {
        const double want = std::exp(logits[r * d + j] - max) / sum;
        EXPECT_NEAR(p[r * d + j], want, 4e-7 * want + 1e-30) << "row " << r << " of " << d;
      }
    }
  }
}
#else
TEST(Avx2Exp, NotBuiltHere) { GTEST_SKIP() << "not x86-64 with GCC or clang: no AVX2 path"; }
#endif

}  // namespace
}  // namespace parity::testing

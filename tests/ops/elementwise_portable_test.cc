// The portable (SSE2 / Eigen packet) paths of Sigmoid and Relu, which CPUs with AVX2 + FMA
// otherwise skip: PARITY_NO_AVX2 is set before any op runs in this binary.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "tests/test_util.h"

namespace parity::testing {
namespace {

const bool kForcePortable = [] { return setenv("PARITY_NO_AVX2", "1", 1) == 0; }();

TEST(PortableSigmoid, WithinFourUlpAndSpecialValues) {
  ASSERT_TRUE(kForcePortable);
  // 16003 elements: a sweep of [-80, 80] plus NaN and +-inf, so the scalar tail runs too.
  std::vector<float> x;
  for (int i = 0; i <= 16000; ++i) x.push_back(-80.0f + 0.01f * static_cast<float>(i));
  x.push_back(std::numeric_limits<float>::quiet_NaN());
  x.push_back(std::numeric_limits<float>::infinity());
  auto ws = RunOp(MakeOp("Sigmoid", {"x"}, {"y"}),
                  {{"x", MakeTensor<float>({static_cast<int64_t>(x.size())}, x)}});
  const float* y = ws->GetTensor("y").data<float>();
  int worst = 0;
  for (int i = 0; i <= 16000; ++i) {
    float want = static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(x[i]))));
    int32_t a, b;
    std::memcpy(&a, &y[i], 4);
    std::memcpy(&b, &want, 4);
    worst = std::max(worst, std::abs(a - b));
  }
  EXPECT_LE(worst, 4);
  EXPECT_TRUE(std::isnan(y[16001]));
  EXPECT_EQ(y[16002], 1.0f);
  // Hand-computed: sigma(1) = 0.7310585786, sigma(-20) = 2.0611536182e-9.
  ws = RunOp(MakeOp("Sigmoid", {"x"}, {"y"}), {{"x", MakeTensor<float>({2}, {1, -20})}});
  ExpectTensorNear(ws->GetTensor("y"), {2}, {0.7310585786, 2.0611536182e-9}, 0, 1e-6);
}

TEST(PortableRelu, SelectsLikeTheDefinitionOnEveryLength) {
  ASSERT_TRUE(kForcePortable);
  const float specials[] = {-1.5f, 2.0f, -0.0f, 0.0f, std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::infinity(), 1e-40f, -1e-40f, 7.0f};
  for (int n = 1; n <= 21; ++n) {  // SSE2's 4-wide loop and every tail length
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i) x[i] = specials[(i * 7 + n) % 9];
    auto ws = RunOp(MakeOp("Relu", {"x"}, {"y"}), {{"x", MakeTensor<float>({n}, x)}});
    const float* y = ws->GetTensor("y").data<float>();
    for (int i = 0; i < n; ++i) {
      if (std::isnan(x[i])) {
        EXPECT_TRUE(std::isnan(y[i]));
        continue;
      }
      const float want = x[i] > 0 ? x[i] : 0.0f;  // +0 for -0 and negatives
      EXPECT_EQ(std::memcmp(&y[i], &want, sizeof(float)), 0) << "relu(" << x[i] << ") = " << y[i];
    }
  }
}

}  // namespace
}  // namespace parity::testing

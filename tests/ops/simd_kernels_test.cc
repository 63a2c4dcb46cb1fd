// The direct float kernels (core/ops/common/simd_kernels.h) that Relu, FCRelu / ConvRelu, the
// float Add / Sub / Mul / Div and row sums take: bit for bit against one-element-at-a-time float
// arithmetic (Relu, the arithmetic ops), within the summation bound of the exact sum (RowSum),
// over every length through the 16- and 32-wide loops and their tails, at unaligned starts, with
// the special values. tests/ops/elementwise_portable_test.cc checks the same through the ops with
// the AVX2 paths switched off.
#include "core/ops/common/simd_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "tests/test_util.h"

namespace parity::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

bool SameBits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

// Random values with the special ones sprinkled in.
std::vector<float> RandomValues(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> uniform(-4.0f, 4.0f);
  const float specials[] = {0.0f, -0.0f, kInf, -kInf, kNaN, 1e-40f, -1e-40f, 3.0f, -3.0f};
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = (gen() % 5 == 0) ? specials[gen() % 9] : uniform(gen);
  return v;
}

TEST(SimdRelu, EveryLengthAndStartMatchesTheDefinitionBitForBit) {
  for (int64_t start = 0; start < 3; ++start) {
    for (int64_t n = 0; n <= 70; ++n) {
      const std::vector<float> x = RandomValues(start + n, static_cast<uint32_t>(100 * start + n));
      std::vector<float> y(start + n, 7.0f);
      simd::Relu(x.data() + start, y.data() + start, n);
      for (int64_t i = 0; i < n; ++i) {
        const float v = x[start + i];
        // The definition: v where v > 0 or NaN, else +0 (also for -0 and negatives).
        const float want = (v > 0 || std::isnan(v)) ? v : 0.0f;
        ASSERT_TRUE(SameBits(y[start + i], want) || (std::isnan(want) && std::isnan(y[start + i])))
            << "n = " << n << ", i = " << i << ": relu(" << v << ") = " << y[start + i];
      }
      for (int64_t i = 0; i < start; ++i) ASSERT_EQ(y[i], 7.0f) << "wrote before the range";
    }
  }
}

TEST(SimdRelu, InPlace) {
  std::vector<float> x = {-1.0f, 2.0f, -0.0f, kNaN, -kInf, kInf, 0.5f, -0.5f, 9.0f};
  simd::Relu(x.data(), x.data(), static_cast<int64_t>(x.size()));
  const std::vector<float> want = {0, 2, 0, kNaN, 0, kInf, 0.5f, 0, 9};
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(x[i]));
    } else {
      EXPECT_TRUE(SameBits(x[i], want[i])) << i << ": " << x[i];  // -0 became +0
    }
  }
}

float ApplyScalar(simd::BinaryKind kind, float a, float b) {
  switch (kind) {
    case simd::BinaryKind::kAdd:
      return a + b;
    case simd::BinaryKind::kSub:
      return a - b;
    case simd::BinaryKind::kMul:
      return a * b;
    case simd::BinaryKind::kDiv:
      return a / b;
  }
  return 0;
}

TEST(SimdBinary, EveryKindPatternAndLengthMatchesScalarFloatBitForBit) {
  const simd::BinaryKind kinds[] = {simd::BinaryKind::kAdd, simd::BinaryKind::kSub,
                                    simd::BinaryKind::kMul, simd::BinaryKind::kDiv};
  for (simd::BinaryKind kind : kinds) {
    for (int pattern = 0; pattern < 4; ++pattern) {
      const bool a_vector = pattern & 1;
      const bool b_vector = pattern & 2;
      for (int64_t n = 0; n <= 70; ++n) {
        const int64_t start = n % 3;  // unaligned starts too
        const std::vector<float> a = RandomValues(start + n + 1, static_cast<uint32_t>(n));
        const std::vector<float> b = RandomValues(start + n + 1, static_cast<uint32_t>(n + 1000));
        std::vector<float> out(start + n + 1, 7.0f);
        simd::Binary(kind, a.data() + start, a_vector, b.data() + start, b_vector,
                     out.data() + start, n);
        for (int64_t i = 0; i < n; ++i) {
          const float x = a[start + (a_vector ? i : 0)];
          const float y = b[start + (b_vector ? i : 0)];
          const float want = ApplyScalar(kind, x, y);
          const float got = out[start + i];
          ASSERT_TRUE(SameBits(got, want) || (std::isnan(want) && std::isnan(got)))
              << "kind " << static_cast<int>(kind) << ", pattern " << pattern << ", n = " << n
              << ", i = " << i << ": " << x << ", " << y << " -> " << got << " vs " << want;
        }
        ASSERT_EQ(out[start + n], 7.0f) << "wrote past the range";
      }
    }
  }
}

TEST(SimdBinary, InPlaceOverEitherOperand) {
  std::vector<float> a(37), b(37);
  for (int i = 0; i < 37; ++i) {
    a[i] = 0.25f * static_cast<float>(i);
    b[i] = 1.0f + static_cast<float>(i);
  }
  std::vector<float> out_a = a;
  simd::Binary(simd::BinaryKind::kMul, out_a.data(), true, b.data(), true, out_a.data(), 37);
  std::vector<float> out_b = b;
  simd::Binary(simd::BinaryKind::kSub, a.data(), true, out_b.data(), true, out_b.data(), 37);
  for (int i = 0; i < 37; ++i) {
    EXPECT_EQ(out_a[i], a[i] * b[i]);
    EXPECT_EQ(out_b[i], a[i] - b[i]);
  }
}

TEST(SimdRowSum, WithinTheSummationBoundOfTheExactSum) {
  for (int64_t n = 0; n <= 100; ++n) {
    std::mt19937 gen(static_cast<uint32_t>(n));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> x(n + 1);
    for (float& v : x) v = uniform(gen);
    for (int64_t start = 0; start < 2; ++start) {
      double exact = 0, magnitude = 0;
      for (int64_t i = 0; i < n; ++i) {
        exact += x[start + i];
        magnitude += std::fabs(x[start + i]);
      }
      const float got = simd::RowSum(x.data() + start, n);
      // Any order of n - 1 float additions: |error| <= (n - 1) u sum |x| (u = 2^-24), to first
      // order; doubled for the second-order term.
      const double bound = 2.0 * static_cast<double>(n) * std::ldexp(1.0, -24) * magnitude;
      EXPECT_LE(std::fabs(got - exact), bound) << "n = " << n << ", start " << start;
    }
  }
  EXPECT_EQ(simd::RowSum(nullptr, 0), 0.0f);
  const float ones[40] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                          1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  EXPECT_EQ(simd::RowSum(ones, 40), 40.0f);  // 32-wide block, an 8-wide one, no tail
  EXPECT_EQ(simd::RowSum(ones, 39), 39.0f);  // and a tail of 7
  const float specials[] = {1.0f, kInf, 2.0f};
  EXPECT_EQ(simd::RowSum(specials, 3), kInf);
}

// Column sums add row after row, as a plain loop does: the same bits, for every row count
// around the four-row sweep (1-9 rows), every width around the 8-lane pieces (0-19), strides
// wider than the width and offsets off 32-byte alignment, with infinities and NaN in the data.
TEST(SimdColumnSum, BitsOfTheRowOrderLoop) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> x(9 * 24 + 3);
  for (float& v : x) v = uniform(gen) * 1e3f;  // magnitudes where the order shows in the bits
  x[5] = kInf;
  x[2 * 24 + 17] = std::numeric_limits<float>::quiet_NaN();
  for (int64_t rows = 1; rows <= 9; ++rows) {
    for (int64_t width = 0; width < 20; ++width) {
      for (int64_t stride : {width, int64_t{24}}) {
        if (stride == 0) continue;
        for (int64_t offset = 0; offset < 3; ++offset) {
          std::vector<float> expected(width), got(width + 1, -7.0f);
          for (int64_t c = 0; c < width; ++c) {
            expected[c] = x[offset + c];
            for (int64_t r = 1; r < rows; ++r) expected[c] += x[offset + r * stride + c];
          }
          simd::ColumnSum(x.data() + offset, rows, stride, got.data(), width);
          for (int64_t c = 0; c < width; ++c) {
            EXPECT_EQ(std::memcmp(&got[c], &expected[c], sizeof(float)), 0)
                << rows << " rows, width " << width << ", stride " << stride << ", offset "
                << offset << ", column " << c << ": " << got[c] << " vs " << expected[c];
          }
          EXPECT_EQ(got[width], -7.0f) << "wrote past the width";
        }
      }
    }
  }
}

// Through the operators: a row broadcast long enough for the direct path, and in place.
TEST(SimdThroughOps, RowBroadcastAddAndReluMatchHandComputedValues) {
  std::vector<float> x(3 * 40), row(40);
  for (int i = 0; i < 40; ++i) row[i] = 0.5f * static_cast<float>(i) - 10.0f;
  for (int i = 0; i < 120; ++i) x[i] = static_cast<float>(i % 7) - 3.0f;
  auto ws = RunOp(MakeOp("Add", {"x", "r"}, {"y"}),
                  {{"x", MakeTensor<float>({3, 40}, x)}, {"r", MakeTensor<float>({40}, row)}});
  const float* y = ws->GetTensor("y").data<float>();
  for (int i = 0; i < 120; ++i) ASSERT_EQ(y[i], x[i] + row[i % 40]) << i;
  ws = RunOp(MakeOp("Relu", {"x"}, {"x"}), {{"x", MakeTensor<float>({3, 40}, x)}});
  const float* r = ws->GetTensor("x").data<float>();
  for (int i = 0; i < 120; ++i) ASSERT_EQ(r[i], x[i] > 0 ? x[i] : 0.0f) << i;
  // ReduceSum over rows of 40: sums of small integers, exact in any order.
  ws =
      RunOp(MakeOp("ReduceSum", {"x"}, {"s"}, {{"axes", std::vector<int64_t>{1}}, {"keepdims", 0}}),
            {{"x", MakeTensor<float>({3, 40}, x)}});
  for (int row_index = 0; row_index < 3; ++row_index) {
    float want = 0;
    for (int i = 0; i < 40; ++i) want += x[row_index * 40 + i];
    EXPECT_EQ(ws->GetTensor("s").data<float>()[row_index], want) << row_index;
  }
}

}  // namespace
}  // namespace parity::testing

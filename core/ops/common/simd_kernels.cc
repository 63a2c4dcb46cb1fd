#include "core/ops/common/simd_kernels.h"

#include <cstring>

#include "core/ops/common/avx2_exp.h"  // UseAvx2Fma; defines PARITY_AVX2_EXP where it builds

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace parity {
namespace simd {
namespace {

template <typename T>
inline T ReluOne(T v) {
  return (v > T(0) || v != v) ? v : T(0);  // NaN kept; -0 and negatives give +0
}

template <BinaryKind kKind>
inline float ApplyOne(float a, float b) {
  if constexpr (kKind == BinaryKind::kAdd) return a + b;
  if constexpr (kKind == BinaryKind::kSub) return a - b;
  if constexpr (kKind == BinaryKind::kMul) return a * b;
  if constexpr (kKind == BinaryKind::kDiv) return a / b;
}

#ifdef PARITY_AVX2_EXP
// x & (x > 0 or unordered): keeps x where it is positive or NaN, +0 (all bits clear) elsewhere.
__attribute__((target("avx2"))) void ReluAvx2(const float* in, float* out, int64_t n) {
  const __m256 zero = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 x0 = _mm256_loadu_ps(in + i);
    const __m256 x1 = _mm256_loadu_ps(in + i + 8);
    _mm256_storeu_ps(out + i, _mm256_and_ps(x0, _mm256_cmp_ps(x0, zero, _CMP_NLE_UQ)));
    _mm256_storeu_ps(out + i + 8, _mm256_and_ps(x1, _mm256_cmp_ps(x1, zero, _CMP_NLE_UQ)));
  }
  for (; i < n; ++i) out[i] = ReluOne(in[i]);
}

template <BinaryKind kKind>
__attribute__((target("avx2"))) inline __m256 Apply8(__m256 a, __m256 b) {
  if constexpr (kKind == BinaryKind::kAdd) return _mm256_add_ps(a, b);
  if constexpr (kKind == BinaryKind::kSub) return _mm256_sub_ps(a, b);
  if constexpr (kKind == BinaryKind::kMul) return _mm256_mul_ps(a, b);
  if constexpr (kKind == BinaryKind::kDiv) return _mm256_div_ps(a, b);
}

// One loop per operand pattern, so the inner loop has no branch and the repeated value lives in
// a register.
template <BinaryKind kKind, bool kAVector, bool kBVector>
__attribute__((target("avx2"))) void BinaryAvx2(const float* a, const float* b, float* out,
                                                int64_t n) {
  const __m256 a_rep = _mm256_set1_ps(a[0]);
  const __m256 b_rep = _mm256_set1_ps(b[0]);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 a0 = kAVector ? _mm256_loadu_ps(a + i) : a_rep;
    const __m256 a1 = kAVector ? _mm256_loadu_ps(a + i + 8) : a_rep;
    const __m256 b0 = kBVector ? _mm256_loadu_ps(b + i) : b_rep;
    const __m256 b1 = kBVector ? _mm256_loadu_ps(b + i + 8) : b_rep;
    _mm256_storeu_ps(out + i, Apply8<kKind>(a0, b0));
    _mm256_storeu_ps(out + i + 8, Apply8<kKind>(a1, b1));
  }
  for (; i < n; ++i) out[i] = ApplyOne<kKind>(kAVector ? a[i] : a[0], kBVector ? b[i] : b[0]);
}

template <BinaryKind kKind>
void BinaryAvx2For(const float* a, bool a_vector, const float* b, bool b_vector, float* out,
                   int64_t n) {
  if (a_vector && b_vector) {
    BinaryAvx2<kKind, true, true>(a, b, out, n);
  } else if (a_vector) {
    BinaryAvx2<kKind, true, false>(a, b, out, n);
  } else if (b_vector) {
    BinaryAvx2<kKind, false, true>(a, b, out, n);
  } else {
    BinaryAvx2<kKind, false, false>(a, b, out, n);
  }
}

__attribute__((target("avx2"))) float RowSumAvx2(const float* x, int64_t n) {
  // Four independent accumulators hide the add latency; the lanes are combined at the end.
  __m256 acc0 = _mm256_setzero_ps();
  __m256 acc1 = _mm256_setzero_ps();
  __m256 acc2 = _mm256_setzero_ps();
  __m256 acc3 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    acc0 = _mm256_add_ps(acc0, _mm256_loadu_ps(x + i));
    acc1 = _mm256_add_ps(acc1, _mm256_loadu_ps(x + i + 8));
    acc2 = _mm256_add_ps(acc2, _mm256_loadu_ps(x + i + 16));
    acc3 = _mm256_add_ps(acc3, _mm256_loadu_ps(x + i + 24));
  }
  for (; i + 8 <= n; i += 8) acc0 = _mm256_add_ps(acc0, _mm256_loadu_ps(x + i));
  const __m256 acc = _mm256_add_ps(_mm256_add_ps(acc0, acc1), _mm256_add_ps(acc2, acc3));
  __m128 half = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
  half = _mm_add_ps(half, _mm_movehl_ps(half, half));
  half = _mm_add_ss(half, _mm_shuffle_ps(half, half, 0x55));
  float sum = _mm_cvtss_f32(half);
  for (; i < n; ++i) sum += x[i];
  return sum;
}

__attribute__((target("avx2"))) void ColumnSumAvx2(const float* x, int64_t rows, int64_t stride,
                                                   float* y, int64_t width) {
  std::memcpy(y, x, width * sizeof(float));
  int64_t r = 1;
  // Four rows per sweep of y: each 8-column piece of y is loaded and stored once per four rows
  // (y stays in L1; the rows stream), still added one row after another.
  for (; r + 4 <= rows; r += 4) {
    const float* a = x + r * stride;
    const float* b = a + stride;
    const float* c = b + stride;
    const float* d = c + stride;
    int64_t j = 0;
    for (; j + 8 <= width; j += 8) {
      __m256 acc = _mm256_loadu_ps(y + j);
      acc = _mm256_add_ps(acc, _mm256_loadu_ps(a + j));
      acc = _mm256_add_ps(acc, _mm256_loadu_ps(b + j));
      acc = _mm256_add_ps(acc, _mm256_loadu_ps(c + j));
      acc = _mm256_add_ps(acc, _mm256_loadu_ps(d + j));
      _mm256_storeu_ps(y + j, acc);
    }
    for (; j < width; ++j) y[j] = (((y[j] + a[j]) + b[j]) + c[j]) + d[j];
  }
  for (; r < rows; ++r) {
    const float* a = x + r * stride;
    int64_t j = 0;
    for (; j + 8 <= width; j += 8) {
      _mm256_storeu_ps(y + j, _mm256_add_ps(_mm256_loadu_ps(y + j), _mm256_loadu_ps(a + j)));
    }
    for (; j < width; ++j) y[j] += a[j];
  }
}
#endif  // PARITY_AVX2_EXP

// The portable Relu: SSE2 (baseline x86-64) four at a time, the same selection as above.
void ReluPortable(const float* in, float* out, int64_t n) {
  int64_t i = 0;
#if defined(__SSE2__)
  const __m128 zero = _mm_setzero_ps();
  for (; i + 4 <= n; i += 4) {
    const __m128 x = _mm_loadu_ps(in + i);
    _mm_storeu_ps(out + i, _mm_and_ps(x, _mm_cmpnle_ps(x, zero)));
  }
#endif
  for (; i < n; ++i) out[i] = ReluOne(in[i]);
}

template <BinaryKind kKind>
void BinaryScalar(const float* a, bool a_vector, const float* b, bool b_vector, float* out,
                  int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    out[i] = ApplyOne<kKind>(a_vector ? a[i] : a[0], b_vector ? b[i] : b[0]);
  }
}

template <BinaryKind kKind>
void BinaryFor(const float* a, bool a_vector, const float* b, bool b_vector, float* out,
               int64_t n) {
#ifdef PARITY_AVX2_EXP
  if (UseAvx2Fma()) return BinaryAvx2For<kKind>(a, a_vector, b, b_vector, out, n);
#endif
  BinaryScalar<kKind>(a, a_vector, b, b_vector, out, n);
}

}  // namespace

bool Available() {
#ifdef PARITY_AVX2_EXP
  return UseAvx2Fma();
#else
  return false;
#endif
}

void Relu(const float* in, float* out, int64_t n) {
#ifdef PARITY_AVX2_EXP
  if (UseAvx2Fma()) return ReluAvx2(in, out, n);
#endif
  ReluPortable(in, out, n);
}

void Binary(BinaryKind kind, const float* a, bool a_vector, const float* b, bool b_vector,
            float* out, int64_t n) {
  switch (kind) {
    case BinaryKind::kAdd:
      return BinaryFor<BinaryKind::kAdd>(a, a_vector, b, b_vector, out, n);
    case BinaryKind::kSub:
      return BinaryFor<BinaryKind::kSub>(a, a_vector, b, b_vector, out, n);
    case BinaryKind::kMul:
      return BinaryFor<BinaryKind::kMul>(a, a_vector, b, b_vector, out, n);
    case BinaryKind::kDiv:
      return BinaryFor<BinaryKind::kDiv>(a, a_vector, b, b_vector, out, n);
  }
}

float RowSum(const float* x, int64_t n) {
#ifdef PARITY_AVX2_EXP
  if (UseAvx2Fma()) return RowSumAvx2(x, n);
#endif
  float sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  return sum;
}

void ColumnSum(const float* x, int64_t rows, int64_t stride, float* y, int64_t width) {
#ifdef PARITY_AVX2_EXP
  if (UseAvx2Fma()) {
    ColumnSumAvx2(x, rows, stride, y, width);
    return;
  }
#endif
  std::memcpy(y, x, width * sizeof(float));
  for (int64_t r = 1; r < rows; ++r) {
    for (int64_t j = 0; j < width; ++j) y[j] += x[r * stride + j];
  }
}

}  // namespace simd
}  // namespace parity

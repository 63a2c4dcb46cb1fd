// exp on 8 floats with AVX2 + FMA, for the float kernels that are compute-bound on exp (Exp,
// Softmax's rows). The build targets baseline x86-64 (SSE2), where Eigen's exp takes 4 floats at
// a time; CPUs with AVX2 and FMA (checked at run time, UseAvx2Fma) take these paths. Results may
// differ from the SSE2 path by an ulp; every element goes through the same 8-wide code (a tail is
// padded to 8), so an element's bits do not depend on where a range starts: kernels split across
// threads stay bit-identical.
//
// The algorithm is Cephes' expf (as Eigen's pexp and Sigmoid8, unary.cc): k = round(x log2 e),
// r = x - k ln 2 in two steps (Cody-Waite), e^r by a degree-6 polynomial on |r| <= ln 2 / 2, then
// e^x = e^r 2^k. The scaling by 2^k is done in two halves (2^(k/2) twice), so the whole range
// is covered: from -104 (below, e^x rounds to 0) through the subnormals (the last multiply rounds
// into them) to ln(FLT_MAX) (above, +inf). NaN stays NaN.
#ifndef PARITY_CORE_OPS_COMMON_AVX2_EXP_H_
#define PARITY_CORE_OPS_COMMON_AVX2_EXP_H_

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#define PARITY_AVX2_EXP 1

namespace parity {

// Whether the AVX2 + FMA paths run: the CPU has both, and PARITY_NO_AVX2 is unset
// (PARITY_NO_AVX2=1 forces the portable paths: their tests set it; also for A/B comparisons).
inline bool UseAvx2Fma() {
  static const bool use = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                          std::getenv("PARITY_NO_AVX2") == nullptr;
  return use;
}

__attribute__((target("avx2,fma"))) inline __m256 Exp8(__m256 x) {
  // Above ln(FLT_MAX) e^x overflows; below -104, e^x < FLT_TRUE_MIN / 2 rounds to 0.
  const __m256 hi = _mm256_set1_ps(88.72283935546875f);
  const __m256 lo = _mm256_set1_ps(-104.0f);
  const __m256 magic = _mm256_set1_ps(12582912.0f);  // 1.5 * 2^23: adding it rounds to integer
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 a = _mm256_min_ps(_mm256_max_ps(x, lo), hi);  // NaN becomes lo; restored below
  const __m256 k =
      _mm256_sub_ps(_mm256_fmadd_ps(a, _mm256_set1_ps(1.44269504088896341f), magic), magic);
  __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0.693359375f), a);
  r = _mm256_fnmadd_ps(k, _mm256_set1_ps(-2.12194440e-4f), r);
  const __m256 r2 = _mm256_mul_ps(r, r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, r2, _mm256_add_ps(r, one));
  // k in [-150, 128]: 2^k as 2^k1 * 2^k2 with k1 = floor(k / 2), both normal floats.
  const __m256i ki = _mm256_cvtps_epi32(k);
  const __m256i k1 = _mm256_srai_epi32(ki, 1);
  const __m256i k2 = _mm256_sub_epi32(ki, k1);
  const __m256i bias = _mm256_set1_epi32(127);
  const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k1, bias), 23));
  const __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k2, bias), 23));
  __m256 e = _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
  e = _mm256_and_ps(e, _mm256_cmp_ps(x, lo, _CMP_GE_OQ));  // below -104: 0
  e = _mm256_blendv_ps(e, _mm256_set1_ps(__builtin_inff()), _mm256_cmp_ps(x, hi, _CMP_GT_OQ));
  return _mm256_blendv_ps(x, e, _mm256_cmp_ps(x, x, _CMP_ORD_Q));  // NaN stays NaN
}

// out[i] = exp(in[i]) for n floats; in and out may be the same buffer.
__attribute__((target("avx2,fma"))) inline void ExpAvx2(const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, Exp8(_mm256_loadu_ps(in + i)));
  if (i < n) {
    float buffer[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    std::memcpy(buffer, in + i, (n - i) * sizeof(float));
    _mm256_storeu_ps(buffer, Exp8(_mm256_loadu_ps(buffer)));
    std::memcpy(out + i, buffer, (n - i) * sizeof(float));
  }
}

// y[i] = exp(x[i] - m) for n floats; returns their sum, added in 8 lanes then across them (the
// padded tail's zeros excluded).
__attribute__((target("avx2,fma"))) inline float ExpShiftedAvx2(const float* x, float m, float* y,
                                                                int64_t n) {
  const __m256 shift = _mm256_set1_ps(m);
  __m256 lanes = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 e = Exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), shift));
    _mm256_storeu_ps(y + i, e);
    lanes = _mm256_add_ps(lanes, e);
  }
  if (i < n) {
    float buffer[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    std::memcpy(buffer, x + i, (n - i) * sizeof(float));
    __m256 e = Exp8(_mm256_sub_ps(_mm256_loadu_ps(buffer), shift));
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    e = _mm256_and_ps(e, _mm256_castsi256_ps(_mm256_cmpgt_epi32(
                             _mm256_set1_epi32(static_cast<int>(n - i)), lane)));
    _mm256_storeu_ps(buffer, e);
    std::memcpy(y + i, buffer, (n - i) * sizeof(float));
    lanes = _mm256_add_ps(lanes, e);
  }
  float sums[8];
  _mm256_storeu_ps(sums, lanes);
  return ((sums[0] + sums[1]) + (sums[2] + sums[3])) + ((sums[4] + sums[5]) + (sums[6] + sums[7]));
}

}  // namespace parity

#endif  // x86-64 with GCC or clang
#endif  // PARITY_CORE_OPS_COMMON_AVX2_EXP_H_

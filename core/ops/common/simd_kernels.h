// Direct float kernels for the memory-bound elementwise ops that dominate large nets: Relu, the
// four arithmetic ops, and row and column sums.
//
// Why: the build targets baseline x86-64 (SSE2), so Eigen moves 4 floats per instruction; on the
// 1M-float working sets the benchmarks use (they sit in L3), that halves the throughput PyTorch
// gets from its AVX2 kernels. These take 8 floats at a time on CPUs with AVX2 (checked at run
// time, UseAvx2Fma in avx2_exp.h; PARITY_NO_AVX2=1 forces the portable paths).
//
// Bits: Relu and the arithmetic ops give exactly the bits of their portable paths (IEEE add,
// subtract, multiply and divide are correctly rounded at any width, and Relu only selects), so
// which path runs, and where a thread's range starts, never changes a result. Row sums add in a
// different order from Eigen's sum (eight lanes, four accumulators); each row is summed by one
// thread in one fixed order, so they too are identical for any thread count.
#ifndef PARITY_CORE_OPS_COMMON_SIMD_KERNELS_H_
#define PARITY_CORE_OPS_COMMON_SIMD_KERNELS_H_

#include <cstdint>

namespace parity {
namespace simd {

// Whether the AVX2 paths run on this CPU. Binary and RowSum are meant for where they do (callers
// keep their Eigen kernels otherwise); they still give right answers, one element at a time,
// where they do not.
bool Available();

// out[i] = in[i] > 0 or NaN ? in[i] : +0, for i in [0, n). In place (out == in) is fine. AVX2
// where the CPU has it, else SSE2 (baseline x86-64) or a scalar loop: the same bits on every path.
void Relu(const float* in, float* out, int64_t n);

enum class BinaryKind { kAdd, kSub, kMul, kDiv };

// out[i] = a[i] op b[i] over n floats, where an operand with `*_vector` false is the single value
// a[0] (resp. b[0]) repeated. out may equal a or b exactly.
void Binary(BinaryKind kind, const float* a, bool a_vector, const float* b, bool b_vector,
            float* out, int64_t n);

// The sum of x[0, n); 0 for n = 0.
float RowSum(const float* x, int64_t n);

// Column sums of `rows` (>= 1) rows of `width` floats, `stride` floats apart:
// y[c] = (((x[c] + x[stride + c]) + x[2 stride + c]) + ...), added in row order. That is the
// order of the portable path (the first row, then each next row added), so the bits are the
// same on every path and for any split of the columns.
void ColumnSum(const float* x, int64_t rows, int64_t stride, float* y, int64_t width);

}  // namespace simd
}  // namespace parity

#endif  // PARITY_CORE_OPS_COMMON_SIMD_KERNELS_H_

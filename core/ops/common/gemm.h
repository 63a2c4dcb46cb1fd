// A small typed wrapper over the GEMMs of the GEMM-shaped kernels (FC, MatMul, BatchMatMul, Conv):
// oneDNN's dnnl_sgemm for float, OpenBLAS's cblas_dgemm for double; plus the dtype checks those
// kernels share. Row-major throughout.
//
// Why a wrapper: the kernels are templated on float/double and CBLAS is not; the degenerate shapes
// CBLAS rejects or reads past (M, N or K of 0, leading dimensions of 0) are handled here once; and
// int64 sizes over CBLAS's int range fail with kResourceLimit instead of being truncated.
// Threading is whatever the libraries are configured with (OMP_NUM_THREADS for oneDNN,
// OPENBLAS_NUM_THREADS for OpenBLAS); nothing here changes it.
#ifndef PARITY_CORE_OPS_COMMON_GEMM_H_
#define PARITY_CORE_OPS_COMMON_GEMM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/proto/error.h"
#include "core/types.h"

namespace parity {

// C[M, N] = alpha * op(A) * op(B) + beta * C, with op(A) [M, K] and op(B) [K, N]; A, B and C are
// contiguous row-major matrices as stored (A is [K, M] when trans_a). With K == 0, C = beta * C
// (and exactly zero when beta == 0, whatever C held).
template <typename T>
void Gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* A,
          const T* B, T beta, T* C);

// The same with explicit leading dimensions (row strides, in elements) of A, B and C.
template <typename T>
void GemmStrided(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* A,
                 int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc);

// Calls fn(float{}) or fn(double{}) for a float/double dtype; any other dtype is kShapeMismatch
// naming `label` (the op) and the blob (`blob`, with its dtype and `dims`). The message is built
// only on failure, so kernels call this on every run without allocating.
template <typename Fn>
void DispatchFloatOrDouble(DataType dtype, const std::string& label, const char* blob,
                           const std::vector<int64_t>& dims, Fn&& fn) {
  switch (dtype) {
    case DataType::kFloat:
      fn(float{});
      return;
    case DataType::kDouble:
      fn(double{});
      return;
    default:
      throw MakeError(ErrorKind::kShapeMismatch, label, ": takes float or double tensors, got ",
                      blob, " ", DataTypeName(dtype), " ", ShapeString(dims));
  }
}

// kShapeMismatch unless `blob` has the same dtype as the op's first input `first`.
inline void EnforceSameDtype(const std::string& label, const char* first, DataType want,
                             const char* blob, DataType got, const std::vector<int64_t>& dims) {
  PARITY_ENFORCE(got == want, ErrorKind::kShapeMismatch, label, ": ", blob, " is ",
                 DataTypeName(got), " ", ShapeString(dims), " but ", first, " is ",
                 DataTypeName(want), "; all inputs must share one dtype");
}

}  // namespace parity

#endif  // PARITY_CORE_OPS_COMMON_GEMM_H_

#include "core/ops/common/gemm.h"

#include <cblas.h>
#include <dnnl.h>

#include <algorithm>
#include <limits>

namespace parity {
namespace {

// CBLAS and oneDNN take int sizes (OpenBLAS's default 32-bit interface).
int BlasInt(int64_t value, const char* what) {
  PARITY_ENFORCE(value >= 0 && value <= std::numeric_limits<int>::max(), ErrorKind::kResourceLimit,
                 "matrix ", what, " = ", value, " is beyond what BLAS can index");
  return static_cast<int>(value);
}

// float: oneDNN's sgemm (row-major), JIT-compiled for the CPU: with AVX-512 it runs about 1.9x
// OpenBLAS's kernels on one thread (M=32 N=1024 K=256: 105 vs 205 us). Its threads are OpenMP's
// (OMP_NUM_THREADS). double stays on OpenBLAS (oneDNN has no dgemm).
void CallGemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda,
              const float* b, int ldb, float beta, float* c, int ldc) {
  const dnnl_status_t status =
      dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  PARITY_ENFORCE(status == dnnl_success, ErrorKind::kInternal, "oneDNN sgemm failed (status ",
                 static_cast<int>(status), ") for M=", m, " N=", n, " K=", k);
}

void CallGemm(bool ta, bool tb, int m, int n, int k, double alpha, const double* a, int lda,
              const double* b, int ldb, double beta, double* c, int ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n,
              k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace

template <typename T>
void GemmStrided(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* A,
                 int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  if (K == 0) {
    // BLAS would reject lda = 0; the product is empty, so only the beta scaling remains.
    for (int64_t i = 0; i < M; ++i) {
      T* row = C + i * ldc;
      if (beta == T(0)) {
        std::fill(row, row + N, T(0));
      } else if (beta != T(1)) {
        for (int64_t j = 0; j < N; ++j) row[j] *= beta;
      }
    }
    return;
  }
  // A leading dimension must be at least 1 even for a single row or column.
  CallGemm(trans_a, trans_b, BlasInt(M, "rows"), BlasInt(N, "columns"), BlasInt(K, "inner size"),
           alpha, A, BlasInt(std::max<int64_t>(lda, 1), "stride"), B,
           BlasInt(std::max<int64_t>(ldb, 1), "stride"), beta, C,
           BlasInt(std::max<int64_t>(ldc, 1), "stride"));
}

template <typename T>
void Gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* A,
          const T* B, T beta, T* C) {
  GemmStrided<T>(trans_a, trans_b, M, N, K, alpha, A, trans_a ? M : K, B, trans_b ? K : N, beta, C,
                 N);
}

template void Gemm<float>(bool, bool, int64_t, int64_t, int64_t, float, const float*, const float*,
                          float, float*);
template void Gemm<double>(bool, bool, int64_t, int64_t, int64_t, double, const double*,
                           const double*, double, double*);
template void GemmStrided<float>(bool, bool, int64_t, int64_t, int64_t, float, const float*,
                                 int64_t, const float*, int64_t, float, float*, int64_t);
template void GemmStrided<double>(bool, bool, int64_t, int64_t, int64_t, double, const double*,
                                  int64_t, const double*, int64_t, double, double*, int64_t);

}  // namespace parity

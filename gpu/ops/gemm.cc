#include "gpu/ops/gemm.h"

#include <climits>

#include "core/proto/error.h"
#include "gpu/kernels/kernels.h"

namespace parity::gpu {
namespace {

// cuBLAS takes int sizes; larger products are refused rather than truncated.
int CheckedInt(const std::string& label, const char* what, int64_t value) {
  PARITY_ENFORCE(value <= INT_MAX, ErrorKind::kResourceLimit, label, ": ", what, " = ", value,
                 " exceeds cuBLAS's int range");
  return static_cast<int>(value);
}

}  // namespace

void StridedBatchedGemm(const std::string& label, CudaContext& context, const GemmCall& g,
                        const float* a, int64_t stride_a, const float* b, int64_t stride_b,
                        float* y, int64_t stride_y, int64_t batch) {
  if (g.M == 0 || g.N == 0 || batch == 0) return;
  if (g.K == 0) {
    // The empty sum. Only beta 0 (MatMul, BatchMatMul, dW) or 1 (FC onto its bias) occur.
    if (g.beta == 0.0f) {
      for (int64_t i = 0; i < batch; ++i) {
        kernels::FillFloat(0.0f, y + i * stride_y, g.M * g.N, context.stream());
      }
      CudaCheck(cudaGetLastError(), "fill of an empty product");
    }
    return;
  }
  cublasHandle_t handle = context.cublas();
  const int m = CheckedInt(label, "M", g.M), n = CheckedInt(label, "N", g.N);
  const int k = CheckedInt(label, "K", g.K);
  const float alpha = 1.0f;
  const int lda = g.trans_a ? m : k;
  const int ldb = g.trans_b ? k : n;
  const cublasOperation_t op_a = g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (batch == 1) {
    CublasCheck(cublasSgemm(handle, op_b, op_a, n, m, k, &alpha, b, ldb, a, lda, &g.beta, y, n),
                "cublasSgemm");
    return;
  }
  CublasCheck(cublasSgemmStridedBatched(handle, op_b, op_a, n, m, k, &alpha, b, ldb, stride_b, a,
                                        lda, stride_a, &g.beta, y, n, stride_y,
                                        CheckedInt(label, "batch", batch)),
              "cublasSgemmStridedBatched");
}

}  // namespace parity::gpu

// Row-major GEMMs through cuBLAS for the CUDA linear-algebra kernels (gpu/ops/linalg*.cc).
//
// cuBLAS is column-major and parity row-major: a row-major Y[M, N] = op(A) op(B) is the
// column-major Y^T[N, M] = op(B)^T op(A)^T, so every call passes B before A and N before M.
#ifndef PARITY_GPU_OPS_GEMM_H_
#define PARITY_GPU_OPS_GEMM_H_

#include <cstdint>
#include <string>

#include "gpu/context.h"

namespace parity::gpu {

struct GemmCall {
  bool trans_a = false, trans_b = false;
  int64_t M = 0, N = 0, K = 0;
  float beta = 0.0f;
};

// Y[M, N] = op(A)[M, K] op(B)[K, N] + beta Y for `batch` products with element strides between
// them (0: the same matrix for every product). Sizes beyond cuBLAS's int are kResourceLimit. With
// K = 0 and beta = 0, Y is zero-filled (the empty sum) rather than left to cuBLAS.
void StridedBatchedGemm(const std::string& label, CudaContext& context, const GemmCall& g,
                        const float* a, int64_t stride_a, const float* b, int64_t stride_b,
                        float* y, int64_t stride_y, int64_t batch);

// One product: StridedBatchedGemm with batch 1.
inline void Gemm(const std::string& label, CudaContext& context, const GemmCall& g, const float* a,
                 const float* b, float* y) {
  StridedBatchedGemm(label, context, g, a, 0, b, 0, y, 0, 1);
}

}  // namespace parity::gpu

#endif  // PARITY_GPU_OPS_GEMM_H_

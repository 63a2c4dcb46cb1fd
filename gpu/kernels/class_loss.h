// Launchers of the class-loss kernels (bodies in class_loss_body.h, tested on the host by
// tests/gpu/bodies/class_loss_body_test.cc). Device pointers; `classes` holds one int64 per target
// position (the class, or -1 where ignored), already range-checked on the host; `weights` may be
// null (every class weighs 1).
#ifndef PARITY_GPU_KERNELS_CLASS_LOSS_H_
#define PARITY_GPU_KERNELS_CLASS_LOSS_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/kernels/class_loss_body.h"

namespace parity::gpu::kernels {

// log_prob [N, C, D] = log softmax of x over the classes (may be x itself).
void LogSoftmaxClassesFloat(const float* x, const ClassDims& s, float* log_prob,
                            cudaStream_t stream);

// The loss from log-probabilities: per position into y (reduction none), or summed into y[0] by
// one thread over the positions' terms (`scratch`: 2 * N * D doubles).
void ClassLossFloat(const float* logp, const int64_t* classes, const float* weights,
                    const ClassDims& s, ClassReduction reduction, double* scratch, float* y,
                    cudaStream_t stream);

// NegativeLogLikelihoodLossGradient into dx [N, C, D] (every element written); `scratch`: one
// double (the weight total).
void NllGradientFloat(const int64_t* classes, const float* weights, const float* dloss,
                      const ClassDims& s, ClassReduction reduction, double* scratch, float* dx,
                      cudaStream_t stream);

// SoftmaxCrossEntropyLossGradient into dx [N, C, D] (may not be x); `scratch`: 2 * N * D + 1
// doubles (the positions' stats and scales, the weight total).
void SceGradientFloat(const float* x, const int64_t* classes, const float* weights,
                      const float* dloss, const ClassDims& s, ClassReduction reduction,
                      double* scratch, float* dx, cudaStream_t stream);

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_CLASS_LOSS_H_

// Launchers of the loss kernels (bodies in loss_body.h, tested on the host by tests/gpu/bodies).
// Device pointers; labels are int32 (labels_64 false) or int64, already range-checked.
#ifndef PARITY_GPU_KERNELS_LOSS_H_
#define PARITY_GPU_KERNELS_LOSS_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/kernels/loss_body.h"

namespace parity::gpu::kernels {

void SquaredL2DistanceFloat(const float* x, const float* y, int64_t n, int64_t d, float* out,
                            cudaStream_t stream);
void LabelCrossEntropyFloat(const float* x, const void* labels, bool labels_64, int64_t n,
                            int64_t d, float* out, cudaStream_t stream);
void SigmoidCrossEntropyFloat(const float* x, const float* t, int64_t outer, int64_t inner,
                              SigmoidCEMode mode, float* out, cudaStream_t stream);
// Softmax rows into p, each row's loss and weight into row_terms (2n doubles of scratch), then
// the scalar loss; probs non-null for label probabilities (labels unused then).
void SoftmaxWithLossFloat(const float* x, int64_t n, int64_t d, const void* labels,
                          bool labels_64, const float* probs, const float* weights, double scale,
                          float* p, double* row_terms, float* loss, cudaStream_t stream);

// The gradients, one thread per element (numel = n * d, or outer * inner).
void SquaredL2DistanceGradientFloat(const float* x, const float* y, const float* g, int64_t n,
                                    int64_t d, float* dx, float* dy, cudaStream_t stream);
void LabelCrossEntropyGradientFloat(const float* x, const void* labels, bool labels_64,
                                    const float* g, int64_t n, int64_t d, float* dx,
                                    cudaStream_t stream);
void SoftmaxWithLossGradientFloat(const float* p, int64_t n, int64_t d, const void* labels,
                                  bool labels_64, const float* probs, const float* weights,
                                  double factor, float* dx, cudaStream_t stream);
void SigmoidCrossEntropyGradientFloat(const float* g, const float* x, const float* t,
                                      int64_t outer, int64_t inner, SigmoidCEMode mode,
                                      float* dx, cudaStream_t stream);

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_LOSS_H_

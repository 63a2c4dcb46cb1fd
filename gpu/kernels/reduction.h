// Launchers of the reduction kernels (bodies in reduction_body.h, tested on the host by
// tests/gpu/reduction_body_test.cc): device pointers, enqueued on `stream`. Every output element
// is written by one thread in a fixed order: no atomics, the same bits on every run.
#ifndef PARITY_GPU_KERNELS_REDUCTION_H_
#define PARITY_GPU_KERNELS_REDUCTION_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/kernels/reduction_body.h"

namespace parity::gpu::kernels {

// One pass of ReduceMax / ReduceMin / ReduceProd: x [outer, r, inner] -> y [outer, inner]
// (ReducePassBody per element of y).
void ReducePassFloat(Reducer op, const float* x, float* y, int64_t outer, int64_t r, int64_t inner,
                     cudaStream_t stream);

// ReduceSumGradient / ReduceMeanGradient: dX (out_numel * count elements) = dY * scale broadcast
// over the reduced dims of `geometry` (ReduceBroadcastGradientBody).
void ReduceBroadcastGradientFloat(const float* dy, float* dx, int64_t out_numel, int64_t count,
                                  float scale, const ReduceGeometry& geometry, cudaStream_t stream);

// ReduceMaxGradient / ReduceMinGradient (ReduceSelectGradientBody) and ReduceProdGradient
// (ReduceProdGradientBody): one thread per output element, writing its `count` elements of dX.
void ReduceSelectGradientFloat(const float* dy, const float* x, const float* y, float* dx,
                               int64_t out_numel, int64_t count, const ReduceGeometry& geometry,
                               cudaStream_t stream);
void ReduceProdGradientFloat(const float* dy, const float* x, float* dx, int64_t out_numel,
                             int64_t count, const ReduceGeometry& geometry, cudaStream_t stream);

// SumElements / AveragedLoss: y[0] = the sum of x[0, n), divided by n if `divide` (SumAllBody,
// one thread).
void SumAllFloat(const float* x, float* y, int64_t n, bool divide, cudaStream_t stream);

// SumElementsGradient / AveragedLossGradient: dx[0, n) = dy[0] (/ divisor if `divide`).
void ScalarGradientFloat(const float* dy, float* dx, int64_t n, float divisor, bool divide,
                         cudaStream_t stream);

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_REDUCTION_H_

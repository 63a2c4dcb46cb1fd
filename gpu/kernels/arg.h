// Launchers of the ArgMax / ArgMin, CumSum and Hardmax kernels (bodies in arg_body.h, tested on
// the host by tests/gpu/arg_body_test.cc): device pointers, enqueued on `stream`, one thread per
// output run (deterministic, no atomics).
#ifndef PARITY_GPU_KERNELS_ARG_H_
#define PARITY_GPU_KERNELS_ARG_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/kernels/arg_body.h"

namespace parity::gpu::kernels {

// x [outer, n, inner] -> y [outer * inner] int64 indices (ArgBody).
void ArgFloat(bool max, bool last, const float* x, int64_t* y, int64_t outer, int64_t n,
              int64_t inner, cudaStream_t stream);

// x [outer, n, inner] -> y, running sums along n (CumSumBody); y may be x.
void CumSumFloat(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, bool exclusive,
                 bool reverse, cudaStream_t stream);

// x [rows, cols] -> y one-hot rows (HardmaxRowBody); y may be x.
void HardmaxFloat(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream);

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_ARG_H_

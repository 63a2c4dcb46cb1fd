// Launchers of the variadic kernels (bodies in variadic_body.h, tested on the host by
// tests/gpu/variadic_body_test.cc): device pointers, enqueued on `stream`. One thread per output
// element, folding in the CPU's order: no atomics, the same bits on every run.
#ifndef PARITY_GPU_KERNELS_VARIADIC_H_
#define PARITY_GPU_KERNELS_VARIADIC_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/kernels/variadic_body.h"

namespace parity::gpu::kernels {

// One chunk of Max (max) / Min over n output elements (ExtremumBody).
void ExtremumFloat(bool max, const VariadicInputs& in, float* y, int64_t n, cudaStream_t stream);

// One chunk of MaxGradient / MinGradient's winners (ExtremumWinnerBody): inputs [first, first +
// in.count) against y, n output elements.
void ExtremumWinnerFloat(const VariadicInputs& in, int first, const float* y, int32_t* winner,
                         int64_t n, cudaStream_t stream);

// dX of input `input`, n elements (ExtremumGradientBody).
void ExtremumGradientFloat(const int32_t* winner, int32_t input, const float* dy, float* dx,
                           int64_t n, int64_t count, int64_t block, const ReduceGeometry& geometry,
                           cudaStream_t stream);

// y[0, n) = x * scale (ScaleBody); y may be x.
void ScaleFloat(const float* x, float* y, float scale, int64_t n, cudaStream_t stream);

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_VARIADIC_H_

// Launchers of the unary-family kernels (bodies in unary_body.h, tested on the host by
// tests/gpu/unary_body_test.cc): one thread per output element, no atomics. Device pointers; every
// launcher enqueues on `stream` and returns at once.
#ifndef PARITY_GPU_KERNELS_UNARY_H_
#define PARITY_GPU_KERNELS_UNARY_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/kernels/unary_body.h"

namespace parity::gpu::kernels {

// y[i] = fn(x[i]) for i < n; y may be x.
void UnaryMathFloat(UnaryMath fn, UnaryArgs args, const float* x, float* y, int64_t n,
                    cudaStream_t stream);

// dx[i] = fn'(v[i], dy[i]) for i < n; dx may be v or dy.
void UnaryGradFloat(UnaryGrad fn, UnaryArgs args, const float* v, const float* dy, float* dx,
                    int64_t n, cudaStream_t stream);

// Pow with an exponent input: y = x^e over n output elements, x and e broadcast by `geometry`
// (BroadcastGeometryOf). y may be x or e where it has their dims.
void PowBroadcastFloat(const float* x, const float* e, float* y, int64_t n,
                       const BroadcastGeometry& geometry, cudaStream_t stream);

// dX or dE (which) of PowGradient (dY, X, E, Y): n operand elements, each summing its `count`
// broadcast copies in the output's row-major order (PowGradBody). out may not be an input.
void PowGradFloat(PowGrad which, const float* dy, const float* x, const float* e, const float* y,
                  float* out, int64_t n, int64_t count, const ReduceGeometry& reduce,
                  const BroadcastGeometry& broadcast, cudaStream_t stream);

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_UNARY_H_

// Launchers of the kernels beyond float (bodies in dtype_body.h, tested on the host by
// tests/gpu/dtype_body_test.cc): arithmetic over integers and double, comparisons, logical ops,
// Where and WhereGradient, Cast. Pointers are device pointers of the ElementType named; every
// launcher enqueues on `stream` and returns at once.
#ifndef PARITY_GPU_KERNELS_DTYPE_H_
#define PARITY_GPU_KERNELS_DTYPE_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu/kernels/dtype_body.h"

namespace parity::gpu::kernels {

// Broadcasting Add / Sub / Mul / Div over `type` (any ElementType but bool; float has
// BinaryFloat). Integer Div expects B free of zeros (ZeroDivisorFlag first).
void BinaryTyped(Binary fn, ElementType type, const void* a, const void* b, void* y, int64_t n,
                 const BroadcastGeometry& geometry, cudaStream_t stream);

// *flag = 1 if one of b's n elements (an integer `type`) is 0, else 0.
void ZeroDivisorFlag(ElementType type, const void* b, int64_t n, int32_t* flag,
                     cudaStream_t stream);

// Broadcasting comparisons of `type` (bool, int32, int64, float, double) into bool.
void CompareTyped(Compare fn, ElementType type, const void* a, const void* b, bool* y, int64_t n,
                  const BroadcastGeometry& geometry, cudaStream_t stream);

// Broadcasting And / Or / Xor of bools, and Not.
void LogicalBool(Logical fn, const bool* a, const bool* b, bool* y, int64_t n,
                 const BroadcastGeometry& geometry, cudaStream_t stream);
void NotBool(const bool* x, bool* y, int64_t n, cudaStream_t stream);

// Where: z = c ? x : y over n output elements of `esize` bytes (1, 2, 4 or 8).
void WhereSelect(const bool* c, const void* x, const void* y, void* z, int64_t n, size_t esize,
                 const WhereGeometry& geometry, cudaStream_t stream);

// One output of WhereGradient: n operand elements of `type` (float or double), each summing its
// `count` broadcast copies of dz where c is when_true. d may not be an input.
void WhereGradient(bool when_true, ElementType type, const bool* c, const void* dz, void* d,
                   int64_t n, int64_t count, const ReduceGeometry& reduce,
                   const BroadcastGeometry& c_of, cudaStream_t stream);

// Cast of n elements from `from` to `to`.
void CastTyped(ElementType from, ElementType to, const void* x, void* y, int64_t n,
               cudaStream_t stream);

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_DTYPE_H_

// Kernel launchers: plain functions over device pointers, compiled by nvcc (tools/cuda.bzl), so
// the operator code in gpu/ops/*.cc (compiled by g++, with protobuf and core/) never meets nvcc and
// the .cu files never meet protobuf. Every launcher enqueues on `stream` and returns at once; a
// launch error surfaces at the caller's CudaCheck(cudaGetLastError()).
#ifndef PARITY_GPU_KERNELS_KERNELS_H_
#define PARITY_GPU_KERNELS_KERNELS_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/kernels/elementwise_body.h"  // Binary, BroadcastGeometry, kMaxRank
#include "gpu/kernels/grad2_body.h"        // BinaryGrad
#include "gpu/kernels/reduce_body.h"       // ReduceGeometry
#include "gpu/kernels/sum_body.h"          // SumInputs, ForEachSumChunk

namespace parity::gpu::kernels {

// Float elementwise functions, named after their ops; each matches the CPU kernel's definition
// (core/ops/unary/unary.cc), NaN kept where the CPU keeps it.
enum class Unary {
  kRelu, kSigmoid, kTanh, kExp, kLog, kSqrt, kSqr, kAbs, kNeg, kReciprocal, kSin, kCos,
  kSoftsign, kFloor, kCeil,
};
void UnaryFloat(Unary fn, const float* x, float* y, int64_t n, cudaStream_t stream);

// Broadcasting binary arithmetic (elementwise_body.h's BinaryBody per output element).
void BinaryFloat(Binary fn, const float* a, const float* b, float* y, int64_t n,
                 const BroadcastGeometry& geometry, cudaStream_t stream);

// Sum's y = x[0] + x[1] + ... + x[count - 1] over n elements, added in input order
// (sum_body.h's SumBody, in launches of up to kMaxSumInputs pointers). y may be x[0].
void SumFloat(const float* const* x, int count, float* y, int64_t n, cudaStream_t stream);

// dA or dB (fn) of MulGradient / DivGradient, n operand elements, each summing its `count`
// broadcast copies in the output's row-major order (grad2_body.h's BinaryGradBody; one thread
// per operand element, no atomics). y may not be an input.
void BinaryGradFloat(BinaryGrad fn, const float* dc, const float* a, const float* b, const float* c,
                     float* y, int64_t n, int64_t count, const ReduceGeometry& reduce,
                     const BroadcastGeometry& broadcast, cudaStream_t stream);

// y[i * cols + j] = row[j] for i < rows: FC's bias, written before the GEMM accumulates onto it.
void FillRows(const float* row, float* y, int64_t rows, int64_t cols, cudaStream_t stream);

// Softmax over rows of length d: exp(x - max) / sum, one block per row.
void SoftmaxRows(const float* x, float* y, int64_t rows, int64_t d, cudaStream_t stream);

// SoftmaxGradient over rows of length d: dx = y * (dy - <y, dy>), one thread per row
// (grad2_body.h's SoftmaxGradientRowBody). dx may be dy.
void SoftmaxGradientRows(const float* y, const float* dy, float* dx, int64_t rows, int64_t d,
                         cudaStream_t stream);

// Sum (or mean) over the reduced dims (reduce_body.h's ReduceSumBody): one thread per output
// element, summing its reduced elements in order (deterministic, no atomics).
void ReduceSumFloat(const float* x, float* y, int64_t out_numel, int64_t count, bool mean,
                    const ReduceGeometry& geometry, cudaStream_t stream);

// y[0, n) = value.
void FillFloat(float value, float* y, int64_t n, cudaStream_t stream);

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_KERNELS_H_

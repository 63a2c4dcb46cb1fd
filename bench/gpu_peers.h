// The bare-CUDA peers of bench/gpu_bench.cc (CUDA builds only): cuBLAS calls, a plain im2col
// kernel, a bias fill and a device-to-device memcpy, compiled by nvcc (bench/gpu_peers.cu). They
// take device pointers and enqueue on device 0's stream with its cuBLAS handle (gpu/context.h), the
// ones the engine's CUDA ops use, so parity and its peer run on the same stream and handle (the
// same math mode: CUBLAS_PEDANTIC_MATH, full f32, no TF32). No CUDA type appears here, so
// gpu_bench.cc compiles with g++ and without CUDA's headers.
#ifndef PARITY_BENCH_GPU_PEERS_H_
#define PARITY_BENCH_GPU_PEERS_H_

#include <cstddef>
#include <cstdint>

namespace parity::bench::gpu_peers {

// Waits for everything enqueued on device 0's stream (throws parity::Error on a CUDA error).
void Synchronize();

// Row-major Y[M, N] = A[M, K] * op(B) + beta * Y, op(B) = B[K, N] or, with trans_b, B[N, K]^T:
// one cublasSgemm.
void Sgemm(bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, const float* b,
           float beta, float* y);

// `batch` row-major products Y_i[M, N] = A_i[M, K] * B_i[K, N], consecutive in memory: one
// cublasSgemmStridedBatched.
void SgemmStridedBatched(int64_t batch, int64_t m, int64_t n, int64_t k, const float* a,
                         const float* b, float* y);

// y[i * cols + j] = row[j]: a bias broadcast over rows, one thread per element.
void FillRows(const float* row, float* y, int64_t rows, int64_t cols);

// The im2col of one NCHW image [C, H, W] (square kernel, symmetric pad, stride, no dilation) into
// col [C * k * k, out_h * out_w], zeros where the window leaves the image: one thread per col
// element.
void Im2Col(const float* image, int64_t c, int64_t h, int64_t w, int64_t kernel, int64_t pad,
            int64_t stride, float* col);

// cudaMemcpyAsync device to device of `bytes`.
void MemcpyDeviceToDevice(void* dst, const void* src, size_t bytes);

}  // namespace parity::bench::gpu_peers

#endif  // PARITY_BENCH_GPU_PEERS_H_

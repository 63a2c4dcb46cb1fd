// bench/gpu_peers.h's peers: nvcc-compiled, on device 0's CudaContext stream and cuBLAS handle.
#include <climits>
#include <stdexcept>
#include <string>

#include "bench/gpu_peers.h"
#include "gpu/context.h"

namespace parity::bench::gpu_peers {
namespace {

gpu::CudaContext& Context() { return gpu::CudaContext::Get(0); }

int Int(int64_t value) {
  if (value > INT_MAX)
    throw std::runtime_error("gpu_peers: size " + std::to_string(value) + " > INT_MAX");
  return static_cast<int>(value);
}

constexpr int kThreads = 256;

int Blocks(int64_t n) { return static_cast<int>((n + kThreads - 1) / kThreads); }

__global__ void FillRowsKernel(const float* row, float* y, int64_t rows, int64_t cols) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < rows * cols) y[i] = row[i % cols];
}

__global__ void Im2ColKernel(const float* image, int64_t h, int64_t w, int64_t kernel, int64_t pad,
                             int64_t stride, int64_t out_h, int64_t out_w, int64_t total,
                             float* col) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const int64_t out_hw = out_h * out_w;
  const int64_t row = i / out_hw, pos = i % out_hw;
  const int64_t oy = pos / out_w, ox = pos % out_w;
  const int64_t kx = row % kernel, ky = (row / kernel) % kernel, c = row / (kernel * kernel);
  const int64_t y = oy * stride - pad + ky, x = ox * stride - pad + kx;
  col[i] = (y >= 0 && y < h && x >= 0 && x < w) ? image[(c * h + y) * w + x] : 0.0f;
}

void CheckLaunch(const char* what) { gpu::CudaCheck(cudaGetLastError(), what); }

}  // namespace

void Synchronize() { Context().Synchronize(); }

void Sgemm(bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, const float* b,
           float beta, float* y) {
  // Row-major Y = A op(B) is column-major Y^T = op(B)^T A^T: cuBLAS gets B first.
  const float alpha = 1.0f;
  gpu::CublasCheck(
      cublasSgemm(Context().cublas(), trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, Int(n),
                  Int(m), Int(k), &alpha, b, Int(trans_b ? k : n), a, Int(k), &beta, y, Int(n)),
      "peer cublasSgemm");
}

void SgemmStridedBatched(int64_t batch, int64_t m, int64_t n, int64_t k, const float* a,
                         const float* b, float* y) {
  const float alpha = 1.0f, beta = 0.0f;
  gpu::CublasCheck(cublasSgemmStridedBatched(Context().cublas(), CUBLAS_OP_N, CUBLAS_OP_N, Int(n),
                                             Int(m), Int(k), &alpha, b, Int(n), k * n, a, Int(k),
                                             m * k, &beta, y, Int(n), m * n, Int(batch)),
                   "peer cublasSgemmStridedBatched");
}

void FillRows(const float* row, float* y, int64_t rows, int64_t cols) {
  FillRowsKernel<<<Blocks(rows * cols), kThreads, 0, Context().stream()>>>(row, y, rows, cols);
  CheckLaunch("peer FillRows");
}

void Im2Col(const float* image, int64_t c, int64_t h, int64_t w, int64_t kernel, int64_t pad,
            int64_t stride, float* col) {
  const int64_t out_h = (h + 2 * pad - kernel) / stride + 1;
  const int64_t out_w = (w + 2 * pad - kernel) / stride + 1;
  const int64_t total = c * kernel * kernel * out_h * out_w;
  Im2ColKernel<<<Blocks(total), kThreads, 0, Context().stream()>>>(image, h, w, kernel, pad, stride,
                                                                   out_h, out_w, total, col);
  CheckLaunch("peer Im2Col");
}

void MemcpyDeviceToDevice(void* dst, const void* src, size_t bytes) {
  gpu::CudaCheck(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, Context().stream()),
                 "peer cudaMemcpyAsync");
}

}  // namespace parity::bench::gpu_peers

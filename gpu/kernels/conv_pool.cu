// Convolution and pooling kernels: each a grid-stride loop over one body of conv_pool_body.h
// (int64 indices, so any tensor size runs with a bounded grid). The geometry travels by value as
// a kernel argument.
#include "gpu/kernels/conv_pool.h"

namespace parity::gpu::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;

int Blocks(int64_t n) {
  int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < kMaxBlocks ? (blocks > 0 ? blocks : 1) : kMaxBlocks);
}

#define PARITY_GRID_STRIDE_LOOP(i, n)                                                      \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

__global__ void Im2ColKernel(const float* x, float* col, int64_t n, ConvPoolGeometry g) {
  PARITY_GRID_STRIDE_LOOP(i, n) Im2ColBody(x, col, g, i);
}

__global__ void Col2ImKernel(const float* dcol, float* dx, int64_t n, ConvPoolGeometry g) {
  PARITY_GRID_STRIDE_LOOP(i, n) Col2ImBody(dcol, dx, g, i);
}

__global__ void FillChannelsKernel(const float* bias, float* y, int64_t n, int64_t channels,
                                   int64_t inner) {
  PARITY_GRID_STRIDE_LOOP(i, n) FillChannelsBody(bias, y, channels, inner, i);
}

__global__ void MaxPoolKernel(const float* x, float* y, int64_t* indices, int64_t n,
                              ConvPoolGeometry g) {
  PARITY_GRID_STRIDE_LOOP(i, n) MaxPoolBody(x, y, indices, g, i);
}

__global__ void AveragePoolKernel(const float* x, float* y, int64_t n, ConvPoolGeometry g,
                                  bool count_include_pad) {
  PARITY_GRID_STRIDE_LOOP(i, n) AveragePoolBody(x, y, g, count_include_pad, i);
}

__global__ void MaxPoolGradientKernel(const int64_t* argmax, const float* dy, float* dx, int64_t n,
                                      ConvPoolGeometry g) {
  PARITY_GRID_STRIDE_LOOP(i, n) MaxPoolGradientBody(argmax, dy, dx, g, i);
}

__global__ void AveragePoolGradientKernel(const float* dy, float* dx, int64_t n,
                                          ConvPoolGeometry g, bool count_include_pad) {
  PARITY_GRID_STRIDE_LOOP(i, n) AveragePoolGradientBody(dy, dx, g, count_include_pad, i);
}

__global__ void ActivationGradientKernel(ActivationGradient fn, const float* y, const float* dy,
                                         float* dx, int64_t n) {
  PARITY_GRID_STRIDE_LOOP(i, n) ActivationGradientBody(fn, y, dy, dx, i);
}

#undef PARITY_GRID_STRIDE_LOOP

}  // namespace

void Im2ColFloat(const float* x, float* col, const ConvPoolGeometry& g, cudaStream_t stream) {
  const int64_t n = g.planes * g.kernel_h * g.kernel_w * g.out_h * g.out_w;
  if (n == 0) return;
  Im2ColKernel<<<Blocks(n), kThreads, 0, stream>>>(x, col, n, g);
}

void Col2ImFloat(const float* dcol, float* dx, const ConvPoolGeometry& g, cudaStream_t stream) {
  const int64_t n = g.planes * g.H * g.W;
  if (n == 0) return;
  Col2ImKernel<<<Blocks(n), kThreads, 0, stream>>>(dcol, dx, n, g);
}

void FillChannelsFloat(const float* bias, float* y, int64_t n, int64_t channels, int64_t inner,
                       cudaStream_t stream) {
  if (n == 0) return;
  FillChannelsKernel<<<Blocks(n), kThreads, 0, stream>>>(bias, y, n, channels, inner);
}

void MaxPoolFloat(const float* x, float* y, int64_t* indices, const ConvPoolGeometry& g,
                  cudaStream_t stream) {
  const int64_t n = g.planes * g.out_h * g.out_w;
  if (n == 0) return;
  MaxPoolKernel<<<Blocks(n), kThreads, 0, stream>>>(x, y, indices, n, g);
}

void AveragePoolFloat(const float* x, float* y, const ConvPoolGeometry& g, bool count_include_pad,
                      cudaStream_t stream) {
  const int64_t n = g.planes * g.out_h * g.out_w;
  if (n == 0) return;
  AveragePoolKernel<<<Blocks(n), kThreads, 0, stream>>>(x, y, n, g, count_include_pad);
}

void MaxPoolGradientFloat(const int64_t* argmax, const float* dy, float* dx,
                          const ConvPoolGeometry& g, cudaStream_t stream) {
  const int64_t n = g.planes * g.H * g.W;
  if (n == 0) return;
  MaxPoolGradientKernel<<<Blocks(n), kThreads, 0, stream>>>(argmax, dy, dx, n, g);
}

void AveragePoolGradientFloat(const float* dy, float* dx, const ConvPoolGeometry& g,
                              bool count_include_pad, cudaStream_t stream) {
  const int64_t n = g.planes * g.H * g.W;
  if (n == 0) return;
  AveragePoolGradientKernel<<<Blocks(n), kThreads, 0, stream>>>(dy, dx, n, g, count_include_pad);
}

void ActivationGradientFloat(ActivationGradient fn, const float* y, const float* dy, float* dx,
                             int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  ActivationGradientKernel<<<Blocks(n), kThreads, 0, stream>>>(fn, y, dy, dx, n);
}

}  // namespace parity::gpu::kernels

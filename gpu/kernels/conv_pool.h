// Launchers of the convolution and pooling kernels (conv_pool.cu), float, over device pointers.
// Each wraps a body of conv_pool_body.h in a grid-stride loop, enqueues on `stream` and returns at
// once; a launch error surfaces at the caller's CheckLaunch(). None uses atomics: every thread
// writes only the element its index owns.
#ifndef PARITY_GPU_KERNELS_CONV_POOL_H_
#define PARITY_GPU_KERNELS_CONV_POOL_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/kernels/conv_pool_body.h"

namespace parity::gpu::kernels {

// col [planes * kh * kw, out_h * out_w] of one image x [planes, H, W] (Im2ColBody).
void Im2ColFloat(const float* x, float* col, const ConvPoolGeometry& g, cudaStream_t stream);

// dx [planes, H, W] of one image, written (not accumulated), from dcol (Col2ImBody).
void Col2ImFloat(const float* dcol, float* dx, const ConvPoolGeometry& g, cudaStream_t stream);

// y [N, channels, inner] = bias[channel] (FillChannelsBody), n = N * channels * inner.
void FillChannelsFloat(const float* bias, float* y, int64_t n, int64_t channels, int64_t inner,
                       cudaStream_t stream);

// MaxPool over x [planes, H, W]; y and indices (flat in x) optional (MaxPoolBody).
void MaxPoolFloat(const float* x, float* y, int64_t* indices, const ConvPoolGeometry& g,
                  cudaStream_t stream);
void AveragePoolFloat(const float* x, float* y, const ConvPoolGeometry& g, bool count_include_pad,
                      cudaStream_t stream);

// dx [planes, H, W] from dy and MaxPool's argmax indices (MaxPoolGradientBody).
void MaxPoolGradientFloat(const int64_t* argmax, const float* dy, float* dx,
                          const ConvPoolGeometry& g, cudaStream_t stream);
void AveragePoolGradientFloat(const float* dy, float* dx, const ConvPoolGeometry& g,
                              bool count_include_pad, cudaStream_t stream);

// dx[0, n) from y and dy (ActivationGradientBody).
void ActivationGradientFloat(ActivationGradient fn, const float* y, const float* dy, float* dx,
                             int64_t n, cudaStream_t stream);

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_CONV_POOL_H_

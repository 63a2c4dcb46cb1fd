// Launcher of ConvTranspose's fold (body in conv_transpose_body.h, tested on the host by
// tests/gpu/conv_transpose_body_test.cc). Device pointers.
#ifndef PARITY_GPU_KERNELS_CONV_TRANSPOSE_H_
#define PARITY_GPU_KERNELS_CONV_TRANSPOSE_H_

#include <cuda_runtime.h>

#include "gpu/kernels/conv_transpose_body.h"

namespace parity::gpu::kernels {

// y [g.planes, g.H, g.W] of one image = bias (may be null: 0) + the fold of col
// (ConvTransposeCol2ImBody), every element written.
void ConvTransposeCol2ImFloat(const float* col, const float* bias, float* y,
                              const ConvPoolGeometry& g, cudaStream_t stream);

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_CONV_TRANSPOSE_H_

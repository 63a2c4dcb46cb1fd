// Kernel bodies that compile both for the device (nvcc) and for the host (g++), so the index
// arithmetic of a CUDA kernel -- im2col's window walk, a pool's padding, a broadcast's strides --
// is tested on every machine, GPU or not. A body is a PARITY_HD function of one thread's linear
// index (plus the kernel's arguments); the .cu file wraps it in a grid-stride loop, and
// tests/gpu/*_body_test.cc runs it with RunBodyOnHost over the same index range and compares with
// the CPU engine and the reference. Bodies include no CUDA header and nothing from core/.
#ifndef PARITY_GPU_KERNELS_HOST_DEVICE_H_
#define PARITY_GPU_KERNELS_HOST_DEVICE_H_

#include <cstdint>

#if defined(__CUDACC__)
#define PARITY_HD __host__ __device__ inline
#else
#define PARITY_HD inline
#endif

namespace parity::gpu::kernels {

// What a grid-stride loop does with `body` on the device, one index after another on the host:
// the same indices, each exactly once. (Order does not matter to a body: each writes only what
// its index owns.)
template <typename Body>
void RunBodyOnHost(int64_t n, Body&& body) {
  for (int64_t i = 0; i < n; ++i) body(i);
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_HOST_DEVICE_H_

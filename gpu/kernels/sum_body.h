// Per-thread body of the Sum kernel (elementwise.cu): output element i is the sum of up to
// kMaxSumInputs inputs' element i, accumulated in input order. Host and device (host_device.h);
// tests/gpu/sum_body_test.cc runs it on the host against the CPU engine's Sum.
#ifndef PARITY_GPU_KERNELS_SUM_BODY_H_
#define PARITY_GPU_KERNELS_SUM_BODY_H_

#include <cstdint>

#include "gpu/kernels/host_device.h"

namespace parity::gpu::kernels {

// The most input pointers one Sum launch takes (they travel by value as a kernel argument).
constexpr int kMaxSumInputs = 8;

struct SumInputs {
  int count = 0;
  const float* x[kMaxSumInputs] = {};
};

// y[i] = ((x0[i] + x1[i]) + x2[i]) + ...: the CPU's order (core/ops/elementwise/variadic.cc adds
// input after input onto the running sum), so both devices give the same bits. One input is a
// copy (its -0.0 kept, as the CPU's). Every input is read before y[i] is written, so y may be
// one of the inputs.
PARITY_HD void SumBody(const SumInputs& in, float* y, int64_t i) {
  float acc = in.x[0][i];
  for (int k = 1; k < in.count; ++k) acc += in.x[k][i];
  y[i] = acc;
}

// The launches of a Sum over `count` (>= 1) inputs: the first takes inputs 0..7, each further one
// the running sum y and the next 7 inputs, so the additions happen in input order whatever
// `count` is. `launch(const SumInputs&)` runs SumBody over every element (host code: the CUDA
// launcher and the host test share it).
template <class Launch>
void ForEachSumChunk(const float* const* x, int count, float* y, Launch&& launch) {
  int next = 0;
  while (next < count) {
    SumInputs in;
    if (next > 0) in.x[in.count++] = y;
    while (in.count < kMaxSumInputs && next < count) in.x[in.count++] = x[next++];
    launch(in);
  }
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_SUM_BODY_H_

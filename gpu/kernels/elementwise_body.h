// Per-thread bodies of the elementwise kernels (elementwise.cu): the broadcast index walk of the
// binary ops. Host and device (host_device.h); tests/gpu/elementwise_body_test.cc runs them on the
// host against the CPU engine.
#ifndef PARITY_GPU_KERNELS_ELEMENTWISE_BODY_H_
#define PARITY_GPU_KERNELS_ELEMENTWISE_BODY_H_

#include <cstdint>

#include "gpu/kernels/host_device.h"

namespace parity::gpu::kernels {

// The most dims a kernel geometry holds: geometries travel by value as kernel arguments, so they
// are fixed-size (a few hundred bytes, well within CUDA's argument limit).
constexpr int kMaxRank = 8;

enum class Binary { kAdd, kSub, kMul, kDiv };

// Broadcast geometry of a binary op, the output's dims padded to kMaxRank on the left with 1s;
// an operand's stride is 0 along a dim it broadcasts.
struct BroadcastGeometry {
  int rank = 0;
  int64_t out_dims[kMaxRank] = {};
  int64_t a_strides[kMaxRank] = {};
  int64_t b_strides[kMaxRank] = {};
};

// The elements of A and B that output element i combines: its coordinates in the output (last
// dim fastest), dotted with each operand's strides.
struct BroadcastOffsets {
  int64_t a = 0, b = 0;
};
PARITY_HD BroadcastOffsets BroadcastOffsetsOf(const BroadcastGeometry& g, int64_t i) {
  BroadcastOffsets o;
  int64_t rest = i;
  for (int d = g.rank - 1; d >= 0; --d) {
    const int64_t coord = rest % g.out_dims[d];
    rest /= g.out_dims[d];
    o.a += coord * g.a_strides[d];
    o.b += coord * g.b_strides[d];
  }
  return o;
}

PARITY_HD float ApplyBinary(Binary fn, float a, float b) {
  switch (fn) {
    case Binary::kAdd: return a + b;
    case Binary::kSub: return a - b;
    case Binary::kMul: return a * b;
    case Binary::kDiv: return a / b;  // IEEE division (nvcc's default -prec-div=true)
  }
  return a;
}

// Output element i of a broadcasting binary op.
PARITY_HD void BinaryBody(Binary fn, const float* a, const float* b, float* y,
                          const BroadcastGeometry& g, int64_t i) {
  const BroadcastOffsets o = BroadcastOffsetsOf(g, i);
  y[i] = ApplyBinary(fn, a[o.a], b[o.b]);
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_ELEMENTWISE_BODY_H_

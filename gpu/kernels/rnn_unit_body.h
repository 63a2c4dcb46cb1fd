// LSTMUnit and GRUUnit, one element of the [1, N, D] states per index (core/ops/rnn_unit's
// formulas, rounding step by step as the CPU does). valid[n] is 0 for a row past its sequence,
// which keeps its previous state (zeros with drop_states).
#ifndef PARITY_GPU_KERNELS_RNN_UNIT_BODY_H_
#define PARITY_GPU_KERNELS_RNN_UNIT_BODY_H_

#include <cmath>
#include <cstdint>

#include "gpu/kernels/host_device.h"
#include "gpu/kernels/ieee_body.h"

namespace parity::gpu::kernels {

// gates [N, 4D] in order [i, f, o, g]: c = s(f + forget_bias) * c_prev + s(i) * tanh(g),
// h = s(o) * tanh(c). Elementwise, so c may be c_prev (in place).
PARITY_HD void LSTMUnitElement(int64_t index, int64_t d, const float* h_prev, const float* c_prev,
                               const float* gates, const int32_t* valid, float forget_bias,
                               bool drop_states, float* h, float* c) {
  const int64_t n = index / d;
  const int64_t j = index % d;
  if (!valid[n]) {
    h[index] = drop_states ? 0.0f : h_prev[index];
    c[index] = drop_states ? 0.0f : c_prev[index];
    return;
  }
  const float* x = gates + n * 4 * d;
  const float cell = Add(Mul(Sigmoid(Add(x[d + j], forget_bias)), c_prev[index]),
                         Mul(Sigmoid(x[j]), ::tanhf(x[3 * d + j])));
  c[index] = cell;
  h[index] = Mul(Sigmoid(x[2 * d + j]), ::tanhf(cell));
}

// gates [N, 3D] in order [r, u, o] (r is applied inside the step net):
// h = h_prev * s(u) + tanh(o) * (1 - s(u)).
PARITY_HD void GRUUnitElement(int64_t index, int64_t d, const float* h_prev, const float* gates,
                              const int32_t* valid, bool drop_states, float* h) {
  const int64_t n = index / d;
  const int64_t j = index % d;
  if (!valid[n]) {
    h[index] = drop_states ? 0.0f : h_prev[index];
    return;
  }
  const float* x = gates + n * 3 * d;
  const float u = Sigmoid(x[d + j]);
  h[index] = Add(Mul(h_prev[index], u), Mul(::tanhf(x[2 * d + j]), Sub(1.0f, u)));
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_RNN_UNIT_BODY_H_

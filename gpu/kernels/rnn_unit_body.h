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

// LSTMUnitGradient, element (n, j): from the forward inputs, the forward cell state c and the
// output gradients dh, dc (core/ops/rnn_unit/rnn_unit_grad.cc's formulas and grouping):
//   dct = dc + dh * o * (1 - tanh(c)^2); dc_prev = dct * f; dh_prev = 0;
//   di = dct * g * i * (1 - i); df = dct * c_prev * f * (1 - f); do = dh * tanh(c) * o * (1 - o);
//   dg = dct * i * (1 - g^2); rows past their sequence pass dh, dc through (0 with drop_states)
// and get zero gate gradients. Every read of dh / dc precedes the writes, so the gradients may
// alias them.
PARITY_HD void LSTMUnitGradientElement(int64_t index, int64_t d, const float* c_prev,
                                       const float* gates, const float* c, const float* dh,
                                       const float* dc, const int32_t* valid, float forget_bias,
                                       bool drop_states, float* dh_prev, float* dc_prev,
                                       float* dgates) {
  const int64_t n = index / d;
  const int64_t j = index % d;
  float* gx = dgates + n * 4 * d;
  const float dh_v = dh[index];
  const float dc_v = dc[index];
  if (!valid[n]) {
    gx[j] = gx[d + j] = gx[2 * d + j] = gx[3 * d + j] = 0.0f;
    dh_prev[index] = drop_states ? 0.0f : dh_v;
    dc_prev[index] = drop_states ? 0.0f : dc_v;
    return;
  }
  const float* x = gates + n * 4 * d;
  const float i = Sigmoid(x[j]);
  const float f = Sigmoid(Add(x[d + j], forget_bias));
  const float o = Sigmoid(x[2 * d + j]);
  const float g = ::tanhf(x[3 * d + j]);
  const float tanh_c = ::tanhf(c[index]);
  const float dct = Add(dc_v, Mul(Mul(dh_v, o), Sub(1.0f, Mul(tanh_c, tanh_c))));
  gx[j] = Mul(Mul(Mul(dct, g), i), Sub(1.0f, i));
  gx[d + j] = Mul(Mul(Mul(dct, c_prev[index]), f), Sub(1.0f, f));
  gx[2 * d + j] = Mul(Mul(Mul(dh_v, tanh_c), o), Sub(1.0f, o));
  gx[3 * d + j] = Mul(Mul(dct, i), Sub(1.0f, Mul(g, g)));
  dc_prev[index] = Mul(dct, f);
  dh_prev[index] = 0.0f;
}

// GRUUnitGradient, element (n, j): u = s(x_u), o = tanh(x_o);
//   dr = 0; du = dh * (h_prev - o) * u * (1 - u); do = dh * (1 - u) * (1 - o^2); dh_prev = dh * u;
// rows past their sequence: zero gate gradients, dh_prev = dh (0 with drop_states).
PARITY_HD void GRUUnitGradientElement(int64_t index, int64_t d, const float* h_prev,
                                      const float* gates, const float* dh, const int32_t* valid,
                                      bool drop_states, float* dh_prev, float* dgates) {
  const int64_t n = index / d;
  const int64_t j = index % d;
  float* gx = dgates + n * 3 * d;
  const float dh_v = dh[index];
  gx[j] = 0.0f;
  if (!valid[n]) {
    gx[d + j] = gx[2 * d + j] = 0.0f;
    dh_prev[index] = drop_states ? 0.0f : dh_v;
    return;
  }
  const float* x = gates + n * 3 * d;
  const float u = Sigmoid(x[d + j]);
  const float o = ::tanhf(x[2 * d + j]);
  gx[d + j] = Mul(Mul(Mul(dh_v, Sub(h_prev[index], o)), u), Sub(1.0f, u));
  gx[2 * d + j] = Mul(Mul(dh_v, Sub(1.0f, u)), Sub(1.0f, Mul(o, o)));
  dh_prev[index] = Mul(dh_v, u);
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_RNN_UNIT_BODY_H_

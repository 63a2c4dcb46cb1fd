// SpatialBN and LayerNorm bodies (core/ops/norm/norm.cc's arithmetic, in its precision: SpatialBN's
// statistics and coefficients in double, the normalization itself in float). Sums run serially in
// index order, one thread per channel or row: deterministic, no atomics. The CPU sums NHWC rows in
// the same order (bit-identical), but NCHW blocks and LayerNorm rows through Eigen's vectorized
// sum, whose other order can move the last bit.
#ifndef PARITY_GPU_KERNELS_NORM_BODY_H_
#define PARITY_GPU_KERNELS_NORM_BODY_H_

#include <cmath>
#include <cstdint>

#include "gpu/kernels/host_device.h"
#include "gpu/kernels/ieee_body.h"

namespace parity::gpu::kernels {

// X seen as N x C x HxW (NCHW) or N x HxW x C (NHWC).
struct BNShape {
  int64_t n = 0;
  int64_t c = 0;
  int64_t hxw = 0;
  bool nchw = true;
};

PARITY_HD int64_t BNChannelOf(int64_t index, const BNShape& s) {
  return s.nchw ? (index / s.hxw) % s.c : index % s.c;
}

// Inference coefficients of channel c: y = (x - shift) * alpha + beta with
// alpha = scale / sqrt(var + epsilon), computed in double and rounded once to float.
PARITY_HD void BNInferenceCoefficients(int64_t c, const float* scale, const float* bias,
                                       const float* mean, const float* var, double epsilon,
                                       float* alpha, float* shift, float* beta) {
  alpha[c] = static_cast<float>(static_cast<double>(scale[c]) /
                                ::sqrt(AddD(static_cast<double>(var[c]), epsilon)));
  shift[c] = mean[c];
  beta[c] = bias[c];
}

struct BNTrainArgs {
  double epsilon = 1e-5;
  double momentum = 0.9;
  int64_t num_batches = 1;
  const float* sums = nullptr;   // inputs 5 and 6 when num_batches > 1
  const float* sumsq = nullptr;
};

// Training statistics of channel c: the batch mean and (biased) variance in double -- from X, or
// from the given sums when num_batches > 1 -- then the running statistics (updated in place:
// running_var takes the unbiased variance), the saved mean and 1 / sqrt(var + epsilon), and the
// float coefficients of the normalization.
PARITY_HD void BNTrainChannel(int64_t c, const float* x, const BNShape& s, const BNTrainArgs& a,
                              const float* scale, const float* bias, float* running_mean,
                              float* running_var, float* saved_mean, float* saved_rstd,
                              float* alpha, float* shift, float* beta) {
  const double count = static_cast<double>(a.num_batches * s.n * s.hxw);
  double m = 0.0, v = 0.0;
  if (a.num_batches > 1) {
    m = static_cast<double>(a.sums[c]) / count;
    v = SubD(static_cast<double>(a.sumsq[c]) / count, MulD(m, m));
  } else {
    // Rows in order, n then the spatial position, as the CPU adds them.
    for (int64_t n = 0; n < s.n; ++n) {
      for (int64_t k = 0; k < s.hxw; ++k) {
        const int64_t at = s.nchw ? (n * s.c + c) * s.hxw + k : (n * s.hxw + k) * s.c + c;
        m = AddD(m, static_cast<double>(x[at]));
      }
    }
    m /= count;
    for (int64_t n = 0; n < s.n; ++n) {
      for (int64_t k = 0; k < s.hxw; ++k) {
        const int64_t at = s.nchw ? (n * s.c + c) * s.hxw + k : (n * s.hxw + k) * s.c + c;
        const double dev = SubD(static_cast<double>(x[at]), m);
        v = AddD(v, MulD(dev, dev));
      }
    }
    v /= count;
  }
  const double unbias = count == 1 ? INFINITY : count / (count - 1);
  const double keep = 1 - a.momentum;
  running_mean[c] = static_cast<float>(
      AddD(MulD(keep, m), MulD(a.momentum, static_cast<double>(running_mean[c]))));
  running_var[c] = static_cast<float>(AddD(MulD(MulD(keep, unbias), v),
                                           MulD(a.momentum, static_cast<double>(running_var[c]))));
  const float rstd = static_cast<float>(1.0 / ::sqrt(AddD(v, a.epsilon)));
  saved_mean[c] = static_cast<float>(m);
  saved_rstd[c] = rstd;
  alpha[c] = static_cast<float>(MulD(static_cast<double>(scale[c]), static_cast<double>(rstd)));
  shift[c] = static_cast<float>(m);
  beta[c] = bias[c];
}

// One element of Y (Y may be X).
PARITY_HD void BNApply(int64_t index, const float* x, const BNShape& s, const float* alpha,
                       const float* shift, const float* beta, float* y) {
  const int64_t c = BNChannelOf(index, s);
  y[index] = Add(Mul(Sub(x[index], shift[c]), alpha[c]), beta[c]);
}

// One row of LayerNorm: mean and sqrt(var + epsilon) over its n elements (float, as the CPU),
// then (x - mean) / std, scaled and shifted by gamma / beta when they are given.
PARITY_HD void LayerNormRow(int64_t row, const float* x, int64_t n, float epsilon,
                            const float* gamma, const float* beta, float* y, float* mean,
                            float* sd) {
  const float* xr = x + row * n;
  float* yr = y + row * n;
  float sum = 0.0f;
  for (int64_t j = 0; j < n; ++j) sum = Add(sum, xr[j]);
  const float mu = sum / static_cast<float>(n);
  float sq = 0.0f;
  for (int64_t j = 0; j < n; ++j) {
    const float dev = Sub(xr[j], mu);
    sq = Add(sq, Mul(dev, dev));
  }
  const float s = ::sqrtf(Add(sq / static_cast<float>(n), epsilon));
  mean[row] = mu;
  sd[row] = s;
  for (int64_t j = 0; j < n; ++j) {
    const float out = Sub(xr[j], mu) / s;
    yr[j] = gamma != nullptr ? Add(Mul(out, gamma[j]), beta[j]) : out;
  }
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_NORM_BODY_H_

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

// ---- Gradients (core/ops/norm/norm_grad.cc).

// SpatialBNGradient, channel c: with mean and rstd from the saved statistics (training) or from
// the running mean and variance (is_test: rstd = 1 / sqrt(var + epsilon)), the sums
// dbias = sum(dY) and dscale = sum(dY * (x - mean)) * rstd in double -- summed per spatial plane
// and then scaled (NCHW) or per element (NHWC), as the CPU groups them -- and the float
// coefficients of dX = a * dY + b * (x - mean) + k.
PARITY_HD void BNGradientChannel(int64_t c, const float* x, const float* dy, const BNShape& s,
                                 bool is_test, double epsilon, const float* scale,
                                 const float* stat_mean, const float* stat_second, float* dscale,
                                 float* dbias, float* coefficients) {
  const double mean = static_cast<double>(stat_mean[c]);
  const double rstd = is_test ? 1.0 / ::sqrt(AddD(static_cast<double>(stat_second[c]), epsilon))
                              : static_cast<double>(stat_second[c]);
  double db = 0.0, ds = 0.0;
  for (int64_t n = 0; n < s.n; ++n) {
    double plane_g = 0.0, plane_gx = 0.0;
    for (int64_t k = 0; k < s.hxw; ++k) {
      const int64_t at = s.nchw ? (n * s.c + c) * s.hxw + k : (n * s.hxw + k) * s.c + c;
      const double g = static_cast<double>(dy[at]);
      const double gx = MulD(g, SubD(static_cast<double>(x[at]), mean));
      if (s.nchw) {
        plane_g = AddD(plane_g, g);
        plane_gx = AddD(plane_gx, gx);
      } else {
        db = AddD(db, g);
        ds = AddD(ds, MulD(gx, rstd));
      }
    }
    if (s.nchw) {
      db = AddD(db, plane_g);
      ds = AddD(ds, MulD(plane_gx, rstd));
    }
  }
  const double m = static_cast<double>(s.n * s.hxw);
  const double sr = MulD(static_cast<double>(scale[c]), rstd);
  const bool constant_stats = is_test || m == 0;
  float* a = coefficients;
  float* b = coefficients + s.c;
  float* k = coefficients + 2 * s.c;
  float* centre = coefficients + 3 * s.c;
  a[c] = static_cast<float>(sr);
  b[c] = constant_stats ? 0.0f : static_cast<float>(MulD(MulD(-sr, rstd), ds) / m);
  k[c] = constant_stats ? 0.0f : static_cast<float>(MulD(-sr, db / m));
  centre[c] = static_cast<float>(mean);
  dscale[c] = static_cast<float>(ds);
  dbias[c] = static_cast<float>(db);
}

// One element of SpatialBNGradient's dX from the channel coefficients (dX may be dY).
PARITY_HD void BNGradientApply(int64_t index, const float* x, const float* dy, const BNShape& s,
                               const float* coefficients, float* dx) {
  const int64_t c = BNChannelOf(index, s);
  const float a = coefficients[c];
  const float b = coefficients[s.c + c];
  const float k = coefficients[2 * s.c + c];
  const float centre = coefficients[3 * s.c + c];
  dx[index] = Add(Add(Mul(a, dy[index]), Mul(b, Sub(x[index], centre))), k);
}

// LayerNormGradient, row i of n, in double: xhat = (x - mean) / std, g = dY (times gamma with
// elementwise_affine), dX = (g - mean(g) - xhat * mean(g * xhat)) / std.
PARITY_HD void LayerNormGradientRow(int64_t row, const float* dy, const float* x,
                                    const float* mean, const float* sd, const float* gamma,
                                    int64_t n, float* dx) {
  const double inv = 1.0 / static_cast<double>(sd[row]);
  const double mu = static_cast<double>(mean[row]);
  const float* dyr = dy + row * n;
  const float* xr = x + row * n;
  double sum_g = 0.0, sum_gx = 0.0;
  for (int64_t j = 0; j < n; ++j) {
    const double xhat = MulD(SubD(static_cast<double>(xr[j]), mu), inv);
    const double g = gamma != nullptr ? MulD(static_cast<double>(dyr[j]), gamma[j])
                                      : static_cast<double>(dyr[j]);
    sum_g = AddD(sum_g, g);
    sum_gx = AddD(sum_gx, MulD(g, xhat));
  }
  const double mean_g = sum_g / static_cast<double>(n);
  const double mean_gx = sum_gx / static_cast<double>(n);
  for (int64_t j = 0; j < n; ++j) {
    const double xhat = MulD(SubD(static_cast<double>(xr[j]), mu), inv);
    const double g = gamma != nullptr ? MulD(static_cast<double>(dyr[j]), gamma[j])
                                      : static_cast<double>(dyr[j]);
    dx[row * n + j] = static_cast<float>(MulD(SubD(SubD(g, mean_g), MulD(xhat, mean_gx)), inv));
  }
}

// LayerNormGradient's dgamma / dbeta, column j: sums over the m rows, in row order (as the CPU
// accumulates them), of dY * xhat and dY.
PARITY_HD void LayerNormParamGradientColumn(int64_t j, const float* dy, const float* x,
                                            const float* mean, const float* sd, int64_t m,
                                            int64_t n, float* dgamma, float* dbeta) {
  double dg = 0.0, db = 0.0;
  for (int64_t i = 0; i < m; ++i) {
    const double inv = 1.0 / static_cast<double>(sd[i]);
    const double xhat =
        MulD(SubD(static_cast<double>(x[i * n + j]), static_cast<double>(mean[i])), inv);
    const double g = static_cast<double>(dy[i * n + j]);
    dg = AddD(dg, MulD(g, xhat));
    db = AddD(db, g);
  }
  dgamma[j] = static_cast<float>(dg);
  dbeta[j] = static_cast<float>(db);
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_NORM_BODY_H_

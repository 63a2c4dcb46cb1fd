// Loss bodies (core/ops/loss/loss.cc's arithmetic, rounding step by step as the CPU does). One
// thread per row, summing serially: deterministic, no atomics. Labels were range-checked on the
// host before the launch, with the CPU's messages.
#ifndef PARITY_GPU_KERNELS_LOSS_BODY_H_
#define PARITY_GPU_KERNELS_LOSS_BODY_H_

#include <cmath>
#include <cstdint>

#include "gpu/kernels/host_device.h"
#include "gpu/kernels/ieee_body.h"

namespace parity::gpu::kernels {

// Caffe2's floor inside -log(p) (loss_util::kLogThreshold).
constexpr double kLossLogThreshold = 1e-20;

// out[i] = 0.5 * sum_j (x[i, j] - y[i, j])^2 over a row of d.
PARITY_HD void SquaredL2DistanceRow(int64_t i, const float* x, const float* y, int64_t d,
                                    float* out) {
  float sum = 0.0f;
  for (int64_t j = i * d; j < (i + 1) * d; ++j) {
    const float diff = Sub(x[j], y[j]);
    sum = Add(sum, Mul(diff, diff));
  }
  out[i] = Mul(0.5f, sum);
}

// out[i] = -log(max(x[i, label[i]], 1e-20)).
template <typename Index>
PARITY_HD void LabelCrossEntropyRow(int64_t i, const float* x, const Index* labels, int64_t d,
                                    float* out) {
  const float p = x[i * d + static_cast<int64_t>(labels[i])];
  const float floor = static_cast<float>(kLossLogThreshold);
  out[i] = -::logf(p < floor ? floor : p);  // std::max's order: NaN stays NaN
}

enum class SigmoidCEMode { kDefault, kLogDTrick, kUnjoined };

// One term of SigmoidCrossEntropyWithLogits (loss.cc's Term), then -mean over a row of `inner`.
PARITY_HD float SigmoidCETerm(float x, float t, SigmoidCEMode mode) {
  const float tail = ::log1pf(::expf(-::fabsf(x)));  // log(1 + exp(-|x|))
  if (mode == SigmoidCEMode::kLogDTrick) {
    const float softplus = Add(x < 0.0f ? 0.0f : x, tail);  // std::max(x, 0): NaN stays NaN
    return Mul(Sub(Mul(2.0f, t), 1.0f), Sub(x, softplus));
  }
  const float pos = x >= 0.0f ? 1.0f : 0.0f;
  if (mode == SigmoidCEMode::kUnjoined) {
    return Sub(Add(Mul(x, t), Mul(Mul(Sub(t, 1.0f), x), pos)), Mul(Sub(1.0f, t), tail));
  }
  return Sub(Mul(x, Sub(t, pos)), tail);
}

PARITY_HD void SigmoidCERow(int64_t i, const float* x, const float* t, int64_t inner,
                            SigmoidCEMode mode, float* out) {
  float value = 0.0f;
  for (int64_t j = i * inner; j < (i + 1) * inner; ++j) {
    value = Add(value, SigmoidCETerm(x[j], t[j], mode));
  }
  out[i] = -value / static_cast<float>(inner);
}

// SoftmaxWithLoss, row i of d logits: p = exp(x - max) / sum (float, as the CPU), and the row's
// weighted loss and weight in double -- w * (log(sum) - (x[label] - max)) with class labels, or
// w * -sum_j log(max(p_j, 1e-20)) * q_j with label probabilities (probs non-null, labels
// ignored). weights may be null (all 1).
template <typename Index>
PARITY_HD void SoftmaxLossRow(int64_t i, const float* x, int64_t d, const Index* labels,
                              const float* probs, const float* weights, float* p,
                              double* row_loss, double* row_weight) {
  const float* xr = x + i * d;
  float* pr = p + i * d;
  float m = d > 0 ? xr[0] : 0.0f;
  for (int64_t j = 1; j < d; ++j) m = xr[j] > m ? xr[j] : m;
  float s = 0.0f;
  for (int64_t j = 0; j < d; ++j) {
    pr[j] = ::expf(Sub(xr[j], m));
    s = Add(s, pr[j]);
  }
  for (int64_t j = 0; j < d; ++j) pr[j] = pr[j] / s;
  const double w = weights != nullptr ? static_cast<double>(weights[i]) : 1.0;
  if (probs == nullptr) {
    const float picked = Sub(xr[static_cast<int64_t>(labels[i])], m);
    row_loss[i] = MulD(w, SubD(::log(static_cast<double>(s)), static_cast<double>(picked)));
  } else {
    double l = 0.0;
    for (int64_t j = 0; j < d; ++j) {
      const double q = probs[i * d + j];
      const double pj = static_cast<double>(pr[j]);
      l = SubD(l, MulD(::log(pj < kLossLogThreshold ? kLossLogThreshold : pj), q));
    }
    row_loss[i] = MulD(l, w);
  }
  row_weight[i] = w;
}

// The loss from the rows' terms, summed in row order as the CPU does: loss_sum * scale /
// weight_sum, or 0 when the weights sum to 0.
PARITY_HD void SoftmaxLossTotal(const double* row_loss, const double* row_weight, int64_t n,
                                double scale, float* loss) {
  double loss_sum = 0.0, weight_sum = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    loss_sum = AddD(loss_sum, row_loss[i]);
    weight_sum = AddD(weight_sum, row_weight[i]);
  }
  loss[0] = weight_sum != 0.0 ? static_cast<float>(MulD(loss_sum, scale) / weight_sum) : 0.0f;
}

// ---- Gradients (core/ops/loss/loss_grad.cc), one element each.

// SquaredL2DistanceGradient: dx = (x - y) * g[row], dy = -dx, rows of d.
PARITY_HD void SquaredL2DistanceGradientElement(int64_t k, const float* x, const float* y,
                                                const float* g, int64_t d, float* dx,
                                                float* dy) {
  const float v = Mul(Sub(x[k], y[k]), g[k / d]);
  dx[k] = v;
  dy[k] = -v;
}

// LabelCrossEntropyGradient: -g[i] / max(x, 1e-20) at the label of row i, 0 elsewhere.
template <typename Index>
PARITY_HD void LabelCrossEntropyGradientElement(int64_t k, const float* x, const Index* labels,
                                                const float* g, int64_t d, float* dx) {
  const int64_t i = k / d;
  if (k % d != static_cast<int64_t>(labels[i])) {
    dx[k] = 0.0f;
    return;
  }
  const float floor = static_cast<float>(kLossLogThreshold);
  dx[k] = -g[i] / (x[k] < floor ? floor : x[k]);
}

// SoftmaxWithLossGradient: with f_i = float(factor * w_i) (factor = scale * dLoss / sum(w),
// computed on the host in double as the CPU does), dx = p * f_i - f_i at the label and p * f_i
// elsewhere, or (p - q) * f_i with label probabilities q (probs non-null).
template <typename Index>
PARITY_HD void SoftmaxLossGradientElement(int64_t k, const float* p, int64_t d,
                                          const Index* labels, const float* probs,
                                          const float* weights, double factor, float* dx) {
  const int64_t i = k / d;
  const float f = static_cast<float>(
      MulD(factor, weights != nullptr ? static_cast<double>(weights[i]) : 1.0));
  if (probs != nullptr) {
    dx[k] = Mul(Sub(p[k], probs[k]), f);
    return;
  }
  const float v = Mul(p[k], f);
  dx[k] = k % d == static_cast<int64_t>(labels[i]) ? Sub(v, f) : v;
}

// SigmoidCrossEntropyWithLogitsGradient: s = sigmoid(x) (exp of -x or x, as the CPU's
// StableSigmoid), the term's derivative per mode, times -g[row] / inner.
PARITY_HD void SigmoidCEGradientElement(int64_t k, const float* g, const float* x,
                                        const float* t, int64_t inner, SigmoidCEMode mode,
                                        float* dx) {
  const float f = g[k / inner] / static_cast<float>(inner);
  const float xv = x[k];
  float s;
  if (xv >= 0.0f) {
    s = 1.0f / Add(1.0f, ::expf(-xv));
  } else {
    const float e = ::expf(xv);
    s = e / Add(1.0f, e);
  }
  const float tv = t[k];
  float term;
  if (mode == SigmoidCEMode::kLogDTrick) {
    term = Mul(Sub(Mul(2.0f, tv), 1.0f), Sub(1.0f, s));
  } else if (mode == SigmoidCEMode::kUnjoined) {
    term = Sub(tv, Mul(Sub(1.0f, tv), s));
  } else {
    term = Sub(tv, s);
  }
  dx[k] = Mul(-term, f);
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_LOSS_BODY_H_

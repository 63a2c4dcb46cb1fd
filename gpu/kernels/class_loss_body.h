// Bodies of ONNX's class losses on the device (core/ops/loss/nll.cc's arithmetic, rounding step
// by step as the CPU does): NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss and their
// gradients, over X [N, C, D] (D the product of the trailing dims) and P = N * D target positions.
//
// The targets arrive as `classes`, one int64 per position: the class, or -1 where the target is
// ignore_index. The op builds them on the host with the CPU's checks and messages before any
// launch, so no body meets a target out of range. The per-position sums (log-softmax over the
// classes) run serially in the CPU's order, and the reduction over positions is summed by one
// thread in position order, in double as the CPU sums: deterministic, no atomics.
#ifndef PARITY_GPU_KERNELS_CLASS_LOSS_BODY_H_
#define PARITY_GPU_KERNELS_CLASS_LOSS_BODY_H_

#include <cmath>
#include <cstdint>

#include "gpu/kernels/host_device.h"
#include "gpu/kernels/ieee_body.h"

namespace parity::gpu::kernels {

enum class ClassReduction { kNone, kSum, kMean };

struct ClassDims {
  int64_t n = 0, c = 0, d = 1;
};

// The weight of a class (1 without weights), in double as the CPU's WeightOf.
PARITY_HD double ClassWeight(const float* weights, int64_t cls) {
  return weights != nullptr ? static_cast<double>(weights[cls]) : 1.0;
}

// The max over the classes of position p and log(sum exp(x - max)) rounded to float. The max is
// std::max's (m < v ? v : m from -inf), so a NaN score never becomes the max but reaches the sum.
struct LogSoftmaxStats {
  float max;
  float log_sum;
};
PARITY_HD LogSoftmaxStats LogSoftmaxStatsAt(int64_t p, const float* x, const ClassDims& s) {
  const float* row = x + (p / s.d) * s.c * s.d + p % s.d;
  float m = -INFINITY;
  for (int64_t c = 0; c < s.c; ++c) m = m < row[c * s.d] ? row[c * s.d] : m;
  double sum = 0.0;
  for (int64_t c = 0; c < s.c; ++c) {
    sum = AddD(sum, ::exp(static_cast<double>(Sub(row[c * s.d], m))));
  }
  return {m, static_cast<float>(::log(sum))};
}

// SoftmaxCrossEntropyLoss's log_prob at position p: (x - max) - log_sum per class (in place is
// safe: each class is read before it is written, and positions are disjoint).
PARITY_HD void LogSoftmaxPosition(int64_t p, const float* x, const ClassDims& s, float* out) {
  const LogSoftmaxStats st = LogSoftmaxStatsAt(p, x, s);
  const int64_t base = (p / s.d) * s.c * s.d + p % s.d;
  for (int64_t c = 0; c < s.c; ++c) {
    out[base + c * s.d] = Sub(Sub(x[base + c * s.d], st.max), st.log_sum);
  }
}

// The loss term of position p from log-probabilities logp: -w * logp at the target's class (0
// where ignored). Reduction none writes it to y (float); the others keep the term and its weight
// for ClassLossTotal.
PARITY_HD void ClassLossTerm(int64_t p, const float* logp, const int64_t* classes,
                             const float* weights, const ClassDims& s, ClassReduction reduction,
                             float* y, double* term, double* weight) {
  const int64_t cls = classes[p];
  double l = 0.0, w = 0.0;
  if (cls >= 0) {
    w = ClassWeight(weights, cls);
    l = MulD(-w, static_cast<double>(logp[((p / s.d) * s.c + cls) * s.d + p % s.d]));
  }
  if (reduction == ClassReduction::kNone) {
    y[p] = static_cast<float>(l);
  } else {
    term[p] = l;
    weight[p] = w;
  }
}

// The sum (kSum) or weighted mean (kMean) of the positions' terms, added in position order as the
// CPU adds them (the weights of ignored positions left out); 0 / 0 is NaN, as on the CPU.
PARITY_HD void ClassLossTotal(int64_t positions, const double* term, const double* weight,
                              const int64_t* classes, ClassReduction reduction, float* y) {
  double total = 0.0, weights = 0.0;
  for (int64_t p = 0; p < positions; ++p) {
    if (classes[p] >= 0) weights = AddD(weights, weight[p]);
    total = AddD(total, term[p]);
  }
  y[0] = static_cast<float>(reduction == ClassReduction::kSum ? total : total / weights);
}

// ---- Gradients.

// The sum of the weights of the positions not ignored, in position order (kMean's divisor).
PARITY_HD void ClassWeightTotal(int64_t positions, const int64_t* classes, const float* weights,
                                double* total) {
  double sum = 0.0;
  for (int64_t p = 0; p < positions; ++p) {
    if (classes[p] >= 0) sum = AddD(sum, ClassWeight(weights, classes[p]));
  }
  total[0] = sum;
}

// The gradient's scale at position p (the CPU's Scales): w * dLoss[p] (none), w * dLoss (sum),
// w * dLoss / weight_total[0] (mean: ClassWeightTotal's, read for mean only), 0 where ignored.
PARITY_HD double ClassGradScale(int64_t p, const int64_t* classes, const float* weights,
                                const float* dloss, ClassReduction reduction,
                                const double* weight_total) {
  const int64_t cls = classes[p];
  if (cls < 0) return 0.0;
  const double w = ClassWeight(weights, cls);
  switch (reduction) {
    case ClassReduction::kNone:
      return MulD(w, static_cast<double>(dloss[p]));
    case ClassReduction::kSum:
      return MulD(w, static_cast<double>(dloss[0]));
    case ClassReduction::kMean:
      return MulD(w, static_cast<double>(dloss[0])) / weight_total[0];
  }
  return 0.0;
}

// NegativeLogLikelihoodLossGradient at element k of dX [N, C, D]: -scale at the target's class,
// 0 elsewhere and at ignored positions.
PARITY_HD void NllGradientElement(int64_t k, const int64_t* classes, const float* weights,
                                  const float* dloss, const ClassDims& s, ClassReduction reduction,
                                  const double* weight_total, float* dx) {
  const int64_t p = (k / (s.c * s.d)) * s.d + k % s.d;
  const int64_t c = (k / s.d) % s.c;
  if (classes[p] < 0 || classes[p] != c) {
    dx[k] = 0.0f;
    return;
  }
  dx[k] = static_cast<float>(-ClassGradScale(p, classes, weights, dloss, reduction, weight_total));
}

// SoftmaxCrossEntropyLossGradient, first pass per position p: the log-softmax stats (stats[2p],
// stats[2p + 1]) and the scale, so the per-element pass reads each once.
PARITY_HD void SceGradientPosition(int64_t p, const float* x, const int64_t* classes,
                                   const float* weights, const float* dloss, const ClassDims& s,
                                   ClassReduction reduction, const double* weight_total,
                                   float* stats, double* scale) {
  const LogSoftmaxStats st = LogSoftmaxStatsAt(p, x, s);
  stats[2 * p] = st.max;
  stats[2 * p + 1] = st.log_sum;
  scale[p] = ClassGradScale(p, classes, weights, dloss, reduction, weight_total);
}

// Then per element k of dScores: (exp(log_prob) - onehot) * scale, with log_prob rounded to float
// first as the CPU's buffer holds it; 0 at ignored positions.
PARITY_HD void SceGradientElement(int64_t k, const float* x, const int64_t* classes,
                                  const ClassDims& s, const float* stats, const double* scale,
                                  float* dx) {
  const int64_t p = (k / (s.c * s.d)) * s.d + k % s.d;
  const int64_t cls = classes[p];
  if (cls < 0) {
    dx[k] = 0.0f;
    return;
  }
  const float logp = Sub(Sub(x[k], stats[2 * p]), stats[2 * p + 1]);
  const double prob = ::exp(static_cast<double>(logp));
  const double one = (k / s.d) % s.c == cls ? 1.0 : 0.0;
  dx[k] = static_cast<float>(MulD(SubD(prob, one), scale[p]));
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_CLASS_LOSS_BODY_H_

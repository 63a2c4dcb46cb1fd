// Losses and their gradients: SquaredL2Distance, AveragedLoss, LabelCrossEntropy,
// SoftmaxWithLoss, SigmoidCrossEntropyWithLogits, and ONNX's NegativeLogLikelihoodLoss and
// SoftmaxCrossEntropyLoss.
#include <cmath>
#include <limits>

#include "reference/ops/util.h"

namespace parity::reference {
namespace {

constexpr double kLogThreshold = 1e-20;  // Caffe2 clamps probabilities before log.

// SquaredL2Distance(X, Y) -> [N]: 0.5 * sum over each row of (X - Y)^2 (N = dims[0]).
template <typename T>
void SquaredL2Distance(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const Value<T>& y = c.RealInput(1);
  RequireSameShape(c, x, y, 1);
  const int64_t n = x.dims.empty() ? 1 : x.dims[0];
  const int64_t d = n == 0 ? 0 : x.size() / n;
  Value<T> out = c.NewReal({n});
  for (int64_t i = 0; i < n; ++i) {
    T acc = 0;
    for (int64_t j = 0; j < d; ++j) {
      const T diff = x.r()[i * d + j] - y.r()[i * d + j];
      acc += diff * diff;
    }
    out.r()[i] = acc / T(2);
  }
  c.SetOutput(0, std::move(out));
}

template <typename T>
void SquaredL2DistanceGradient(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const Value<T>& y = c.RealInput(1);
  const Value<T>& g = c.RealInput(2);
  RequireSameShape(c, x, y, 1);
  const int64_t n = x.dims.empty() ? 1 : x.dims[0];
  const int64_t d = n == 0 ? 0 : x.size() / n;
  RequireShape(c, g, 2, {n});
  Value<T> dx = c.NewReal(x.dims), dy = c.NewReal(x.dims);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < d; ++j) {
      const T v = (x.r()[i * d + j] - y.r()[i * d + j]) * g.r()[i];
      dx.r()[i * d + j] = v;
      dy.r()[i * d + j] = -v;
    }
  }
  c.SetOutput(0, std::move(dx));
  if (c.OutputSize() > 1) c.SetOutput(1, std::move(dy));
}

// AveragedLoss(X) -> 0-D mean of all elements.
template <typename T>
void AveragedLoss(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  T acc = 0;
  for (T v : x.r()) acc += v;
  Value<T> out = c.NewReal({});
  out.r()[0] = acc / static_cast<T>(x.size());
  c.SetOutput(0, std::move(out));
}

template <typename T>
void AveragedLossGradient(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const Value<T>& g = c.RealInput(1);
  PARITY_ENFORCE(g.size() == 1, ErrorKind::kShapeMismatch, Describe(c, 1), " must hold 1 value");
  Value<T> dx = c.NewReal(x.dims);
  for (T& v : dx.r()) v = g.r()[0] / static_cast<T>(x.size());
  c.SetOutput(0, std::move(dx));
}

// Labels of LabelCrossEntropy / SoftmaxWithLoss: int32, [N] or [N, 1], each in [0, D).
template <typename T>
const std::vector<int64_t>& Labels(const OpContext<T>& c, int i, int64_t n, int64_t d) {
  const Value<T>& l = c.Input(i);
  PARITY_ENFORCE(l.dtype == DType::kInt32, ErrorKind::kShapeMismatch, Describe(c, i),
                 " must be int32 labels");
  PARITY_ENFORCE(l.size() == n && (l.dims.size() <= 1 || (l.dims.size() == 2 && l.dims[1] == 1)),
                 ErrorKind::kShapeMismatch, Describe(c, i), " must be [", n, "] or [", n, ", 1]");
  for (int64_t v : l.i()) {
    PARITY_ENFORCE(v >= 0 && v < d, ErrorKind::kBadArgument, "label ", v, " out of range [0, ", d,
                   ")");
  }
  return l.i();
}

// X is [N, D], or [D] for N = 1.
template <typename T>
void RowsCols(const OpContext<T>& c, const Value<T>& x, int64_t* n, int64_t* d) {
  PARITY_ENFORCE(x.dims.size() == 1 || x.dims.size() == 2, ErrorKind::kShapeMismatch,
                 Describe(c, 0), " must be 1-D or 2-D");
  *n = x.dims.size() == 1 ? 1 : x.dims[0];
  *d = x.dims.back();
}

template <typename T>
void LabelCrossEntropy(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  int64_t n, d;
  RowsCols(c, x, &n, &d);
  const std::vector<int64_t>& label = Labels(c, 1, n, d);
  Value<T> y = c.NewReal({n});
  for (int64_t i = 0; i < n; ++i) {
    y.r()[i] = -std::log(std::max(x.r()[i * d + label[i]], static_cast<T>(kLogThreshold)));
  }
  c.SetOutput(0, std::move(y));
}

template <typename T>
void LabelCrossEntropyGradient(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  int64_t n, d;
  RowsCols(c, x, &n, &d);
  const std::vector<int64_t>& label = Labels(c, 1, n, d);
  const Value<T>& g = c.RealInput(2);
  RequireShape(c, g, 2, {n});
  Value<T> dx = c.NewReal(x.dims);
  for (int64_t i = 0; i < n; ++i) {
    dx.r()[i * d + label[i]] =
        -g.r()[i] / std::max(x.r()[i * d + label[i]], static_cast<T>(kLogThreshold));
  }
  c.SetOutput(0, std::move(dx));
}

// SoftmaxWithLoss(X, labels[, weights]) -> (P, loss). X is viewed as [N, D] at `axis`.
// Integer labels: loss_i = -log_softmax(X)[i, label_i] (computed directly, no clamp).
// label_prob=1: labels are [N, D] distributions (each row summing to 1 within 1e-5),
// loss_i = -sum_j label_ij * log(max(P_ij, 1e-20)).
// loss = scale * sum_i w_i loss_i / sum_i w_i, and 0 when the weights sum to 0.
template <typename T>
struct SoftmaxLossSetup {
  int64_t n = 0, d = 0;
  std::vector<T> weights;
  T weight_sum = 0;
};

template <typename T>
SoftmaxLossSetup<T> SetupSoftmaxLoss(const OpContext<T>& c, const Value<T>& x, bool has_weights,
                                     int weight_input) {
  SoftmaxLossSetup<T> s;
  const int64_t axis = CanonicalAxis(c.args.Int("axis"), x.dims.size());
  s.n = SizeToDim(x.dims, axis);
  s.d = SizeFromDim(x.dims, axis);
  if (c.args.Bool("label_prob")) {
    const Value<T>& l = c.RealInput(1);
    PARITY_ENFORCE(l.size() == s.n * s.d, ErrorKind::kShapeMismatch, Describe(c, 1), " must hold [",
                   s.n, ", ", s.d, "] probabilities");
    for (int64_t i = 0; i < s.n; ++i) {
      T total = 0;
      for (int64_t j = 0; j < s.d; ++j) total += l.r()[i * s.d + j];
      PARITY_ENFORCE(std::abs(total - T(1)) < T(1e-5), ErrorKind::kBadArgument,
                     "label probabilities of row ", i, " sum to ", static_cast<double>(total));
    }
  } else {
    Labels(c, 1, s.n, s.d);
  }
  s.weights.assign(s.n, T(1));
  if (has_weights) {
    const Value<T>& w = c.RealInput(weight_input);
    // One weight per row, in any shape holding N of them: Caffe2 reads the weights' data alone.
    PARITY_ENFORCE(w.size() == s.n, ErrorKind::kShapeMismatch, "input ", weight_input,
                   " (weights) ", Describe(c, weight_input), " must hold one weight per row (", s.n,
                   ")");
    s.weights = w.r();
  }
  for (T w : s.weights) s.weight_sum += w;
  return s;
}

template <typename T>
void SoftmaxWithLoss(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const SoftmaxLossSetup<T> s = SetupSoftmaxLoss(c, x, c.InputSize() > 2, 2);
  const bool prob = c.args.Bool("label_prob");
  Value<T> p = c.NewReal(x.dims);
  T loss = 0;
  for (int64_t i = 0; i < s.n; ++i) {
    T mx = -std::numeric_limits<T>::infinity(), sum = 0;
    for (int64_t j = 0; j < s.d; ++j) mx = std::max(mx, x.r()[i * s.d + j]);
    for (int64_t j = 0; j < s.d; ++j) sum += std::exp(x.r()[i * s.d + j] - mx);
    const T log_sum = std::log(sum);
    for (int64_t j = 0; j < s.d; ++j) p.r()[i * s.d + j] = std::exp(x.r()[i * s.d + j] - mx) / sum;
    T li = 0;
    if (prob) {
      for (int64_t j = 0; j < s.d; ++j) {
        li -= c.Input(1).r()[i * s.d + j] *
              std::log(std::max(p.r()[i * s.d + j], static_cast<T>(kLogThreshold)));
      }
    } else {
      li = -(x.r()[i * s.d + c.Input(1).i()[i]] - mx - log_sum);
    }
    loss += s.weights[i] * li;
  }
  Value<T> out = c.NewReal({});
  out.r()[0] =
      s.weight_sum != T(0) ? loss * static_cast<T>(c.args.Float("scale")) / s.weight_sum : T(0);
  c.SetOutput(0, std::move(p));
  c.SetOutput(1, std::move(out));
}

// SoftmaxWithLossGradient(X, labels, [weights,] P, dLoss) -> dX
//   = (P - target) * w_i * scale * dLoss / sum(w)  (0 when the weights sum to 0).
template <typename T>
void SoftmaxWithLossGradient(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const bool has_w = c.InputSize() == 5;
  const SoftmaxLossSetup<T> s = SetupSoftmaxLoss(c, x, has_w, 2);
  const Value<T>& p = c.RealInput(has_w ? 3 : 2);
  const Value<T>& g = c.RealInput(has_w ? 4 : 3);
  RequireShape(c, p, has_w ? 3 : 2, x.dims);
  PARITY_ENFORCE(g.size() == 1, ErrorKind::kShapeMismatch, "dLoss must hold 1 value");
  const bool prob = c.args.Bool("label_prob");
  Value<T> dx = c.NewReal(x.dims);
  if (s.weight_sum == T(0)) {
    c.SetOutput(0, std::move(dx));
    return;
  }
  const T factor = static_cast<T>(c.args.Float("scale")) * g.r()[0] / s.weight_sum;
  for (int64_t i = 0; i < s.n; ++i) {
    for (int64_t j = 0; j < s.d; ++j) {
      T target = prob ? c.Input(1).r()[i * s.d + j] : T(c.Input(1).i()[i] == j ? 1 : 0);
      dx.r()[i * s.d + j] = (p.r()[i * s.d + j] - target) * s.weights[i] * factor;
    }
  }
  c.SetOutput(0, std::move(dx));
}

// The loss is a mean over the last dim: an empty last dim has no mean (0 / 0), refused.
template <typename T>
void RequireAveragedDim(const OpContext<T>& c, const Value<T>& x, int i) {
  PARITY_ENFORCE(x.dims.empty() || x.dims.back() > 0, ErrorKind::kShapeMismatch, Describe(c, i),
                 " has an empty last dim to average over");
}

// SigmoidCrossEntropyWithLogits(X, targets) -> dims[:-1]: the mean over the last dim of
// -(t log sigmoid(x) + (1-t) log(1 - sigmoid(x))), in the overflow-free form
// -(x (t - [x >= 0]) - log(1 + exp(-|x|))).
template <typename T>
void SigmoidXentSetup(const OpContext<T>& c, const Value<T>& x, int targets, int64_t* outer,
                      int64_t* inner) {
  PARITY_ENFORCE(!c.args.Bool("log_D_trick") && !c.args.Bool("unjoined_lr_loss"),
                 ErrorKind::kBadArgument,
                 "log_D_trick and unjoined_lr_loss are not supported by the reference");
  RequireShape(c, c.RealInput(targets), targets, x.dims);
  RequireAveragedDim(c, x, targets - 1);  // X comes just before its targets
  *inner = x.dims.empty() ? 1 : x.dims.back();
  *outer = x.size() / *inner;
}

template <typename T>
void SigmoidCrossEntropyWithLogits(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  int64_t outer, inner;
  SigmoidXentSetup(c, x, 1, &outer, &inner);
  const Value<T>& t = c.Input(1);
  Dims ydims = x.dims;
  if (!ydims.empty()) ydims.pop_back();
  Value<T> y = c.NewReal(ydims);
  for (int64_t i = 0; i < outer; ++i) {
    T acc = 0;
    for (int64_t j = 0; j < inner; ++j) {
      const T v = x.r()[i * inner + j], tv = t.r()[i * inner + j];
      const T pos = v >= 0 ? T(1) : T(0);
      // Caffe2 writes exp(x - 2x[x >= 0]), which is exp(-|x|) for every finite x but NaN at
      // x = +inf (inf - inf); -|x| keeps the loss's limit there (+inf for t = 0).
      acc += v * (tv - pos) - std::log1p(std::exp(-std::abs(v)));
    }
    y.r()[i] = -acc / static_cast<T>(inner);
  }
  c.SetOutput(0, std::move(y));
}

// SigmoidCrossEntropyWithLogitsGradient(dY, X, targets) -> dX = (sigmoid(x) - t) * dY / inner.
template <typename T>
void SigmoidCrossEntropyWithLogitsGradient(OpContext<T>& c) {
  const Value<T>& g = c.RealInput(0);
  const Value<T>& x = c.RealInput(1);
  int64_t outer, inner;
  PARITY_ENFORCE(!c.args.Bool("log_D_trick") && !c.args.Bool("unjoined_lr_loss"),
                 ErrorKind::kBadArgument,
                 "log_D_trick and unjoined_lr_loss are not supported by the reference");
  RequireShape(c, c.RealInput(2), 2, x.dims);
  RequireAveragedDim(c, x, 1);
  inner = x.dims.empty() ? 1 : x.dims.back();
  outer = x.size() / inner;
  PARITY_ENFORCE(g.size() == outer, ErrorKind::kShapeMismatch, Describe(c, 0), " must hold ", outer,
                 " values");
  const Value<T>& t = c.Input(2);
  Value<T> dx = c.NewReal(x.dims);
  for (int64_t i = 0; i < outer; ++i) {
    for (int64_t j = 0; j < inner; ++j) {
      const int64_t k = i * inner + j;
      dx.r()[k] = (Sigmoid(x.r()[k]) - t.r()[k]) * g.r()[i] / static_cast<T>(inner);
    }
  }
  c.SetOutput(0, std::move(dx));
}

// ---- ONNX's class losses: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss ----
// X [N, C, d1..dk] against targets [N, d1..dk]; position p = n * D + d (D = d1 * ... * dk) reads
// X[n, target[p], d]. A target equal to ignore_index (when given) has class -1 and weight 0.

template <typename T>
struct ClassLoss {
  int64_t n = 0, classes = 0, d = 1;
  std::vector<int64_t> cls;  // per position
  std::vector<T> w;          // per position: its class's weight (1 without weights, 0 ignored)
  std::string reduction;
  Dims loss_dims;
  T weight_sum = 0;
};

// `forward` = the forward op's input count (2, or 3 with weights).
template <typename T>
ClassLoss<T> SetupClassLoss(const OpContext<T>& c, int forward) {
  const Value<T>& x = c.RealInput(0);
  const Value<T>& t = c.IndexInput(1);
  PARITY_ENFORCE(x.dims.size() >= 2, ErrorKind::kShapeMismatch, Describe(c, 0),
                 " must be [N, C] or [N, C, d1, ..., dk]");
  ClassLoss<T> s;
  s.n = x.dims[0];
  s.classes = x.dims[1];
  Dims want = {s.n};
  for (size_t k = 2; k < x.dims.size(); ++k) {
    want.push_back(x.dims[k]);
    s.d *= x.dims[k];
  }
  RequireShape(c, t, 1, want);
  const Value<T>* weight = forward == 3 ? &c.RealInput(2) : nullptr;
  if (weight) RequireShape(c, *weight, 2, {s.classes});
  s.reduction = c.args.Str("reduction");
  PARITY_ENFORCE(s.reduction == "none" || s.reduction == "sum" || s.reduction == "mean",
                 ErrorKind::kBadArgument, "reduction '", s.reduction,
                 "' is not none, sum or mean");
  s.loss_dims = s.reduction == "none" ? want : Dims{};
  const bool ignoring = c.args.Has("ignore_index");
  const int64_t ignore = ignoring ? c.args.Int("ignore_index") : 0;
  for (int64_t v : t.i()) {
    if (ignoring && v == ignore) {
      s.cls.push_back(-1);
      s.w.push_back(0);
      continue;
    }
    PARITY_ENFORCE(v >= 0 && v < s.classes, ErrorKind::kBadArgument, "target ", v,
                   " out of range [0, ", s.classes, ") and not the ignore_index");
    s.cls.push_back(v);
    s.w.push_back(weight ? weight->r()[v] : T(1));
    s.weight_sum += s.w.back();
  }
  return s;
}

// The loss of log-probabilities `lp` (X's layout).
template <typename T>
Value<T> ClassLossValue(const OpContext<T>& c, const ClassLoss<T>& s, const std::vector<T>& lp) {
  Value<T> out = c.NewReal(s.loss_dims);
  T total = 0;
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t d = 0; d < s.d; ++d) {
      const int64_t p = n * s.d + d;
      const T l = s.cls[p] < 0 ? T(0) : -s.w[p] * lp[(n * s.classes + s.cls[p]) * s.d + d];
      if (s.reduction == "none") out.r()[p] = l;
      total += l;
    }
  }
  if (s.reduction == "sum") out.r()[0] = total;
  if (s.reduction == "mean") out.r()[0] = total / s.weight_sum;  // 0 / 0 = NaN: all ignored
  return out;
}

// d loss / d l[p] times the position's weight: the gradient's scale at each position.
template <typename T>
T ClassLossScale(const ClassLoss<T>& s, const Value<T>& g, int64_t p) {
  if (s.reduction == "none") return s.w[p] * g.r()[p];
  if (s.reduction == "sum") return s.w[p] * g.r()[0];
  return s.w[p] * g.r()[0] / s.weight_sum;
}

template <typename T>
void NegativeLogLikelihoodLoss(OpContext<T>& c) {
  const ClassLoss<T> s = SetupClassLoss(c, c.InputSize());
  c.SetOutput(0, ClassLossValue(c, s, c.RealInput(0).r()));
}

// NegativeLogLikelihoodLossGradient(X, target, [weight], dLoss) -> dX: -scale at each position's
// target class, 0 elsewhere.
template <typename T>
void NegativeLogLikelihoodLossGradient(OpContext<T>& c) {
  const ClassLoss<T> s = SetupClassLoss(c, c.InputSize() - 1);
  const Value<T>& g = c.RealInput(c.InputSize() - 1);
  RequireShape(c, g, c.InputSize() - 1, s.loss_dims);
  Value<T> dx = c.NewReal(c.Input(0).dims);
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t d = 0; d < s.d; ++d) {
      const int64_t p = n * s.d + d;
      if (s.cls[p] >= 0) dx.r()[(n * s.classes + s.cls[p]) * s.d + d] = -ClassLossScale(s, g, p);
    }
  }
  c.SetOutput(0, std::move(dx));
}

// log softmax over the classes (dim 1) of every position, shifted by the position's max.
template <typename T>
std::vector<T> LogSoftmaxOverClasses(const ClassLoss<T>& s, const std::vector<T>& x) {
  std::vector<T> lp(x.size());
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t d = 0; d < s.d; ++d) {
      auto at = [&](int64_t k) { return (n * s.classes + k) * s.d + d; };
      T m = x[at(0)];
      for (int64_t k = 1; k < s.classes; ++k) m = std::max(m, x[at(k)]);
      T sum = 0;
      for (int64_t k = 0; k < s.classes; ++k) sum += std::exp(x[at(k)] - m);
      for (int64_t k = 0; k < s.classes; ++k) lp[at(k)] = x[at(k)] - m - std::log(sum);
    }
  }
  return lp;
}

// SoftmaxCrossEntropyLoss(scores, labels, [weights]) -> (loss, [log_prob]).
template <typename T>
void SoftmaxCrossEntropyLoss(OpContext<T>& c) {
  const ClassLoss<T> s = SetupClassLoss(c, c.InputSize());
  const Value<T>& x = c.RealInput(0);
  const std::vector<T> lp = s.classes == 0 ? x.r() : LogSoftmaxOverClasses(s, x.r());
  c.SetOutput(0, ClassLossValue(c, s, lp));
  if (c.OutputSize() > 1) {
    Value<T> out = c.NewReal(x.dims);
    out.r() = lp;
    c.SetOutput(1, std::move(out));
  }
}

// SoftmaxCrossEntropyLossGradient(scores, labels, [weights], dLoss) -> dScores:
// (softmax - onehot(label)) * scale at every position not ignored.
template <typename T>
void SoftmaxCrossEntropyLossGradient(OpContext<T>& c) {
  const ClassLoss<T> s = SetupClassLoss(c, c.InputSize() - 1);
  const Value<T>& x = c.RealInput(0);
  const Value<T>& g = c.RealInput(c.InputSize() - 1);
  RequireShape(c, g, c.InputSize() - 1, s.loss_dims);
  const std::vector<T> lp = s.classes == 0 ? x.r() : LogSoftmaxOverClasses(s, x.r());
  Value<T> dx = c.NewReal(x.dims);
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t d = 0; d < s.d; ++d) {
      const int64_t p = n * s.d + d;
      if (s.cls[p] < 0) continue;
      for (int64_t k = 0; k < s.classes; ++k) {
        const int64_t at = (n * s.classes + k) * s.d + d;
        dx.r()[at] = (std::exp(lp[at]) - (k == s.cls[p] ? T(1) : T(0))) * ClassLossScale(s, g, p);
      }
    }
  }
  c.SetOutput(0, std::move(dx));
}

}  // namespace

void RegisterLossOps(Registry* r) {
  const ArgTable class_loss = {{"reduction", "mean"}, {"ignore_index", ""}};
  r->Add({"NegativeLogLikelihoodLoss", 2, 3, 1, 1, class_loss,
          PARITY_REF_KERNEL(NegativeLogLikelihoodLoss)});
  r->Add({"NegativeLogLikelihoodLossGradient", 3, 4, 1, 1, class_loss,
          PARITY_REF_KERNEL(NegativeLogLikelihoodLossGradient)});
  r->Add({"SoftmaxCrossEntropyLoss", 2, 3, 1, 2, class_loss,
          PARITY_REF_KERNEL(SoftmaxCrossEntropyLoss)});
  r->Add({"SoftmaxCrossEntropyLossGradient", 3, 4, 1, 1, class_loss,
          PARITY_REF_KERNEL(SoftmaxCrossEntropyLossGradient)});
  r->Add({"SquaredL2Distance", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(SquaredL2Distance)});
  r->Add(
      {"SquaredL2DistanceGradient", 3, 3, 1, 2, {}, PARITY_REF_KERNEL(SquaredL2DistanceGradient)});
  r->Add({"AveragedLoss", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(AveragedLoss)});
  r->Add({"AveragedLossGradient", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(AveragedLossGradient)});
  r->Add({"LabelCrossEntropy", 2, 2, 1, 1, {}, PARITY_REF_KERNEL(LabelCrossEntropy)});
  r->Add(
      {"LabelCrossEntropyGradient", 3, 3, 1, 1, {}, PARITY_REF_KERNEL(LabelCrossEntropyGradient)});
  const ArgTable sml = {{"scale", "1.0"}, {"label_prob", "0"}, {"axis", "1"}, {"order", "NCHW"}};
  r->Add({"SoftmaxWithLoss", 2, 3, 2, 2, sml, PARITY_REF_KERNEL(SoftmaxWithLoss)});
  r->Add({"SoftmaxWithLossGradient", 4, 5, 1, 1, sml, PARITY_REF_KERNEL(SoftmaxWithLossGradient)});
  const ArgTable sce = {{"log_D_trick", "0"}, {"unjoined_lr_loss", "0"}};
  r->Add({"SigmoidCrossEntropyWithLogits", 2, 2, 1, 1, sce,
          PARITY_REF_KERNEL(SigmoidCrossEntropyWithLogits)});
  r->Add({"SigmoidCrossEntropyWithLogitsGradient", 3, 3, 1, 1, sce,
          PARITY_REF_KERNEL(SigmoidCrossEntropyWithLogitsGradient)});
}

PARITY_REFERENCE_FAMILY(RegisterLossOps);

}  // namespace parity::reference

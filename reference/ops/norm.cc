// SpatialBN, LayerNorm, LRN and their gradients.
#include <cmath>
#include <limits>

#include "reference/ops/util.h"

namespace parity::reference {
namespace {

// Index helpers for SpatialBN: channel of flat element k for NCHW or NHWC.
struct ChannelView {
  int64_t n = 0, c = 0, hw = 0;
  bool nchw = true;
  int64_t Channel(int64_t k) const { return nchw ? (k / hw) % c : k % c; }
};

template <typename T>
ChannelView ChannelsOf(const OpContext<T>& c, const Value<T>& x) {
  const std::string order = c.args.Str("order");
  PARITY_ENFORCE(order == "NCHW" || order == "NHWC", ErrorKind::kBadArgument, "unknown order '",
                 order, "'");
  PARITY_ENFORCE(x.dims.size() >= 2, ErrorKind::kShapeMismatch, "SpatialBN needs rank >= 2, got ",
                 Describe(c, 0));
  ChannelView v;
  v.nchw = order == "NCHW";
  v.n = x.dims[0];
  v.c = v.nchw ? x.dims[1] : x.dims.back();
  // Per-channel statistics need a channel (Caffe2's kernels index channel 0 of every batch).
  PARITY_ENFORCE(v.c > 0, ErrorKind::kShapeMismatch, Describe(c, 0), " has no channels");
  v.hw = (v.n * v.c) == 0 ? 0 : x.size() / (v.n * v.c);
  return v;
}

template <typename T>
void RequireChannelVector(const OpContext<T>& c, int i, int64_t channels) {
  const Value<T>& v = c.RealInput(i);
  PARITY_ENFORCE(v.dims == Dims{channels}, ErrorKind::kShapeMismatch, Describe(c, i), " must be [",
                 channels, "]");
}

// SpatialBN(X, scale, bias, mean, var). is_test: Y = (X - mean)/sqrt(var + eps)*scale + bias.
// Training: batch moments over N and the spatial dims (biased variance) normalize X; outputs
// Y, running_mean, running_var (in place on inputs 3, 4), saved_mean, saved_inv_std, with
// running = momentum*running + (1-momentum)*batch and the batch variance unbiased by M/(M-1)
// (M = N*H*W) in the running update, as the newer Caffe2 does.
template <typename T>
void SpatialBN(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const ChannelView v = ChannelsOf(c, x);
  const bool is_test = c.args.Bool("is_test");
  // Training reads the running statistics only to update them, and Caffe2 zero-initializes one
  // that does not hold C values (a fresh net's), keeping the dims of one that does.
  for (int i = 1; i < (is_test ? 5 : 3); ++i) RequireChannelVector(c, i, v.c);
  const Value<T>& scale = c.Input(1);
  const Value<T>& bias = c.Input(2);
  const T eps = static_cast<T>(c.args.Float("epsilon"));
  PARITY_ENFORCE(c.args.Int("num_batches") == 1, ErrorKind::kBadArgument,
                 "num_batches != 1 (synchronized BN) is not supported by the reference");
  const auto statistic = [&](int i) {
    const Value<T>& s = c.RealInput(i);
    return s.size() == v.c ? s.r() : std::vector<T>(static_cast<size_t>(v.c), T(0));
  };
  const auto running_dims = [&](int i) {
    return c.Input(i).size() == v.c ? c.Input(i).dims : Dims{v.c};
  };
  std::vector<T> mean = statistic(3), var = statistic(4);
  if (!is_test) {
    PARITY_ENFORCE(c.OutputSize() == 5, ErrorKind::kBadArgument,
                   "training SpatialBN needs 5 outputs, got ", c.OutputSize());
    PARITY_ENFORCE(c.OutputName(1) == c.InputName(3) && c.OutputName(2) == c.InputName(4),
                   ErrorKind::kBadArgument,
                   "training SpatialBN updates running_mean/var in place: outputs 1, 2 must be "
                   "inputs 3, 4");
    const int64_t m = v.n * v.hw;
    std::vector<T> sum(v.c, 0), sq(v.c, 0);
    for (int64_t k = 0; k < x.size(); ++k) sum[v.Channel(k)] += x.r()[k];
    for (int64_t ch = 0; ch < v.c; ++ch) sum[ch] /= static_cast<T>(m);
    for (int64_t k = 0; k < x.size(); ++k) {
      const T d = x.r()[k] - sum[v.Channel(k)];
      sq[v.Channel(k)] += d * d;
    }
    const T momentum = static_cast<T>(c.args.Float("momentum"));
    const T unbias =
        m == 1 ? std::numeric_limits<T>::infinity() : static_cast<T>(m) / static_cast<T>(m - 1);
    Value<T> rm = c.NewReal(running_dims(3)), rv = c.NewReal(running_dims(4));
    Value<T> saved_mean = c.NewReal({v.c}), saved_inv_std = c.NewReal({v.c});
    for (int64_t ch = 0; ch < v.c; ++ch) {
      const T bvar = sq[ch] / static_cast<T>(m);
      rm.r()[ch] = momentum * mean[ch] + (T(1) - momentum) * sum[ch];
      rv.r()[ch] = momentum * var[ch] + (T(1) - momentum) * unbias * bvar;
      saved_mean.r()[ch] = sum[ch];
      saved_inv_std.r()[ch] = T(1) / std::sqrt(bvar + eps);
      mean[ch] = sum[ch];
      var[ch] = bvar;
    }
    c.SetOutput(1, std::move(rm));
    c.SetOutput(2, std::move(rv));
    c.SetOutput(3, std::move(saved_mean));
    c.SetOutput(4, std::move(saved_inv_std));
  }
  Value<T> y = c.NewReal(x.dims);
  for (int64_t k = 0; k < x.size(); ++k) {
    const int64_t ch = v.Channel(k);
    y.r()[k] = (x.r()[k] - mean[ch]) / std::sqrt(var[ch] + eps) * scale.r()[ch] + bias.r()[ch];
  }
  c.SetOutput(0, std::move(y));
}

// SpatialBNGradient(X, scale, dY, mean, inv_std_or_var) -> (dX, dScale, dBias).
template <typename T>
void SpatialBNGradient(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const ChannelView v = ChannelsOf(c, x);
  const Value<T>& scale = c.RealInput(1);
  const Value<T>& dy = c.RealInput(2);
  RequireSameShape(c, x, dy, 2);
  for (int i : {1, 3, 4}) RequireChannelVector(c, i, v.c);
  const std::vector<T>& mean = c.Input(3).r();
  std::vector<T> rstd(c.Input(4).r());
  const bool is_test = c.args.Bool("is_test");
  if (is_test) {
    for (T& r : rstd) r = T(1) / std::sqrt(r + static_cast<T>(c.args.Float("epsilon")));
  }
  const int64_t m = v.n * v.hw;
  std::vector<T> dbias(v.c, 0), dscale(v.c, 0);
  for (int64_t k = 0; k < x.size(); ++k) {
    const int64_t ch = v.Channel(k);
    dbias[ch] += dy.r()[k];
    dscale[ch] += dy.r()[k] * (x.r()[k] - mean[ch]) * rstd[ch];
  }
  Value<T> dx = c.NewReal(x.dims);
  for (int64_t k = 0; k < x.size(); ++k) {
    const int64_t ch = v.Channel(k);
    if (is_test) {
      dx.r()[k] = dy.r()[k] * scale.r()[ch] * rstd[ch];
    } else {
      const T xhat = (x.r()[k] - mean[ch]) * rstd[ch];
      dx.r()[k] = scale.r()[ch] * rstd[ch] / static_cast<T>(m) *
                  (static_cast<T>(m) * dy.r()[k] - dbias[ch] - xhat * dscale[ch]);
    }
  }
  Value<T> ds = c.NewReal({v.c}), db = c.NewReal({v.c});
  ds.r() = dscale;
  db.r() = dbias;
  c.SetOutput(0, std::move(dx));
  c.SetOutput(1, std::move(ds));
  c.SetOutput(2, std::move(db));
}

// LayerNorm(X[, gamma, beta]) -> (Y, mean, std): moments over dims[axis:], std = sqrt(var+eps)
// (biased variance); mean and std have shape dims[:axis] + [1].
template <typename T>
void LayerNorm(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const int64_t axis = CanonicalAxis(c.args.Int("axis"), x.dims.size());
  const T eps = static_cast<T>(c.args.Float("epsilon"));
  const int64_t rows = SizeToDim(x.dims, axis), cols = SizeFromDim(x.dims, axis);
  const bool affine = c.args.Bool("elementwise_affine");
  PARITY_ENFORCE(affine ? c.InputSize() == 3 : c.InputSize() == 1, ErrorKind::kBadArgument,
                 "LayerNorm takes 3 inputs with elementwise_affine=1, else 1; got ", c.InputSize());
  const Dims affine_dims(x.dims.begin() + axis, x.dims.end());
  if (affine) {
    RequireShape(c, c.RealInput(1), 1, affine_dims);
    RequireShape(c, c.RealInput(2), 2, affine_dims);
  }
  Dims mdims(x.dims.begin(), x.dims.begin() + axis);
  mdims.push_back(1);
  Value<T> y = c.NewReal(x.dims), mean = c.NewReal(mdims), sd = c.NewReal(mdims);
  for (int64_t n = 0; n < rows; ++n) {
    T mu = 0, var = 0;
    for (int64_t d = 0; d < cols; ++d) mu += x.r()[n * cols + d];
    mu /= static_cast<T>(cols);
    for (int64_t d = 0; d < cols; ++d)
      var += (x.r()[n * cols + d] - mu) * (x.r()[n * cols + d] - mu);
    var /= static_cast<T>(cols);
    const T s = std::sqrt(var + eps);
    mean.r()[n] = mu;
    sd.r()[n] = s;
    for (int64_t d = 0; d < cols; ++d) {
      T v = (x.r()[n * cols + d] - mu) / s;
      if (affine) v = v * c.Input(1).r()[d] + c.Input(2).r()[d];
      y.r()[n * cols + d] = v;
    }
  }
  c.SetOutput(0, std::move(y));
  if (c.OutputSize() > 1) c.SetOutput(1, std::move(mean));
  if (c.OutputSize() > 2) c.SetOutput(2, std::move(sd));
}

// LayerNormGradient(dY, Y, mean, std, X) -> dX, or with elementwise_affine
// (dY, Y, mean, std, X, gamma) -> (dX, dgamma, dbeta). With xhat = (x - mu)/s per row and
// g = dY (times gamma[d] when affine): dX = (g - mean(g) - xhat * mean(g * xhat)) / s;
// dgamma[d] = sum over rows of dY * xhat, dbeta[d] = sum over rows of dY.
template <typename T>
void LayerNormGradient(OpContext<T>& c) {
  const Value<T>& dy = c.RealInput(0);
  const Value<T>& mean = c.RealInput(2);
  const Value<T>& sd = c.RealInput(3);
  const Value<T>& x = c.RealInput(4);
  const bool affine = c.InputSize() == 6;
  PARITY_ENFORCE(affine == (c.OutputSize() == 3), ErrorKind::kBadArgument,
                 "(dY, Y, mean, std, X) -> dX, or (dY, Y, mean, std, X, gamma) -> (dX, dgamma, "
                 "dbeta); got ",
                 c.InputSize(), " inputs and ", c.OutputSize(), " outputs");
  RequireShape(c, dy, 0, x.dims);
  const int64_t axis = CanonicalAxis(c.args.Int("axis"), x.dims.size());
  const int64_t rows = SizeToDim(x.dims, axis), cols = SizeFromDim(x.dims, axis);
  PARITY_ENFORCE(mean.size() == rows && sd.size() == rows, ErrorKind::kShapeMismatch,
                 "mean/std must hold ", rows, " values");
  const Dims param_dims(x.dims.begin() + axis, x.dims.end());
  const Value<T>* gamma = affine ? &c.RealInput(5) : nullptr;
  if (gamma) RequireShape(c, *gamma, 5, param_dims);
  Value<T> dx = c.NewReal(x.dims);
  Value<T> dgamma = c.NewReal(param_dims), dbeta = c.NewReal(param_dims);
  for (int64_t n = 0; n < rows; ++n) {
    const T s = sd.r()[n], mu = mean.r()[n];
    auto xhat = [&](int64_t d) { return (x.r()[n * cols + d] - mu) / s; };
    auto g = [&](int64_t d) { return dy.r()[n * cols + d] * (gamma ? gamma->r()[d] : T(1)); };
    T mg = 0, mgx = 0;
    for (int64_t d = 0; d < cols; ++d) {
      mg += g(d);
      mgx += g(d) * xhat(d);
      dgamma.r()[d] += dy.r()[n * cols + d] * xhat(d);
      dbeta.r()[d] += dy.r()[n * cols + d];
    }
    mg /= static_cast<T>(cols);
    mgx /= static_cast<T>(cols);
    for (int64_t d = 0; d < cols; ++d) dx.r()[n * cols + d] = (g(d) - mg - xhat(d) * mgx) / s;
  }
  c.SetOutput(0, std::move(dx));
  if (affine) {
    c.SetOutput(1, std::move(dgamma));
    c.SetOutput(2, std::move(dbeta));
  }
}

// LRN across channels (Caffe2's local_response_normalization_op): for 4-D X (NCHW or NHWC) with
// half = (size - 1) / 2, at every element of channel c
//   scale = bias + alpha / size * (sum of X^2 over channels c - half .. c + half that exist),
//   Y = X * scale^(-beta);
// output 1, when asked, is scale. Caffe2 DCHECKs size > 0 and odd, alpha > 0, beta > 0: bad
// arguments here.
struct LrnParams {
  int64_t size = 0, half = 0;
  double alpha = 0, beta = 0, bias = 1;
  // X as [outer, channels, inner]: NCHW [N, C, H*W], NHWC [N*H*W, C, 1].
  int64_t outer = 0, channels = 0, inner = 0;
  int64_t At(int64_t o, int64_t ch, int64_t i) const { return (o * channels + ch) * inner + i; }
};

template <typename T>
LrnParams ReadLrn(const OpContext<T>& c, const Value<T>& x) {
  LrnParams p;
  p.size = c.args.Int("size");
  // Single precision, as the arguments are stored (and as production reads them).
  p.alpha = static_cast<float>(c.args.Float("alpha"));
  p.beta = static_cast<float>(c.args.Float("beta"));
  p.bias = static_cast<float>(c.args.Float("bias"));
  PARITY_ENFORCE(p.size > 0 && p.size % 2 == 1, ErrorKind::kBadArgument, "size ", p.size,
                 " must be positive and odd");
  PARITY_ENFORCE(p.alpha > 0, ErrorKind::kBadArgument, "alpha ", p.alpha, " must be positive");
  PARITY_ENFORCE(p.beta > 0, ErrorKind::kBadArgument, "beta ", p.beta, " must be positive");
  const std::string order = c.args.Str("order");
  PARITY_ENFORCE(order == "NCHW" || order == "NHWC", ErrorKind::kBadArgument, "unknown order '",
                 order, "'");
  PARITY_ENFORCE(x.dims.size() == 4, ErrorKind::kShapeMismatch, "LRN needs a 4-D ", Describe(c, 0));
  p.half = (p.size - 1) / 2;
  const Dims& d = x.dims;
  if (order == "NCHW") {
    p.outer = d[0], p.channels = d[1], p.inner = d[2] * d[3];
  } else {
    p.outer = d[0] * d[1] * d[2], p.channels = d[3], p.inner = 1;
  }
  return p;
}

// scale at every element of x.
template <typename T>
std::vector<T> LrnScale(const LrnParams& p, const Value<T>& x) {
  std::vector<T> scale(x.size());
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t ch = 0; ch < p.channels; ++ch)
      for (int64_t i = 0; i < p.inner; ++i) {
        T sum = 0;
        for (int64_t k = ch - p.half; k <= ch + p.half; ++k) {
          if (k < 0 || k >= p.channels) continue;
          const T v = x.r()[p.At(o, k, i)];
          sum += v * v;
        }
        scale[p.At(o, ch, i)] =
            static_cast<T>(p.bias) + static_cast<T>(p.alpha) / static_cast<T>(p.size) * sum;
      }
  return scale;
}

template <typename T>
void LRN(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const LrnParams p = ReadLrn(c, x);
  const std::vector<T> scale = LrnScale(p, x);
  Value<T> y = c.NewReal(x.dims);
  Value<T> s = c.NewReal(x.dims);
  for (int64_t k = 0; k < x.size(); ++k) {
    y.r()[k] = x.r()[k] * std::pow(scale[k], static_cast<T>(-p.beta));
    s.r()[k] = scale[k];
  }
  c.SetOutput(0, std::move(y));
  if (c.OutputSize() == 2) c.SetOutput(1, std::move(s));
}

// LRNGradient(X, Y, dY) -> dX, the chain rule through scale: Y_c depends on X_c directly and on
// every X_k in its window through scale_c (d scale_c / d X_k = 2 alpha / size * X_k), so
//   dX_k = dY_k * scale_k^(-beta)
//          - 2 alpha beta / size * X_k * sum over c whose window holds k of dY_c * Y_c / scale_c,
// with Y_c / scale_c = X_c * scale_c^(-beta - 1) read from the given Y, as Caffe2's kernel does.
template <typename T>
void LRNGradient(OpContext<T>& c) {
  const Value<T>& x = c.RealInput(0);
  const Value<T>& y = c.RealInput(1);
  const Value<T>& dy = c.RealInput(2);
  const LrnParams p = ReadLrn(c, x);
  RequireShape(c, y, 1, x.dims);
  RequireShape(c, dy, 2, x.dims);
  const std::vector<T> scale = LrnScale(p, x);
  const T coefficient = static_cast<T>(2 * p.alpha * p.beta / static_cast<double>(p.size));
  Value<T> dx = c.NewReal(x.dims);
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t k = 0; k < p.channels; ++k)
      for (int64_t i = 0; i < p.inner; ++i) {
        const int64_t at = p.At(o, k, i);
        T through_scale = 0;
        for (int64_t ch = 0; ch < p.channels; ++ch) {
          if (k < ch - p.half || k > ch + p.half) continue;  // k outside ch's window
          const int64_t e = p.At(o, ch, i);
          through_scale += dy.r()[e] * y.r()[e] / scale[e];
        }
        dx.r()[at] = dy.r()[at] * std::pow(scale[at], static_cast<T>(-p.beta)) -
                     coefficient * x.r()[at] * through_scale;
      }
  c.SetOutput(0, std::move(dx));
}

}  // namespace

void RegisterNormOps(Registry* r) {
  const ArgTable bn_args = {{"is_test", "0"},
                            {"epsilon", "1e-5"},
                            {"momentum", "0.9"},
                            {"order", "NCHW"},
                            {"num_batches", "1"}};
  // Caffe2: AllowInplace({{0, 0}, {5, 3}, {6, 4}}), EnforceInplace({{3, 1}, {4, 2}}): training
  // updates the running mean and variance in their own blobs.
  OpSchema& bn = r->Add({"SpatialBN", 5, 5, 1, 5, bn_args, PARITY_REF_KERNEL(SpatialBN)});
  bn.inplace = {{0, 0}, {5, 3}, {6, 4}};
  bn.enforce_inplace = {{3, 1}, {4, 2}};
  r->Add({"SpatialBNGradient", 5, 5, 3, 3, bn_args, PARITY_REF_KERNEL(SpatialBNGradient)});
  const ArgTable ln_args = {{"axis", "1"}, {"epsilon", "1e-5"}, {"elementwise_affine", "0"}};
  r->Add({"LayerNorm", 1, 3, 3, 3, ln_args, PARITY_REF_KERNEL(LayerNorm)});
  r->Add({"LayerNormGradient", 5, 6, 1, 3, ln_args, PARITY_REF_KERNEL(LayerNormGradient)});
  const ArgTable lrn_args = {
      {"size", "0"}, {"alpha", "0"}, {"beta", "0"}, {"bias", "1.0"}, {"order", "NCHW"}};
  r->Add({"LRN", 1, 1, 1, 2, lrn_args, PARITY_REF_KERNEL(LRN)});
  r->Add({"LRNGradient", 3, 3, 1, 1, lrn_args, PARITY_REF_KERNEL(LRNGradient)});
}

PARITY_REFERENCE_FAMILY(RegisterNormOps);

}  // namespace parity::reference

// Gradient kernels of the normalizations (conventions in core/ops/GRADIENTS.md; makers in
// core/ops/norm/makers.cc; the forward op's arguments are copied onto the gradient op). float and
// double; sums in double.
//
// SpatialBNGradient (X, scale, dY, saved_mean, saved_inv_std) -> (dX, dscale, dbias), per channel
// c over its M = N*HxW values, with xhat = (x - mean) * rstd:
//   dbias = sum(dY);  dscale = sum(dY * xhat);
//   training (is_test=0): dX = scale * rstd * (dY - dbias / M - xhat * dscale / M)
//   is_test=1: inputs 3, 4 are the running mean and variance, rstd = 1 / sqrt(var + epsilon), and
//              the statistics are constants: dX = scale * rstd * dY.
// num_batches > 1 (statistics from other batches' sums) has no gradient here: an error.
//
// LayerNormGradient (dY, Y, mean, std, X) -> dX (Caffe2's form), per row of the [M, N] view at
// `axis`, with xhat = (x - mean) / std:
//   dX = (g - mean(g) - xhat * mean(g * xhat)) / std,  g = dY
// With elementwise_affine=1, Caffe2's 6-input form (dY, Y, mean, std, X, gamma) ->
// (dX, dgamma, dbeta): g = dY * gamma, dgamma = sum over rows of dY * xhat, dbeta = sum of dY.
// The gradient ignores the gradients of the mean / std outputs (as Caffe2 does).
#include <Eigen/Core>
#include <cmath>

#include "core/operator.h"
#include "core/ops/common/eigen_maps.h"
#include "core/ops/common/shape_util.h"
#include "core/ops/norm/norm.h"
#include "core/schema.h"

namespace parity {
namespace norm_util {

BNOptions ReadSpatialBNGradientOptions(const Operator& op) {
  const ArgumentHelper& args = op.args();
  BNOptions o;
  o.is_test = args.Get<bool>("is_test");
  o.epsilon = args.Get<double>("epsilon");
  o.nchw = IsNCHW(args.Get<std::string>("order"), op.label());
  o.num_batches = args.Get<int64_t>("num_batches");
  PARITY_ENFORCE(o.num_batches == 1, ErrorKind::kBadArgument, op.label(), ": num_batches ",
                 o.num_batches,
                 " has no gradient (the statistics come from other batches' sums); use 1");
  PARITY_ENFORCE(o.epsilon > 0, ErrorKind::kBadArgument, op.label(), ": epsilon ", o.epsilon,
                 " must be positive");
  return o;
}

BNLayout CheckSpatialBNGradientInputs(const Operator& op, bool nchw) {
  const Tensor& X = op.Input(0);
  const Tensor& dY = op.Input(2);
  const BNLayout l = BNDims(X.dims(), nchw, op.label());
  PARITY_ENFORCE(dY.dims() == X.dims() && dY.dtype() == X.dtype(), ErrorKind::kShapeMismatch,
                 op.label(), ": dY '", op.InputName(2), "' ", dY.DebugString(),
                 " must have the dtype and dims of X ", X.DebugString());
  return l;
}

void CheckLayerNormGradientArity(const Operator& op, bool affine) {
  const int in = op.InputSize();
  const int out = op.OutputSize();
  PARITY_ENFORCE(affine ? (in == 6 && out == 3) : (in == 5 && out == 1), ErrorKind::kBadArgument,
                 op.label(),
                 affine ? ": elementwise_affine=1 takes (dY, Y, mean, std, X, gamma) -> "
                          "(dX, dgamma, dbeta)"
                        : ": takes (dY, Y, mean, std, X) -> dX unless elementwise_affine=1",
                 ", got ", in, " inputs and ", out, " outputs");
}

LayerNormRows PlanLayerNormGradient(const Operator& op, int64_t axis, bool affine) {
  const Tensor& X = op.Input(4);
  LayerNormRows r;
  r.axis = shape_util::CanonicalAxis(axis, X.ndim(), op.label(), "axis", X.dims());
  r.m = shape_util::SizeToDim(X.dims(), r.axis);
  r.n = shape_util::SizeFromDim(X.dims(), r.axis);
  const std::vector<int64_t> moment_dims = MomentDims(X.dims(), r.axis);
  auto expect = [&](int i, const std::vector<int64_t>& dims, const char* what) {
    const Tensor& t = op.Input(i);
    PARITY_ENFORCE(t.dims() == dims && t.dtype() == X.dtype(), ErrorKind::kShapeMismatch,
                   op.label(), ": ", what, " '", op.InputName(i), "' must be ",
                   DataTypeName(X.dtype()), " ", ShapeString(dims), ", got ", t.DebugString());
  };
  expect(0, X.dims(), "dY");
  expect(1, X.dims(), "Y");
  expect(2, moment_dims, "mean");
  expect(3, moment_dims, "std");
  if (affine) {
    const Tensor& t = op.Input(5);
    PARITY_ENFORCE(t.dtype() == X.dtype() && t.numel() == r.n, ErrorKind::kShapeMismatch,
                   op.label(), ": gamma '", op.InputName(5), "' must be ",
                   DataTypeName(X.dtype()), " with ", r.n, " elements (X ", X.DebugString(),
                   " from axis ", r.axis, "), got ", t.DebugString());
  }
  return r;
}

}  // namespace norm_util

namespace {

using norm_util::BNDims;
using norm_util::BNLayout;
using norm_util::IsNCHW;
using shape_util::CanonicalAxis;
using shape_util::SizeFromDim;
using shape_util::SizeToDim;

// ---------------------------------------------------------------------------------------------
// SpatialBNGradient

class SpatialBNGradientOp final : public Operator {
 public:
  SpatialBNGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        options_(norm_util::ReadSpatialBNGradientOptions(*this)),
        is_test_(options_.is_test),
        epsilon_(options_.epsilon),
        nchw_(options_.nchw) {}

  void Run() override {
    shape_util::DispatchFloating(Input(0), label(), InputName(0),
                                 [&](auto zero) { RunTyped<decltype(zero)>(); });
  }

 private:
  template <typename T>
  const T* Channel(int i, int64_t c) const {
    norm_util::CheckChannelInput(*this, i, DataTypeOf<T>::value, c);
    return Input(i).data<T>();
  }

  // Calls fn(offset, length, c) for each contiguous run of one channel (NCHW: a spatial plane)
  // or fn(offset, C, -1) for each pixel's channel vector (NHWC).
  template <typename Fn>
  void ForEachBlock(const BNLayout& l, Fn&& fn) const {
    if (nchw_) {
      for (int64_t n = 0; n < l.n; ++n) {
        for (int64_t c = 0; c < l.c; ++c) fn((n * l.c + c) * l.hxw, l.hxw, c);
      }
    } else {
      for (int64_t r = 0; r < l.n * l.hxw; ++r) fn(r * l.c, l.c, int64_t{-1});
    }
  }

  template <typename T>
  void RunTyped() {
    const Tensor& X = Input(0);
    const Tensor& dY = Input(2);
    const BNLayout l = norm_util::CheckSpatialBNGradientInputs(*this, nchw_);
    const T* scale = Channel<T>(1, l.c);
    const T* stat_mean = Channel<T>(3, l.c);
    const T* stat_second = Channel<T>(4, l.c);
    const T* x = X.data<T>();
    const T* g = dY.data<T>();
    mean_ = ConstArrayMap<T>(stat_mean, l.c).template cast<double>();
    if (is_test_) {
      rstd_ = 1.0 / (ConstArrayMap<T>(stat_second, l.c).template cast<double>() + epsilon_).sqrt();
    } else {
      rstd_ = ConstArrayMap<T>(stat_second, l.c).template cast<double>();
    }
    // Channel sums of dY and dY * xhat, index-ordered (IndexOrderedSum): for T = double the cast
    // is the map itself, whose Eigen sum() starts its packets at the first aligned address, so a
    // dY fed as a view summed to other bits.
    dbias_.setZero(l.c);
    dscale_.setZero(l.c);
    ForEachBlock(l, [&](int64_t off, int64_t len, int64_t c) {
      auto gd = ConstArrayMap<T>(g + off, len).template cast<double>();
      auto xd = ConstArrayMap<T>(x + off, len).template cast<double>();
      if (c >= 0) {
        const double m = mean_[c];
        dbias_[c] += IndexOrderedSum<double>(len, [&](int64_t i) { return double(g[off + i]); });
        dscale_[c] += IndexOrderedSum<double>(len, [&](int64_t i) {
                        return double(g[off + i]) * (double(x[off + i]) - m);
                      }) *
                      rstd_[c];
      } else {
        dbias_ += gd;
        dscale_ += gd * (xd - mean_) * rstd_;
      }
    });
    // dX = a * dY + b * (x - mean) + k per channel. Centering first matters: with the mean folded
    // into k, b * x and k are large and cancel in T when a channel's mean is large against its
    // spread (the forward kernel's fix, the same way; campaigns with training-mode SpatialBN in
    // nets found it as a nonzero gradient of a bias whose true gradient is 0).
    const double m = static_cast<double>(l.n * l.hxw);
    const Eigen::ArrayXd sr = ConstArrayMap<T>(scale, l.c).template cast<double>() * rstd_;
    if (is_test_ || m == 0) {
      a_ = sr;
      b_.setZero(l.c);
      k_.setZero(l.c);
    } else {
      a_ = sr;
      b_ = -sr * rstd_ * dscale_ / m;
      k_ = -sr * (dbias_ / m);
    }
    Tensor* dX = Output(0);
    Tensor* dScale = Output(1);
    Tensor* dBias = Output(2);
    dX->Resize(X.dims());
    T* dx = dX->template mutable_data<T>();
    ForEachBlock(l, [&](int64_t off, int64_t len, int64_t c) {
      ArrayMap<T> out(dx + off, len);
      ConstArrayMap<T> gv(g + off, len);
      ConstArrayMap<T> xv(x + off, len);
      if (c >= 0) {
        out = static_cast<T>(a_[c]) * gv + static_cast<T>(b_[c]) * (xv - static_cast<T>(mean_[c])) +
              static_cast<T>(k_[c]);
      } else {
        for (int64_t j = 0; j < len; ++j) {
          out[j] = static_cast<T>(a_[j]) * gv[j] +
                   static_cast<T>(b_[j]) * (xv[j] - static_cast<T>(mean_[j])) +
                   static_cast<T>(k_[j]);
        }
      }
    });
    dScale->Resize({l.c});
    dBias->Resize({l.c});
    ArrayMap<T>(dScale->template mutable_data<T>(), l.c) = dscale_.cast<T>();
    ArrayMap<T>(dBias->template mutable_data<T>(), l.c) = dbias_.cast<T>();
  }

  const norm_util::BNOptions options_;  // first: the members below are read from it
  const bool is_test_;
  const double epsilon_;
  const bool nchw_;
  // Per-channel scratch, kept across runs.
  Eigen::ArrayXd mean_, rstd_, dbias_, dscale_, a_, b_, k_;
};

PARITY_OP_SCHEMA(SpatialBNGradient)
    .NumInputs(5)
    .NumOutputs(3)
    .Apply(norm_util::SpatialBNArgs)
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      const BNLayout l = BNDims(in[0].dims, IsNCHW(args.Get<std::string>("order"), args.op_label()),
                                args.op_label());
      TensorType per_channel{in[0].dtype, {l.c}, true};
      return std::vector<TensorType>{in[0], per_channel, per_channel};
    })
    .InputDoc(0, "X", "SpatialBN's input.")
    .InputDoc(1, "scale", "[C] scale.")
    .InputDoc(2, "dY", "Gradient of SpatialBN's output Y.")
    .InputDoc(3, "mean", "[C] saved_mean (training) or the running mean (is_test=1).")
    .InputDoc(4, "inv_std_or_var", "[C] saved_inv_std (training) or the running var (is_test=1).")
    .OutputDoc(0, "dX", "Gradient of X.")
    .OutputDoc(1, "dscale", "[C] gradient of scale.")
    .OutputDoc(2, "dbias", "[C] gradient of bias.")
    .Doc(
        "Gradient of SpatialBN (training: through the batch statistics; is_test=1: with the "
        "given statistics held constant).");
PARITY_REGISTER_CPU_OPERATOR(SpatialBNGradient, SpatialBNGradientOp);

// ---------------------------------------------------------------------------------------------
// LayerNormGradient

class LayerNormGradientOp final : public Operator {
 public:
  LayerNormGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), axis_(Arg<int64_t>("axis")), affine_(Arg<bool>("elementwise_affine")) {
    norm_util::CheckLayerNormGradientArity(*this, affine_);
  }

  void Run() override {
    shape_util::DispatchFloating(Input(4), label(), InputName(4),
                                 [&](auto zero) { RunTyped<decltype(zero)>(); });
  }

 private:
  template <typename T>
  void RunTyped() {
    const Tensor& X = Input(4);
    const norm_util::LayerNormRows rows = norm_util::PlanLayerNormGradient(*this, axis_, affine_);
    const int axis = rows.axis;
    const int64_t m = rows.m;
    const int64_t n = rows.n;
    const T* gamma = affine_ ? Input(5).data<T>() : nullptr;
    const T* dy = Input(0).data<T>();
    const T* x = X.data<T>();
    const T* mean = Input(2).data<T>();
    const T* sd = Input(3).data<T>();
    Tensor* dX = Output(0);
    dX->Resize(X.dims());
    T* dx = dX->template mutable_data<T>();
    if (affine_) {
      dgamma_.setZero(n);
      dbeta_.setZero(n);
      gamma_ = ConstArrayMap<T>(gamma, n).template cast<double>();
    }
    for (int64_t i = 0; i < m; ++i) {
      auto dyr = ConstArrayMap<T>(dy + i * n, n).template cast<double>();
      const double inv = 1.0 / static_cast<double>(sd[i]);
      xhat_ =
          (ConstArrayMap<T>(x + i * n, n).template cast<double>() - static_cast<double>(mean[i])) *
          inv;
      if (affine_) {
        dgamma_ += dyr * xhat_;
        dbeta_ += dyr;
        g_ = dyr * gamma_;
      } else {
        g_ = dyr;
      }
      const double mean_g = g_.mean();
      const double mean_gx = (g_ * xhat_).mean();
      ArrayMap<T>(dx + i * n, n) = ((g_ - mean_g - xhat_ * mean_gx) * inv).template cast<T>();
    }
    if (affine_) {
      const std::vector<int64_t> param_dims(X.dims().begin() + axis, X.dims().end());
      Tensor* dGamma = Output(1);
      Tensor* dBeta = Output(2);
      dGamma->Resize(param_dims);
      dBeta->Resize(param_dims);
      ArrayMap<T>(dGamma->template mutable_data<T>(), n) = dgamma_.cast<T>();
      ArrayMap<T>(dBeta->template mutable_data<T>(), n) = dbeta_.cast<T>();
    }
  }

  const int64_t axis_;
  const bool affine_;
  Eigen::ArrayXd xhat_, g_, gamma_, dgamma_, dbeta_;  // Row scratch, kept across runs.
};

PARITY_OP_SCHEMA(LayerNormGradient)
    .NumInputs(5, 6)
    .NumOutputs(1, 3)
    .NumInputsOutputs([](int in,
                         int out) { return (in == 5 && out == 1) || (in == 6 && out == 3); },
                      "(dY, Y, mean, std, X) -> dX, or with gamma -> (dX, dgamma, dbeta)")
    .Apply(norm_util::LayerNormArgs)
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      const int axis = CanonicalAxis(args.Get<int64_t>("axis"), static_cast<int>(in[4].dims.size()),
                                     args.op_label(), "axis", in[4].dims);
      std::vector<TensorType> out{in[4]};
      if (def.output_size() == 3) {
        TensorType param{in[4].dtype,
                         std::vector<int64_t>(in[4].dims.begin() + axis, in[4].dims.end()), true};
        out.push_back(param);
        out.push_back(param);
      }
      return out;
    })
    .InputDoc(0, "dY", "Gradient of LayerNorm's output Y.")
    .InputDoc(1, "Y", "LayerNorm's output.")
    .InputDoc(2, "mean", "LayerNorm's row means, X.dims[:axis] + [1].")
    .InputDoc(3, "std", "LayerNorm's row std, X.dims[:axis] + [1].")
    .InputDoc(4, "X", "LayerNorm's input.")
    .InputDoc(5, "gamma", "With elementwise_affine=1: LayerNorm's gamma.")
    .OutputDoc(0, "dX", "Gradient of X.")
    .OutputDoc(1, "dgamma", "With elementwise_affine=1: gradient of gamma.")
    .OutputDoc(2, "dbeta", "With elementwise_affine=1: gradient of beta.")
    .Doc("Gradient of LayerNorm (Caffe2's conventions; mean / std output gradients ignored).");
PARITY_REGISTER_CPU_OPERATOR(LayerNormGradient, LayerNormGradientOp);

}  // namespace
}  // namespace parity

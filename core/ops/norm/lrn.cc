// LRN (local response normalization across channels) and LRNGradient. Caffe2 semantics
// (caffe2/operators/local_response_normalization_op.{h,cc}); float and double, 4-D X in NCHW or
// NHWC.
//
// With half = (size - 1) / 2 (Caffe2's pre_pad), per element of channel c:
//   scale_c = bias + alpha / size * sum of x_{c'}^2 over c' in [c - half, c + half] within [0, C)
//   Y_c = X_c * scale_c^(-beta)
// Output 1, when asked, is scale. alpha is divided by size (not by the number of channels the
// window covers at the edges), as in Caffe2.
// LRNGradient(X, Y, dY) -> dX recomputes scale from X (Caffe2 does, whether or not the forward op
// wrote it) and gives
//   dX_c = dY_c * scale_c^(-beta) - 2 * alpha * beta / size * X_c * sum over c' with c in the
//          window of c' (the same window, size being odd) of dY_{c'} * Y_{c'} / scale_{c'}.
// Caffe2's constructor checks (DCHECKs there) are bad arguments here: size positive and odd, alpha
// and beta positive. Caffe2's defaults (size 0, alpha 0, beta 0) thus leave those three to be set.
// Each window is summed directly (Caffe2 slides one running sum along the channels, adding the
// head and subtracting the tail, which carries rounding from channel to channel).
#include <cmath>

#include "core/operator.h"
#include "core/ops/common/shape_util.h"
#include "core/ops/norm/norm.h"
#include "core/parallel.h"
#include "core/schema.h"

namespace parity {
namespace {

struct LRNParams {
  int64_t size = 0;
  double alpha = 0;
  double beta = 0;
  double bias = 1;
  bool nchw = true;
};

LRNParams ReadLRNParams(const ArgumentHelper& args) {
  const std::string& label = args.op_label();
  LRNParams p;
  p.size = args.Get<int64_t>("size");
  p.alpha = args.Get<float>("alpha");
  p.beta = args.Get<float>("beta");
  p.bias = args.Get<float>("bias");
  p.nchw = norm_util::IsNCHW(args.Get<std::string>("order"), label);
  PARITY_ENFORCE(p.size > 0 && p.size % 2 == 1, ErrorKind::kBadArgument, label,
                 ": argument 'size' = ", p.size, " must be a positive odd number of channels");
  PARITY_ENFORCE(p.alpha > 0, ErrorKind::kBadArgument, label, ": argument 'alpha' = ", p.alpha,
                 " must be positive");
  PARITY_ENFORCE(p.beta > 0, ErrorKind::kBadArgument, label, ": argument 'beta' = ", p.beta,
                 " must be positive");
  return p;
}

OpSchema& LRNArgs(OpSchema& schema) {
  return schema
      .Arg("size", ArgType::kInt, int64_t{0},
           "Channels in the window (positive, odd; Caffe2's default 0 must be overridden).")
      .Arg("alpha", ArgType::kFloat, 0.0,
           "Scale of the window's sum of squares, divided by size "
           "(positive; the default 0 must be overridden).")
      .Arg("beta", ArgType::kFloat, 0.0, "Exponent (positive; the default 0 must be overridden).")
      .Arg("bias", ArgType::kFloat, 1.0, "Added to the scaled sum of squares.")
      .Arg("order", ArgType::kString, std::string("NCHW"), "\"NCHW\" or \"NHWC\".");
}

// X as [outer, C, inner]: NCHW is [N, C, H*W], NHWC is [N*H*W, C, 1].
struct ChannelView {
  int64_t outer = 0, c = 0, inner = 0;
  int64_t At(int64_t o, int64_t ch, int64_t i) const { return (o * c + ch) * inner + i; }
};

ChannelView ViewOf(const Tensor& x, bool nchw, const std::string& label) {
  PARITY_ENFORCE(x.ndim() == 4, ErrorKind::kShapeMismatch, label, ": X must be 4-D (",
                 nchw ? "NCHW" : "NHWC", "), got ", x.DebugString());
  const std::vector<int64_t>& d = x.dims();
  if (nchw) return {d[0], d[1], d[2] * d[3]};
  return {d[0] * d[1] * d[2], d[3], 1};
}

// scale at every element of X.
template <typename T>
void ComputeScale(const LRNParams& p, const ChannelView& v, const T* x, T* scale) {
  const int64_t half = (p.size - 1) / 2;
  const T alpha_over_size = static_cast<T>(p.alpha) / static_cast<T>(p.size);
  const T bias = static_cast<T>(p.bias);
  ParallelFor(0, v.outer, GrainFor(v.c * v.inner * p.size), [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      for (int64_t ch = 0; ch < v.c; ++ch) {
        const int64_t lo = std::max<int64_t>(0, ch - half);
        const int64_t hi = std::min<int64_t>(v.c - 1, ch + half);
        for (int64_t i = 0; i < v.inner; ++i) {
          T sum = 0;
          for (int64_t k = lo; k <= hi; ++k) {
            const T xk = x[v.At(o, k, i)];
            sum += xk * xk;
          }
          scale[v.At(o, ch, i)] = bias + alpha_over_size * sum;
        }
      }
    }
  });
}

class LRNOp final : public Operator {
 public:
  LRNOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), params_(ReadLRNParams(args())) {}

  void Run() override {
    shape_util::DispatchFloating(Input(0), label(), InputName(0),
                                 [&](auto zero) { RunTyped<decltype(zero)>(); });
  }

 private:
  template <typename T>
  void RunTyped() {
    const Tensor& X = Input(0);
    const ChannelView v = ViewOf(X, params_.nchw, label());
    Tensor local_scale;
    Tensor* S = OutputSize() > 1 ? Output(1) : &local_scale;
    S->Resize(X.dims());
    T* scale = S->template mutable_data<T>();
    ComputeScale<T>(params_, v, X.template data<T>(), scale);
    Tensor* Y = Output(0);
    Y->Resize(X.dims());
    const T* x = X.template data<T>();
    T* y = Y->template mutable_data<T>();
    const T neg_beta = static_cast<T>(-params_.beta);
    for (int64_t k = 0; k < X.numel(); ++k) y[k] = x[k] * std::pow(scale[k], neg_beta);
  }

  const LRNParams params_;
};

PARITY_OP_SCHEMA(LRN)
    .NumInputs(1)
    .NumOutputs(1, 2)
    .Apply(LRNArgs)
    .DifferentiableInputs({0})
    .NonDifferentiableOutputs({1})  // scale: Caffe2's maker reads only dY
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper&,
                       const std::vector<TensorType>& in) {
      return std::vector<TensorType>(def.output_size(), in[0]);
    })
    .InputDoc(0, "X", "4-D float/double input, NCHW or NHWC.")
    .OutputDoc(0, "Y", "X * scale^(-beta), dims of X.")
    .OutputDoc(1, "scale", "Optional: bias + alpha / size * (sum of squares over the window).")
    .Doc(
        "Local response normalization across channels (Caffe2's LRN): Y = X * (bias + alpha / "
        "size * sum of X^2 over the size channels centred on each)^(-beta), the window clipped "
        "at the first and last channel.");
PARITY_REGISTER_CPU_OPERATOR(LRN, LRNOp);

class LRNGradientOp final : public Operator {
 public:
  LRNGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), params_(ReadLRNParams(args())) {}

  void Run() override {
    shape_util::DispatchFloating(Input(0), label(), InputName(0),
                                 [&](auto zero) { RunTyped<decltype(zero)>(); });
  }

 private:
  template <typename T>
  void RunTyped() {
    const Tensor& X = Input(0);
    const ChannelView v = ViewOf(X, params_.nchw, label());
    for (int i = 1; i < 3; ++i) {
      const Tensor& t = Input(i);
      PARITY_ENFORCE(t.dtype() == X.dtype() && t.dims() == X.dims(), ErrorKind::kShapeMismatch,
                     label(), ": input '", InputName(i), "' must have the dtype and dims of X ",
                     X.DebugString(), ", got ", t.DebugString());
    }
    const T* x = X.template data<T>();
    const T* y = Input(1).template data<T>();
    const T* dy = Input(2).template data<T>();
    Tensor scale_t;
    scale_t.Resize(X.dims());
    T* scale = scale_t.template mutable_data<T>();
    ComputeScale<T>(params_, v, x, scale);
    // ratio = dY * Y / scale, summed over each window below.
    Tensor ratio_t;
    ratio_t.Resize(X.dims());
    T* ratio = ratio_t.template mutable_data<T>();
    for (int64_t k = 0; k < X.numel(); ++k) ratio[k] = dy[k] * y[k] / scale[k];
    Tensor* dX = Output(0);
    dX->Resize(X.dims());
    T* dx = dX->template mutable_data<T>();
    const int64_t half = (params_.size - 1) / 2;
    const T cache_ratio =
        static_cast<T>(2.0 * params_.alpha * params_.beta / static_cast<double>(params_.size));
    const T neg_beta = static_cast<T>(-params_.beta);
    ParallelFor(0, v.outer, GrainFor(v.c * v.inner * params_.size),
                [&](int64_t begin, int64_t end) {
                  for (int64_t o = begin; o < end; ++o) {
                    for (int64_t ch = 0; ch < v.c; ++ch) {
                      const int64_t lo = std::max<int64_t>(0, ch - half);
                      const int64_t hi = std::min<int64_t>(v.c - 1, ch + half);
                      for (int64_t i = 0; i < v.inner; ++i) {
                        T sum = 0;
                        for (int64_t k = lo; k <= hi; ++k) sum += ratio[v.At(o, k, i)];
                        const int64_t at = v.At(o, ch, i);
                        dx[at] = dy[at] * std::pow(scale[at], neg_beta) - cache_ratio * x[at] * sum;
                      }
                    }
                  }
                });
  }

  const LRNParams params_;
};

PARITY_OP_SCHEMA(LRNGradient)
    .NumInputs(3)
    .NumOutputs(1)
    .Apply(LRNArgs)
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper&,
                       const std::vector<TensorType>& in) {
      return std::vector<TensorType>{in[0]};
    })
    .InputDoc(0, "X", "LRN's input.")
    .InputDoc(1, "Y", "LRN's output.")
    .InputDoc(2, "dY", "Gradient of Y.")
    .OutputDoc(0, "dX", "Gradient of X.")
    .Doc("Gradient of LRN (Caffe2's LRNGradient), with the forward op's arguments.");
PARITY_REGISTER_CPU_OPERATOR(LRNGradient, LRNGradientOp);

}  // namespace
}  // namespace parity

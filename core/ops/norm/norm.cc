// Normalization: SpatialBN, LayerNorm. Caffe2 semantics (caffe2/operators/spatial_batch_norm_op.h,
// layer_norm_op.h), newer pytorch tree. float and double.
//
// SpatialBN, training (is_test=0, 5 outputs): per channel c over the N*HxW values of the batch,
//   mean_c = E[x], var_c = E[(x - mean_c)^2] (biased), rstd_c = 1 / sqrt(var_c + epsilon);
//   Y = (x - mean_c) * rstd_c * scale_c + bias_c;
//   running_mean = (1 - momentum) * mean + momentum * running_mean;
//   running_var  = (1 - momentum) * var * n/(n-1) + momentum * running_var, n = num_batches*N*HxW
//                  (the newer Caffe2's unbiased update; n = 1 makes the factor +inf, as there);
//   saved_mean = mean, saved_inv_std = rstd.
// With num_batches > 1, mean and var come from inputs 5, 6 (per-channel sums and sums of squares
// over all batches): mean = sums / n, var = sumsq / n - mean^2.
// Test (is_test=1, 1 output): Y = (x - mean) / sqrt(var + epsilon) * scale + bias with the given
// mean and var. Running stats are updated in place: outputs 1, 2 must be inputs 3, 4.
//
// LayerNorm: X is seen as [M, N] at `axis`; per row mean and std = sqrt(var + epsilon) (biased var)
// are output with dims X.dims[:axis] + [1]; Y = (x - mean) / std, then * gamma + beta (each of
// dims X.dims[axis:]) with elementwise_affine=1.
#include "core/ops/norm/norm.h"

#include <Eigen/Core>
#include <cmath>
#include <limits>

#include "core/operator.h"
#include "core/ops/common/eigen_maps.h"
#include "core/ops/common/shape_util.h"
#include "core/parallel.h"
#include "core/schema.h"

namespace parity {
namespace norm_util {

BNLayout BNDims(const std::vector<int64_t>& dims, bool nchw, const std::string& label) {
  PARITY_ENFORCE(dims.size() >= 2, ErrorKind::kShapeMismatch, label,
                 ": X must have rank >= 2, got ", ShapeString(dims));
  BNLayout l;
  l.n = dims[0];
  l.c = nchw ? dims[1] : dims.back();
  PARITY_ENFORCE(l.c > 0, ErrorKind::kShapeMismatch, label, ": X ", ShapeString(dims),
                 " has no channels");
  l.hxw = shape_util::SizeFromDim(dims, 1) / l.c;
  return l;
}

bool IsNCHW(const std::string& order, const std::string& label) {
  PARITY_ENFORCE(order == "NCHW" || order == "NHWC", ErrorKind::kBadArgument, label,
                 ": argument 'order' = \"", order, "\" should be \"NCHW\" or \"NHWC\"");
  return order == "NCHW";
}

OpSchema& SpatialBNArgs(OpSchema& schema) {
  return schema
      .Arg("is_test", ArgType::kInt, int64_t{0},
           "If 1, normalize with the given mean/var (1 output); else with batch statistics.")
      .Arg("epsilon", ArgType::kFloat, 1e-5, "Added to the variance before the square root (> 0).")
      .Arg("momentum", ArgType::kFloat, 0.9,
           "running = momentum * running + (1 - momentum) * batch statistic; in [0, 1].")
      .Arg("order", ArgType::kString, std::string("NCHW"), "\"NCHW\" or \"NHWC\".")
      .Arg("num_batches", ArgType::kInt, int64_t{1},
           "If > 1, batch statistics come from inputs 5, 6 summed over that many batches.");
}

std::vector<int64_t> MomentDims(const std::vector<int64_t>& dims, int axis) {
  std::vector<int64_t> out(dims.begin(), dims.begin() + axis);
  out.push_back(1);
  return out;
}

OpSchema& LayerNormArgs(OpSchema& schema) {
  return schema
      .Arg("axis", ArgType::kInt, int64_t{1},
           "Normalize over dims[axis:] (negative counts from the end).")
      .Arg("epsilon", ArgType::kFloat, 1e-5, "Added to the variance before the square root.")
      .Arg("elementwise_affine", ArgType::kInt, int64_t{0},
           "If 1, inputs gamma and beta (dims X.dims[axis:]) scale and shift the result.");
}

BNOptions ReadSpatialBNOptions(const Operator& op) {
  const ArgumentHelper& args = op.args();
  const std::string& label = op.label();
  BNOptions o;
  o.is_test = args.Get<bool>("is_test");
  o.epsilon = args.Get<double>("epsilon");
  o.momentum = args.Get<double>("momentum");
  o.nchw = IsNCHW(args.Get<std::string>("order"), label);
  o.num_batches = args.Get<int64_t>("num_batches");
  PARITY_ENFORCE(o.is_test ? op.OutputSize() == 1 : op.OutputSize() == 5, ErrorKind::kBadArgument,
                 label, ": produces ",
                 o.is_test ? "1 output with is_test=1"
                           : "5 outputs with is_test=0 (Y, running_mean, running_var, saved_mean, "
                             "saved_inv_std)",
                 ", got ", op.OutputSize());
  PARITY_ENFORCE(o.epsilon > 0, ErrorKind::kBadArgument, label, ": epsilon ", o.epsilon,
                 " must be positive");
  PARITY_ENFORCE(o.momentum >= 0 && o.momentum <= 1, ErrorKind::kBadArgument, label, ": momentum ",
                 o.momentum, " must be in [0, 1]");
  PARITY_ENFORCE(o.num_batches >= 1, ErrorKind::kBadArgument, label, ": num_batches ",
                 o.num_batches, " must be >= 1");
  PARITY_ENFORCE(o.num_batches == 1 || op.InputSize() == 7, ErrorKind::kBadArgument, label,
                 ": num_batches > 1 needs inputs 5 and 6 (sums, sumsq)");
  return o;
}

void CheckChannelInput(const Operator& op, int i, DataType dtype, int64_t c) {
  const Tensor& t = op.Input(i);
  PARITY_ENFORCE(t.dtype() == dtype && t.numel() == c, ErrorKind::kShapeMismatch, op.label(),
                 ": input '", op.InputName(i), "' must be ", DataTypeName(dtype), " with ", c,
                 " elements (one per channel of X ", op.Input(0).DebugString(), "), got ",
                 t.DebugString());
}

void CheckLayerNormInputs(const Operator& op, bool affine) {
  PARITY_ENFORCE(op.InputSize() == (affine ? 3 : 1), ErrorKind::kBadArgument, op.label(),
                 affine ? ": elementwise_affine=1 needs inputs gamma and beta"
                        : ": takes 1 input unless elementwise_affine=1");
}

LayerNormRows PlanLayerNorm(const Operator& op, int64_t axis, bool affine) {
  const Tensor& X = op.Input(0);
  LayerNormRows r;
  r.axis = shape_util::CanonicalAxis(axis, X.ndim(), op.label(), "axis", X.dims());
  r.m = shape_util::SizeToDim(X.dims(), r.axis);
  r.n = shape_util::SizeFromDim(X.dims(), r.axis);
  if (affine) {
    for (int i = 1; i <= 2; ++i) {
      const Tensor& t = op.Input(i);
      PARITY_ENFORCE(t.dtype() == X.dtype() && t.numel() == r.n, ErrorKind::kShapeMismatch,
                     op.label(), ": input '", op.InputName(i), "' must be ",
                     DataTypeName(X.dtype()), " with ", r.n, " elements (X ", X.DebugString(),
                     " from axis ", r.axis, "), got ", t.DebugString());
    }
  }
  return r;
}

}  // namespace norm_util

namespace {

using norm_util::BNDims;
using norm_util::BNLayout;
using norm_util::IsNCHW;
using norm_util::MomentDims;

using shape_util::CanonicalAxis;
using shape_util::SizeFromDim;
using shape_util::SizeToDim;

// ---------------------------------------------------------------------------------------------
// SpatialBN

class SpatialBNOp final : public Operator {
 public:
  SpatialBNOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        options_(norm_util::ReadSpatialBNOptions(*this)),
        is_test_(options_.is_test),
        epsilon_(options_.epsilon),
        momentum_(options_.momentum),
        nchw_(options_.nchw),
        num_batches_(options_.num_batches) {}

  void Run() override {
    shape_util::DispatchFloating(Input(0), label(), InputName(0),
                                 [&](auto zero) { RunTyped<decltype(zero)>(); });
  }

 private:
  // A per-channel input: dtype of X and C elements.
  template <typename T>
  const T* Channel(int i, int64_t c) const {
    norm_util::CheckChannelInput(*this, i, DataTypeOf<T>::value, c);
    return Input(i).data<T>();
  }

  template <typename T>
  void RunTyped() {
    const Tensor& X = Input(0);
    const BNLayout l = BNDims(X.dims(), nchw_, label());
    const T* scale = Channel<T>(1, l.c);
    const T* bias = Channel<T>(2, l.c);
    alpha_.resize(l.c);
    beta_.resize(l.c);
    if (is_test_) {
      ConstArrayMap<T> mean(Channel<T>(3, l.c), l.c);
      ConstArrayMap<T> var(Channel<T>(4, l.c), l.c);
      alpha_ = ConstArrayMap<T>(scale, l.c).template cast<double>() /
               (var.template cast<double>() + epsilon_).sqrt();
      shift_ = mean.template cast<double>();
      beta_ = ConstArrayMap<T>(bias, l.c).template cast<double>();
    } else if (!Train<T>(l, scale, bias)) {
      return;  // Empty batch.
    }
    Tensor* Y = Output(0);
    const T* x = X.data<T>();  // Read before Resize: Y may be X (in place).
    Y->Resize(X.dims());
    T* y = Y->template mutable_data<T>();
    const Eigen::Array<T, Eigen::Dynamic, 1> a = alpha_.template cast<T>();
    const Eigen::Array<T, Eigen::Dynamic, 1> s = shift_.template cast<T>();
    const Eigen::Array<T, Eigen::Dynamic, 1> b = beta_.template cast<T>();
    // Planes (NCHW) or pixels (NHWC) are split across threads; every element is computed alone,
    // by the same code on any thread (bit-identical).
    if (nchw_) {
      ParallelFor(0, l.n * l.c, GrainFor(l.hxw), [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) {
          const int64_t c = p % l.c;
          const int64_t off = p * l.hxw;
          ArrayMap<T>(y + off, l.hxw) = (ConstArrayMap<T>(x + off, l.hxw) - s[c]) * a[c] + b[c];
        }
      });
    } else {
      ParallelFor(0, l.n * l.hxw, GrainFor(l.c), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          ArrayMap<T>(y + r * l.c, l.c) = (ConstArrayMap<T>(x + r * l.c, l.c) - s) * a + b;
        }
      });
    }
  }

  // Batch statistics, running-stat update, saved outputs and the fused alpha/beta. Returns false
  // for an empty batch (saved stats zero, running stats untouched, as in Caffe2).
  template <typename T>
  bool Train(const BNLayout& l, const T* scale, const T* bias) {
    // Batch statistics first: inputs 5, 6 may share blobs with outputs 3, 4 (allowed in place),
    // so they are read before those outputs are touched.
    const double count = static_cast<double>(num_batches_ * l.n * l.hxw);
    Eigen::ArrayXd m = Eigen::ArrayXd::Zero(l.c), v = Eigen::ArrayXd::Zero(l.c);
    if (l.n > 0 && num_batches_ > 1) {
      m = ConstArrayMap<T>(Channel<T>(5, l.c), l.c).template cast<double>() / count;
      v = ConstArrayMap<T>(Channel<T>(6, l.c), l.c).template cast<double>() / count - m.square();
    } else if (l.n > 0) {
      Moments<T>(l, &m, &v);
    }
    Tensor* saved_mean = Output(3);
    Tensor* saved_rstd = Output(4);
    saved_mean->Resize({l.c});
    saved_rstd->Resize({l.c});
    ArrayMap<T> mean(saved_mean->template mutable_data<T>(), l.c);
    ArrayMap<T> rstd(saved_rstd->template mutable_data<T>(), l.c);
    // Outputs 1, 2 are inputs 3, 4 (enforced in place). Caffe2 zero-initializes running stats of
    // the wrong size (a deprecated path kept for old nets); a wrong dtype is an error.
    ArrayMap<T> running_mean = RunningStat<T>(1, 3, l.c);
    ArrayMap<T> running_var = RunningStat<T>(2, 4, l.c);
    if (l.n == 0) {
      Output(0)->Resize(Input(0).dims());
      Output(0)->template mutable_data<T>();
      mean.setZero();
      rstd.setZero();
      return false;
    }
    const double unbias =
        count == 1 ? std::numeric_limits<double>::infinity() : count / (count - 1);
    const double a = 1 - momentum_;
    running_mean = (a * m + momentum_ * running_mean.template cast<double>()).template cast<T>();
    running_var =
        (a * unbias * v + momentum_ * running_var.template cast<double>()).template cast<T>();
    mean = m.cast<T>();
    rstd = (1.0 / (v + epsilon_).sqrt()).cast<T>();
    alpha_ = ConstArrayMap<T>(scale, l.c).template cast<double>() * rstd.template cast<double>();
    shift_ = m;
    beta_ = ConstArrayMap<T>(bias, l.c).template cast<double>();
    return true;
  }

  template <typename T>
  ArrayMap<T> RunningStat(int out, int in, int64_t c) {
    Tensor* t = Output(out);
    if (t->numel() != c || !t->defined()) {
      t->Resize({c});
      ArrayMap<T>(t->template mutable_data<T>(), c).setZero();
    }
    PARITY_ENFORCE(t->dtype() == DataTypeOf<T>::value, ErrorKind::kShapeMismatch, label(),
                   ": input '", InputName(in), "' must be ", DataTypeName(DataTypeOf<T>::value),
                   ", got ", t->DebugString());
    return ArrayMap<T>(t->template mutable_data<T>(), c);
  }

  // Per-channel mean and biased variance in double, two passes (mean, then squared deviations).
  template <typename T>
  void Moments(const BNLayout& l, Eigen::ArrayXd* m, Eigen::ArrayXd* v) const {
    const T* x = Input(0).data<T>();
    const double count = static_cast<double>(l.n * l.hxw);
    m->setZero();
    v->setZero();
    if (nchw_) {
      for (int64_t n = 0; n < l.n; ++n) {
        for (int64_t c = 0; c < l.c; ++c) {
          const T* xc = x + (n * l.c + c) * l.hxw;
          (*m)[c] += IndexOrderedSum<double>(l.hxw, [xc](int64_t j) { return double{xc[j]}; });
        }
      }
      *m /= count;
      for (int64_t n = 0; n < l.n; ++n) {
        for (int64_t c = 0; c < l.c; ++c) {
          const T* xc = x + (n * l.c + c) * l.hxw;
          const double mc = (*m)[c];
          (*v)[c] += IndexOrderedSum<double>(l.hxw, [xc, mc](int64_t j) {
            const double d = double{xc[j]} - mc;
            return d * d;
          });
        }
      }
    } else {
      for (int64_t r = 0; r < l.n * l.hxw; ++r) {
        *m += ConstArrayMap<T>(x + r * l.c, l.c).template cast<double>();
      }
      *m /= count;
      for (int64_t r = 0; r < l.n * l.hxw; ++r) {
        *v += (ConstArrayMap<T>(x + r * l.c, l.c).template cast<double>() - *m).square();
      }
    }
    *v /= count;
  }

  const norm_util::BNOptions options_;  // first: the members below are read from it
  const bool is_test_;
  const double epsilon_;
  const double momentum_;
  const bool nchw_;
  const int64_t num_batches_;
  // Y = (x - shift_c) * alpha_c + beta_c, the per-channel factors computed in double. Caffe2 folds
  // the mean into the offset (Y = alpha_c * x + (beta_c - alpha_c * mean_c)), which cancels
  // catastrophically in f32 when the variance is small (alpha_c large): that was
  // the first finding of the small-variance domain (issue 12), 7e-6 off on an output of 0.19.
  Eigen::ArrayXd alpha_;
  Eigen::ArrayXd shift_;
  Eigen::ArrayXd beta_;
};

PARITY_OP_SCHEMA(SpatialBN)
    .NonDifferentiableOutputs({1, 2, 3, 4})  // running and saved statistics
    .NumInputs(5, 7)
    // Caffe2's NumInputs({5, 7}): the sums come as a pair, inputs 5 and 6, or not at all.
    .NumInputsOutputs([](int in, int) { return in != 6; },
                      "5 or 7 inputs (sums and sumsq together)")
    .NumOutputs(1, 5)
    .AllowInplace({{0, 0}, {5, 3}, {6, 4}})
    .EnforceInplace({{3, 1}, {4, 2}})
    .Apply(norm_util::SpatialBNArgs)
    .DifferentiableInputs({0, 1, 2})
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      const BNLayout l = BNDims(in[0].dims, IsNCHW(args.Get<std::string>("order"), args.op_label()),
                                args.op_label());
      std::vector<TensorType> out(def.output_size());
      out[0] = in[0];
      for (size_t i = 1; i < out.size(); ++i) {
        out[i].dtype = in[0].dtype;
        out[i].dims = {l.c};
      }
      return out;
    })
    .InputDoc(0, "X", "NCHW (or NHWC) float/double input, rank >= 2.")
    .InputDoc(1, "scale", "[C] scale.")
    .InputDoc(2, "bias", "[C] bias.")
    .InputDoc(3, "mean", "[C] running mean (training, updated in place) or the mean (test).")
    .InputDoc(4, "var", "[C] running variance (training, updated in place) or the variance.")
    .InputDoc(5, "sums", "Optional [C] per-channel sums over num_batches batches.")
    .InputDoc(6, "sumsq", "Optional [C] per-channel sums of squares over num_batches batches.")
    .OutputDoc(0, "Y", "Normalized output, dims of X.")
    .OutputDoc(1, "running_mean", "Training: the updated running mean (same blob as input 3).")
    .OutputDoc(2, "running_var", "Training: the updated running variance (same blob as input 4).")
    .OutputDoc(3, "saved_mean", "Training: the batch mean.")
    .OutputDoc(4, "saved_inv_std", "Training: 1 / sqrt(batch var + epsilon).")
    .Doc("Spatial batch normalization (Caffe2's SpatialBN, newer running-variance rule).");
PARITY_REGISTER_CPU_OPERATOR(SpatialBN, SpatialBNOp);

// ---------------------------------------------------------------------------------------------
// LayerNorm

class LayerNormOp final : public Operator {
 public:
  LayerNormOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        axis_(Arg<int64_t>("axis")),
        epsilon_(Arg<double>("epsilon")),
        affine_(Arg<bool>("elementwise_affine")) {
    norm_util::CheckLayerNormInputs(*this, affine_);
  }

  void Run() override {
    shape_util::DispatchFloating(Input(0), label(), InputName(0),
                                 [&](auto zero) { RunTyped<decltype(zero)>(); });
  }

 private:
  template <typename T>
  void RunTyped() {
    const Tensor& X = Input(0);
    const norm_util::LayerNormRows rows = norm_util::PlanLayerNorm(*this, axis_, affine_);
    const int axis = rows.axis;
    const int64_t m = rows.m;
    const int64_t n = rows.n;
    const T* gamma = affine_ ? Input(1).data<T>() : nullptr;
    const T* beta = affine_ ? Input(2).data<T>() : nullptr;
    const T* x = X.data<T>();
    Tensor* Y = Output(0);
    Tensor* mean_t = Output(1);
    Tensor* std_t = Output(2);
    const std::vector<int64_t> moment_dims = MomentDims(X.dims(), axis);
    Y->Resize(X.dims());
    mean_t->Resize(moment_dims);
    std_t->Resize(moment_dims);
    T* y = Y->template mutable_data<T>();
    T* mean = mean_t->template mutable_data<T>();
    T* sd = std_t->template mutable_data<T>();
    // Rows are split across threads, each row by one thread as on one thread (bit-identical).
    ParallelFor(0, m, GrainFor(n), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        ConstArrayMap<T> row(x + i * n, n);
        const T* xi = x + i * n;
        const T mu = IndexOrderedSum<T>(n, [xi](int64_t j) { return xi[j]; }) / static_cast<T>(n);
        const T var = IndexOrderedSum<T>(n,
                                         [xi, mu](int64_t j) {
                                           const T d = xi[j] - mu;
                                           return d * d;
                                         }) /
                      static_cast<T>(n);
        const T s = std::sqrt(var + static_cast<T>(epsilon_));
        mean[i] = mu;
        sd[i] = s;
        ArrayMap<T> out(y + i * n, n);
        out = (row - mu) / s;
        if (affine_) out = out * ConstArrayMap<T>(gamma, n) + ConstArrayMap<T>(beta, n);
      }
    });
  }

  const int64_t axis_;
  const double epsilon_;
  const bool affine_;
};

PARITY_OP_SCHEMA(LayerNorm)
    .NonDifferentiableOutputs({1, 2})  // mean and std
    .NumInputs(1, 3)
    .NumOutputs(3)
    .NumInputsOutputs([](int in, int) { return in != 2; },
                      "gamma and beta come together, as inputs 1 and 2")
    .Apply(norm_util::LayerNormArgs)
    .DifferentiableInputs({0, 1, 2})
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      const int axis = CanonicalAxis(args.Get<int64_t>("axis"), static_cast<int>(in[0].dims.size()),
                                     args.op_label(), "axis", in[0].dims);
      TensorType moments{in[0].dtype, MomentDims(in[0].dims, axis), true};
      return std::vector<TensorType>{in[0], moments, moments};
    })
    .InputDoc(0, "X", "float/double input.")
    .InputDoc(1, "gamma", "Optional scale, dims X.dims[axis:] (elementwise_affine=1).")
    .InputDoc(2, "beta", "Optional shift, dims X.dims[axis:] (elementwise_affine=1).")
    .OutputDoc(0, "Y", "Normalized output, dims of X.")
    .OutputDoc(1, "mean", "Row means, dims X.dims[:axis] + [1].")
    .OutputDoc(2, "std", "Row sqrt(var + epsilon), dims X.dims[:axis] + [1].")
    .Doc("Layer normalization over the trailing dims from `axis`.");
PARITY_REGISTER_CPU_OPERATOR(LayerNorm, LayerNormOp);

}  // namespace
}  // namespace parity

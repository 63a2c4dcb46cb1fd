// ONNX's class losses (Caffe2 had neither; ONNX's names and semantics), float and double, targets
// int32 or int64:
//
//   NegativeLogLikelihoodLoss (X, target, [weight]) -> loss
//     X [N, C] or [N, C, d1, ..., dk] (log-probabilities), target [N] or [N, d1, ..., dk] with
//     values in [0, C) or equal to `ignore_index`, weight [C]. Per target position p = (n, d...):
//     l[p] = -w[t] * X[n, t, d...] with t = target[p] and w = 1 without weights; 0 (and weight 0)
//     where t == ignore_index. reduction "none": l (target's dims); "sum": sum l; "mean" (the
//     default): sum l / sum of the weights of the positions not ignored (0 / 0 = NaN when every
//     position is ignored, as ONNX's and PyTorch's references give).
//   SoftmaxCrossEntropyLoss (scores, labels, [weights]) -> (loss, [log_prob])
//     log_prob = log softmax of the scores over dim 1 (the classes), computed from the shifted
//     scores so large logits do not overflow; loss = NegativeLogLikelihoodLoss(log_prob, ...).
//     log_prob carries no gradient (like SoftmaxWithLoss's softmax in Caffe2).
//
// Gradients (the forward op's arguments copied), wrt X / the scores only (the weights are
// constants of the loss, as in Caffe2's SoftmaxWithLoss), each with s[p] = dLoss[p] ("none"),
// dLoss ("sum") or dLoss / sum of weights ("mean"):
//   NegativeLogLikelihoodLossGradient (X, target, [weight], dLoss) -> dX:
//     dX[n, t, d...] = -w[t] * s[p] at each position not ignored, 0 elsewhere.
//   SoftmaxCrossEntropyLossGradient (scores, labels, [weights], dLoss) -> dScores:
//     (softmax - onehot(t)) * w[t] * s[p] over the classes of each position not ignored, 0 at the
//     ignored ones; the softmax is recomputed from the scores.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/operator.h"
#include "core/ops/common/shape_util.h"
#include "core/schema.h"

namespace parity {
namespace {

enum class Reduction { kNone, kSum, kMean };

Reduction ParseReduction(const std::string& s, const std::string& label) {
  if (s == "none") return Reduction::kNone;
  if (s == "sum") return Reduction::kSum;
  PARITY_ENFORCE(s == "mean", ErrorKind::kBadArgument, label, ": argument 'reduction' = \"", s,
                 "\" is not one of \"none\", \"sum\", \"mean\"");
  return Reduction::kMean;
}

// N, C and D (the product of d1..dk) of X [N, C, d1..dk].
struct ClassDims {
  int64_t n = 0, c = 0, d = 1;
};

// Checks X, the targets and the optional weights against each other (X's dtype float or double,
// the targets int32 or int64, the weights X's dtype and [C]); `describe(i)` shows input i.
template <class Describe>
ClassDims CheckClassShapes(const std::vector<DataType>& dtypes,
                           const std::vector<std::vector<int64_t>>& dims, const std::string& label,
                           const char* what, Describe&& describe) {
  PARITY_ENFORCE(dtypes[0] == DataType::kFloat || dtypes[0] == DataType::kDouble,
                 ErrorKind::kShapeMismatch, label, ": ", what, " ", describe(0),
                 " must be float or double");
  PARITY_ENFORCE(dims[0].size() >= 2, ErrorKind::kShapeMismatch, label, ": ", what, " ",
                 describe(0), " must be [N, C] or [N, C, d1, ..., dk]");
  PARITY_ENFORCE(dtypes[1] == DataType::kInt32 || dtypes[1] == DataType::kInt64,
                 ErrorKind::kShapeMismatch, label, ": target ", describe(1),
                 " must be int32 or int64");
  std::vector<int64_t> expected = {dims[0][0]};
  expected.insert(expected.end(), dims[0].begin() + 2, dims[0].end());
  PARITY_ENFORCE(dims[1] == expected, ErrorKind::kShapeMismatch, label, ": target ", describe(1),
                 " must have dims ", ShapeString(expected), " (", what, "'s without dim 1)");
  ClassDims s;
  s.n = dims[0][0];
  s.c = dims[0][1];
  for (size_t i = 2; i < dims[0].size(); ++i) s.d *= dims[0][i];
  if (dims.size() > 2) {
    PARITY_ENFORCE(dtypes[2] == dtypes[0] && dims[2] == std::vector<int64_t>{s.c},
                   ErrorKind::kShapeMismatch, label, ": weight ", describe(2), " must be ",
                   DataTypeName(dtypes[0]), " [", s.c, "] (one weight per class)");
  }
  return s;
}

// The loss's dims: the target's for "none", a scalar otherwise.
std::vector<int64_t> LossDims(Reduction reduction, const std::vector<int64_t>& target) {
  return reduction == Reduction::kNone ? target : std::vector<int64_t>{};
}

// Arguments and per-run state shared by the four ops.
class ClassLossOp : public Operator {
 public:
  // `max_inputs`: the op's input count with the optional weights (the last one may be dLoss).
  ClassLossOp(const caffe2::OperatorDef& def, Workspace* ws, int max_inputs)
      : Operator(def, ws),
        reduction_(ParseReduction(Arg<std::string>("reduction"), label())),
        has_ignore_(args().Has("ignore_index")),
        ignore_(has_ignore_ ? Arg<int64_t>("ignore_index") : 0),
        weighted_(InputSize() == max_inputs) {}

 protected:
  // Checks the forward inputs (X, target, [weight]) and reads the targets into classes_ (-1 for an
  // ignored position); every target is checked before anything is written.
  ClassDims ReadTargets(const char* what) {
    const int count = weighted_ ? 3 : 2;
    std::vector<DataType> dtypes;
    std::vector<std::vector<int64_t>> dims;
    for (int i = 0; i < count; ++i) {
      dtypes.push_back(Input(i).dtype());
      dims.push_back(Input(i).dims());
    }
    const ClassDims s = CheckClassShapes(dtypes, dims, label(), what, [&](int i) {
      return "'" + InputName(i) + "' " + Input(i).DebugString();
    });
    classes_.resize(s.n * s.d);
    shape_util::DispatchIndex(Input(1), label(), InputName(1), "target", [&](const auto* t) {
      for (int64_t p = 0; p < s.n * s.d; ++p) {
        const int64_t v = t[p];
        if (has_ignore_ && v == ignore_) {
          classes_[p] = -1;
          continue;
        }
        PARITY_ENFORCE(
            v >= 0 && v < s.c, ErrorKind::kBadArgument, label(), ": target ", v, " at position ", p,
            " of '", InputName(1), "' is out of range [0, ", s.c, ")",
            has_ignore_ ? " and is not ignore_index " + std::to_string(ignore_) : std::string(),
            " for ", Input(0).DebugString());
        classes_[p] = v;
      }
    });
    return s;
  }

  template <typename T>
  double WeightOf(int64_t cls) const {
    return weighted_ ? static_cast<double>(Input(2).data<T>()[cls]) : 1.0;
  }

  // The loss from log-probabilities laid out as X [N, C, D].
  template <typename T>
  void WriteLoss(const T* logp, const ClassDims& s, Tensor* out) {
    out->Resize(LossDims(reduction_, Input(1).dims()));
    T* y = out->template mutable_data<T>();
    double total = 0, weights = 0;
    for (int64_t n = 0; n < s.n; ++n) {
      for (int64_t d = 0; d < s.d; ++d) {
        const int64_t p = n * s.d + d, cls = classes_[p];
        double l = 0;
        if (cls >= 0) {
          const double w = WeightOf<T>(cls);
          l = -w * static_cast<double>(logp[(n * s.c + cls) * s.d + d]);
          weights += w;
        }
        if (reduction_ == Reduction::kNone) y[p] = static_cast<T>(l);
        total += l;
      }
    }
    if (reduction_ == Reduction::kSum) y[0] = static_cast<T>(total);
    if (reduction_ == Reduction::kMean) y[0] = static_cast<T>(total / weights);
  }

  // The gradient's scale at position p (see the file comment), from dLoss (input `g`).
  template <typename T>
  std::vector<double> Scales(const ClassDims& s, int g) {
    const Tensor& dloss = Input(g);
    const std::vector<int64_t> want = LossDims(reduction_, Input(1).dims());
    PARITY_ENFORCE(dloss.dims() == want && dloss.dtype() == Input(0).dtype(),
                   ErrorKind::kShapeMismatch, label(), ": gradient '", InputName(g), "' ",
                   dloss.DebugString(), " must be ", DataTypeName(Input(0).dtype()), " ",
                   ShapeString(want), " (the loss's)");
    const T* dl = dloss.data<T>();
    std::vector<double> scale(s.n * s.d, 0.0);
    double weights = 0;
    for (int64_t p = 0; p < s.n * s.d; ++p) {
      if (classes_[p] >= 0) weights += WeightOf<T>(classes_[p]);
    }
    for (int64_t p = 0; p < s.n * s.d; ++p) {
      if (classes_[p] < 0) continue;
      const double w = WeightOf<T>(classes_[p]);
      switch (reduction_) {
        case Reduction::kNone:
          scale[p] = w * dl[p];
          break;
        case Reduction::kSum:
          scale[p] = w * dl[0];
          break;
        case Reduction::kMean:
          scale[p] = w * dl[0] / weights;
          break;
      }
    }
    return scale;
  }

  const Reduction reduction_;
  const bool has_ignore_;
  const int64_t ignore_;
  const bool weighted_;
  std::vector<int64_t> classes_;
};

// log_prob[n, :, d] = (x - max) - log(sum exp(x - max)) over the classes.
template <typename T>
void LogSoftmaxOverClasses(const T* x, const ClassDims& s, T* out) {
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t d = 0; d < s.d; ++d) {
      const T* row = x + n * s.c * s.d + d;
      T m = -std::numeric_limits<T>::infinity();
      for (int64_t c = 0; c < s.c; ++c) m = std::max(m, row[c * s.d]);
      double sum = 0;
      for (int64_t c = 0; c < s.c; ++c) sum += std::exp(static_cast<double>(row[c * s.d] - m));
      // (x - max) - log(sum), not x - (max + log(sum)): the shifted score is exact, and adding the
      // max back first would round log(sum) at the max's magnitude (1e-4 at logits near 1e3).
      const T log_sum = static_cast<T>(std::log(sum));
      for (int64_t c = 0; c < s.c; ++c) {
        out[n * s.c * s.d + c * s.d + d] = (row[c * s.d] - m) - log_sum;
      }
    }
  }
}

std::vector<TensorType> InferClassLoss(const caffe2::OperatorDef& def, const ArgumentHelper& args,
                                       const std::vector<TensorType>& in, int forward_inputs,
                                       const char* what) {
  std::vector<DataType> dtypes;
  std::vector<std::vector<int64_t>> dims;
  for (int i = 0; i < forward_inputs; ++i) {
    dtypes.push_back(in[i].dtype);
    dims.push_back(in[i].dims);
  }
  CheckClassShapes(dtypes, dims, args.op_label(), what,
                   [&](int i) { return "'" + def.input(i) + "' " + TensorTypeString(in[i]); });
  const Reduction reduction = ParseReduction(args.Get<std::string>("reduction"), args.op_label());
  return {TensorType{in[0].dtype, LossDims(reduction, in[1].dims), true}};
}

OpSchema& ClassLossArgs(OpSchema& schema) {
  return schema
      .Arg("reduction", ArgType::kString, std::string("mean"),
           "\"none\" (per target position), \"sum\" or \"mean\" (divided by the sum of the "
           "weights of the positions not ignored).")
      .Arg("ignore_index", ArgType::kInt, std::monostate{},
           "A target value that contributes nothing (loss and weight 0); none when absent.");
}

// ---------------------------------------------------------------------------------------------
// NegativeLogLikelihoodLoss

class NegativeLogLikelihoodLossOp final : public ClassLossOp {
 public:
  NegativeLogLikelihoodLossOp(const caffe2::OperatorDef& def, Workspace* ws)
      : ClassLossOp(def, ws, 3) {}

  void Run() override {
    const ClassDims s = ReadTargets("input");
    if (Input(0).dtype() == DataType::kFloat) {
      WriteLoss(Input(0).data<float>(), s, Output(0));
    } else {
      WriteLoss(Input(0).data<double>(), s, Output(0));
    }
  }
};

PARITY_OP_SCHEMA(NegativeLogLikelihoodLoss)
    .NumInputs(2, 3)
    .NumOutputs(1)
    .DifferentiableInputs({0})
    .Apply(ClassLossArgs)
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      return InferClassLoss(def, args, in, def.input_size(), "input");
    })
    .InputDoc(0, "input", "float/double log-probabilities [N, C] or [N, C, d1, ..., dk].")
    .InputDoc(1, "target",
              "int32/int64 [N] or [N, d1, ..., dk]: classes in [0, C) or ignore_index.")
    .InputDoc(2, "weight", "Optional [C] per-class weights.")
    .OutputDoc(0, "loss", "Per position (reduction none) or a scalar (sum, mean).")
    .Doc("Negative log-likelihood of the target classes (ONNX's NegativeLogLikelihoodLoss).");
PARITY_REGISTER_CPU_OPERATOR(NegativeLogLikelihoodLoss, NegativeLogLikelihoodLossOp);

class NegativeLogLikelihoodLossGradientOp final : public ClassLossOp {
 public:
  NegativeLogLikelihoodLossGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : ClassLossOp(def, ws, 4) {}

  void Run() override {
    const ClassDims s = ReadTargets("input");
    if (Input(0).dtype() == DataType::kFloat) {
      RunWith<float>(s);
    } else {
      RunWith<double>(s);
    }
  }

 private:
  template <typename T>
  void RunWith(const ClassDims& s) {
    const std::vector<double> scale = Scales<T>(s, InputSize() - 1);
    const std::vector<int64_t> dims = Input(0).dims();
    Tensor* dx = Output(0);
    dx->Resize(dims);
    T* out = dx->template mutable_data<T>();
    std::fill(out, out + dx->numel(), T(0));
    for (int64_t n = 0; n < s.n; ++n) {
      for (int64_t d = 0; d < s.d; ++d) {
        const int64_t p = n * s.d + d;
        if (classes_[p] >= 0) out[(n * s.c + classes_[p]) * s.d + d] = static_cast<T>(-scale[p]);
      }
    }
  }
};

PARITY_OP_SCHEMA(NegativeLogLikelihoodLossGradient)
    .NumInputs(3, 4)
    .NumOutputs(1)
    .NotDifferentiable()
    .Apply(ClassLossArgs)
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      InferClassLoss(def, args, in, def.input_size() - 1, "input");
      return std::vector<TensorType>{in[0]};
    })
    .InputDoc(0, "input", "The forward op's input.")
    .InputDoc(1, "target", "The forward op's target.")
    .InputDoc(2, "weight", "Optional: the forward op's weight.")
    .InputDoc(3, "dLoss", "The gradient of the loss (last input).")
    .OutputDoc(0, "dInput", "-w[t] * scale at each target's class, 0 elsewhere.")
    .Doc("Gradient of NegativeLogLikelihoodLoss wrt its input.");
PARITY_REGISTER_CPU_OPERATOR(NegativeLogLikelihoodLossGradient,
                             NegativeLogLikelihoodLossGradientOp);

// ---------------------------------------------------------------------------------------------
// SoftmaxCrossEntropyLoss

class SoftmaxCrossEntropyLossOp final : public ClassLossOp {
 public:
  SoftmaxCrossEntropyLossOp(const caffe2::OperatorDef& def, Workspace* ws)
      : ClassLossOp(def, ws, 3) {}

  void Run() override {
    const ClassDims s = ReadTargets("scores");
    if (Input(0).dtype() == DataType::kFloat) {
      RunWith<float>(s);
    } else {
      RunWith<double>(s);
    }
  }

 private:
  template <typename T>
  void RunWith(const ClassDims& s) {
    const std::vector<int64_t> dims = Input(0).dims();
    Tensor* log_prob = OutputSize() > 1 ? Output(1) : &scratch_;
    // The scores are read whole before log_prob is written: it may not be them (no in place).
    log_prob->Resize(dims);
    LogSoftmaxOverClasses(Input(0).data<T>(), s, log_prob->template mutable_data<T>());
    WriteLoss(log_prob->template data<T>(), s, Output(0));
  }

  Tensor scratch_;
};

PARITY_OP_SCHEMA(SoftmaxCrossEntropyLoss)
    .NumInputs(2, 3)
    .NumOutputs(1, 2)
    .DifferentiableInputs({0})
    .NonDifferentiableOutputs({1})
    .Apply(ClassLossArgs)
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      std::vector<TensorType> out = InferClassLoss(def, args, in, def.input_size(), "scores");
      if (def.output_size() > 1) out.push_back(in[0]);
      return out;
    })
    .InputDoc(0, "scores", "float/double [N, C] or [N, C, d1, ..., dk].")
    .InputDoc(1, "labels",
              "int32/int64 [N] or [N, d1, ..., dk]: classes in [0, C) or ignore_index.")
    .InputDoc(2, "weights", "Optional [C] per-class weights.")
    .OutputDoc(0, "loss", "Per position (reduction none) or a scalar (sum, mean).")
    .OutputDoc(1, "log_prob", "Optional: log softmax of the scores over dim 1 (no gradient).")
    .Doc(
        "Log softmax over the classes, then the negative log-likelihood of the labels (ONNX's "
        "SoftmaxCrossEntropyLoss).");
PARITY_REGISTER_CPU_OPERATOR(SoftmaxCrossEntropyLoss, SoftmaxCrossEntropyLossOp);

class SoftmaxCrossEntropyLossGradientOp final : public ClassLossOp {
 public:
  SoftmaxCrossEntropyLossGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : ClassLossOp(def, ws, 4) {}

  void Run() override {
    const ClassDims s = ReadTargets("scores");
    if (Input(0).dtype() == DataType::kFloat) {
      RunWith<float>(s);
    } else {
      RunWith<double>(s);
    }
  }

 private:
  template <typename T>
  void RunWith(const ClassDims& s) {
    const std::vector<double> scale = Scales<T>(s, InputSize() - 1);
    const std::vector<int64_t> dims = Input(0).dims();
    std::vector<T> log_prob(s.n * s.c * s.d);
    LogSoftmaxOverClasses(Input(0).data<T>(), s, log_prob.data());
    Tensor* dx = Output(0);
    dx->Resize(dims);
    T* out = dx->template mutable_data<T>();
    for (int64_t n = 0; n < s.n; ++n) {
      for (int64_t d = 0; d < s.d; ++d) {
        const int64_t p = n * s.d + d, cls = classes_[p];
        for (int64_t c = 0; c < s.c; ++c) {
          const int64_t at = (n * s.c + c) * s.d + d;
          if (cls < 0) {
            out[at] = T(0);
            continue;
          }
          const double prob = std::exp(static_cast<double>(log_prob[at]));
          out[at] = static_cast<T>((prob - (c == cls ? 1.0 : 0.0)) * scale[p]);
        }
      }
    }
  }
};

PARITY_OP_SCHEMA(SoftmaxCrossEntropyLossGradient)
    .NumInputs(3, 4)
    .NumOutputs(1)
    .NotDifferentiable()
    .Apply(ClassLossArgs)
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      InferClassLoss(def, args, in, def.input_size() - 1, "scores");
      return std::vector<TensorType>{in[0]};
    })
    .InputDoc(0, "scores", "The forward op's scores.")
    .InputDoc(1, "labels", "The forward op's labels.")
    .InputDoc(2, "weights", "Optional: the forward op's weights.")
    .InputDoc(3, "dLoss", "The gradient of the loss (last input).")
    .OutputDoc(0, "dScores", "(softmax - onehot(label)) * w[label] * scale per position.")
    .Doc("Gradient of SoftmaxCrossEntropyLoss's loss wrt the scores.");
PARITY_REGISTER_CPU_OPERATOR(SoftmaxCrossEntropyLossGradient, SoftmaxCrossEntropyLossGradientOp);

}  // namespace
}  // namespace parity

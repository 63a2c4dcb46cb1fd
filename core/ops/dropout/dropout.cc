// Dropout and its gradient DropoutGrad. Caffe2 semantics (caffe2/operators/dropout_op.{h,cc},
// newer pytorch tree); float and double (Caffe2's CPU kernel is float only).
//
// Dropout(X) -> (Y[, mask]), `ratio` in [0, 1) (Caffe2 enforces it), `is_test`:
//   is_test=1: Y = X. Caffe2 leaves the mask unfilled; parity fills it with true (every element
//     kept, which is what test mode does), so a declared output always holds a defined value that
//     both halves agree on.
//   is_test=0: mask[i] ~ Bernoulli(1 - ratio) (true = kept), Y = X * mask / (1 - ratio). The keep
//     draws come from the op's own generator, seeded by DeviceOption.random_seed (default 0) and
//     continued from run to run, as the random fills do (core/ops/fill). Caffe2 writes the mask as
//     output 1 only in training, so training needs both outputs. A dropped element is X * scale * 0
//     as in Caffe2, so an inf or NaN stays NaN where it is dropped.
// DropoutGrad(dY[, mask]) -> dX with the forward op's arguments: is_test=1: dX = dY (the mask, if
// given, is not read); is_test=0: dX = dY * mask / (1 - ratio), the mask of dY's element count.
#include <random>

#include "core/operator.h"
#include "core/ops/common/shape_util.h"
#include "core/ops/fill/fill.h"
#include "core/schema.h"

namespace parity {
namespace {

// ratio in [0, 1), Caffe2's CAFFE_ENFORCE_GE(ratio_, 0) / CAFFE_ENFORCE_LT(ratio_, 1): 1 would
// divide by zero, and a negative ratio is no probability.
float ReadRatio(const ArgumentHelper& args) {
  const float ratio = args.Get<float>("ratio");
  PARITY_ENFORCE(ratio >= 0.0f && ratio < 1.0f, ErrorKind::kBadArgument, args.op_label(),
                 ": argument 'ratio' = ", ratio, " must be in [0, 1)");
  return ratio;
}

OpSchema& DropoutArgs(OpSchema& schema) {
  return schema
      .Arg("ratio", ArgType::kFloat, 0.5, "Probability of an element being zeroed, in [0, 1).")
      .Arg("is_test", ArgType::kInt, int64_t{0},
           "If nonzero, test mode: Y = X; else each element is kept with probability 1 - ratio "
           "and scaled by 1 / (1 - ratio).");
}

class DropoutOp final : public Operator {
 public:
  DropoutOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        ratio_(ReadRatio(args())),
        is_test_(Arg<bool>("is_test")),
        generator_(OpRandomSeed(def)) {
    PARITY_ENFORCE(is_test_ || OutputSize() == 2, ErrorKind::kBadArgument, label(),
                   ": training mode (is_test=0) writes outputs Y and mask; got ", OutputSize(),
                   " output");
  }

  void Run() override {
    shape_util::DispatchFloating(Input(0), label(), InputName(0),
                                 [&](auto zero) { RunTyped<decltype(zero)>(); });
  }

 private:
  template <typename T>
  void RunTyped() {
    const Tensor& X = Input(0);
    const int64_t n = X.numel();
    bool* mask = nullptr;
    if (OutputSize() == 2) {
      Tensor* M = Output(1);
      M->Resize(X.dims());
      mask = M->template mutable_data<bool>();
    }
    Tensor* Y = Output(0);
    if (is_test_) {
      if (Y != &X) Y->CopyFrom(X);
      if (mask != nullptr) std::fill(mask, mask + n, true);
      return;
    }
    // In place (Y is X) reads each element before it is written.
    Y->Resize(X.dims());
    const T* x = X.template data<T>();
    T* y = Y->template mutable_data<T>();
    const T scale = static_cast<T>(1.0 / (1.0 - static_cast<double>(ratio_)));
    std::bernoulli_distribution keep(1.0 - static_cast<double>(ratio_));
    for (int64_t i = 0; i < n; ++i) {
      mask[i] = keep(generator_);
      y[i] = x[i] * scale * static_cast<T>(mask[i]);
    }
  }

  const float ratio_;
  const bool is_test_;
  std::mt19937 generator_;
};

PARITY_OP_SCHEMA(Dropout)
    .NumInputs(1)
    .NumOutputs(1, 2)
    .AllowInplace({{0, 0}})
    .Apply(DropoutArgs)
    .Impure("training mode draws its mask from its own random stream, which each run continues")
    .DifferentiableInputs({0})
    .NonDifferentiableOutputs({1})  // the mask
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper&,
                       const std::vector<TensorType>& in) {
      std::vector<TensorType> out = {in[0]};
      if (def.output_size() == 2) out.push_back(TensorType{DataType::kBool, in[0].dims, true});
      return out;
    })
    .InputDoc(0, "X", "float/double input.")
    .OutputDoc(0, "Y", "X in test mode; X * mask / (1 - ratio) in training.")
    .OutputDoc(1, "mask",
               "bool, dims of X: true where the element is kept (all true in test mode).")
    .Doc(
        "Dropout (Caffe2's): in training each element is kept with probability 1 - ratio and "
        "scaled by 1 / (1 - ratio), drawn from the op's generator (DeviceOption.random_seed); in "
        "test mode (is_test=1) Y = X.");
PARITY_REGISTER_CPU_OPERATOR(Dropout, DropoutOp);

class DropoutGradOp final : public Operator {
 public:
  DropoutGradOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), ratio_(ReadRatio(args())), is_test_(Arg<bool>("is_test")) {
    PARITY_ENFORCE(is_test_ || InputSize() == 2, ErrorKind::kBadArgument, label(),
                   ": training mode (is_test=0) needs inputs dY and mask");
  }

  void Run() override {
    shape_util::DispatchFloating(Input(0), label(), InputName(0),
                                 [&](auto zero) { RunTyped<decltype(zero)>(); });
  }

 private:
  template <typename T>
  void RunTyped() {
    const Tensor& dY = Input(0);
    Tensor* dX = Output(0);
    if (is_test_) {
      if (dX != &dY) dX->CopyFrom(dY);
      return;
    }
    const Tensor& mask = Input(1);
    PARITY_ENFORCE(mask.dtype() == DataType::kBool && mask.numel() == dY.numel(),
                   ErrorKind::kShapeMismatch, label(), ": mask '", InputName(1),
                   "' must be bool with as many elements as dY ", dY.DebugString(), ", got ",
                   mask.DebugString());
    const int64_t n = dY.numel();
    const bool* m = mask.template data<bool>();
    dX->Resize(dY.dims());  // in place (dX is dY) reads each element before it is written
    const T* dy = dY.template data<T>();
    T* dx = dX->template mutable_data<T>();
    const T scale = static_cast<T>(1.0 / (1.0 - static_cast<double>(ratio_)));
    for (int64_t i = 0; i < n; ++i) dx[i] = dy[i] * scale * static_cast<T>(m[i]);
  }

  const float ratio_;
  const bool is_test_;
};

PARITY_OP_SCHEMA(DropoutGrad)
    .NumInputs(1, 2)
    .NumOutputs(1)
    .AllowInplace({{0, 0}})
    .Apply(DropoutArgs)
    .DifferentiableInputs({0})
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper&,
                       const std::vector<TensorType>& in) {
      return std::vector<TensorType>{in[0]};
    })
    .InputDoc(0, "dY", "Gradient of Dropout's Y.")
    .InputDoc(1, "mask", "Dropout's mask (bool); training mode only.")
    .OutputDoc(0, "dX", "dY in test mode; dY * mask / (1 - ratio) in training.")
    .Doc("Gradient of Dropout (Caffe2's DropoutGrad), with the forward op's ratio and is_test.");
PARITY_REGISTER_CPU_OPERATOR(DropoutGrad, DropoutGradOp);

}  // namespace
}  // namespace parity

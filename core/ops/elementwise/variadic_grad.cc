// Gradient kernels of the variadic elementwise ops, in the conventions of the makers
// (core/ops/elementwise/makers.cc):
//
//   MaxGradient / MinGradient (Y, dY, X0, ..., Xn-1)     -> (dX0, ..., dXn-1)
//   MeanGradient (dY)                                    -> (dX0, ..., dXn-1), each dY * (1/n)
//
// Max / Min: on ties the FIRST input (in input order) holding the extremum at an output position
// takes the whole gradient there (Caffe2 gives dY to every tied input, which double-counts).
// Inputs broadcast as in the forward op, and each dXi is reduced back to Xi's dims.
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>
#include "core/operator.h"
#include "core/ops/common/broadcast.h"
#include "core/ops/common/elementwise.h"
#include "core/ops/elementwise/binary.h"
#include "core/schema.h"
#include "core/ops/elementwise/binary_grad.h"

namespace parity {
namespace {

using namespace elementwise_grad;  // NOLINT: the shared gradient helpers

// ---------------------------------------------------------------------------------------------
// MaxGradient / MinGradient (Y, dY, X0, ..., Xn-1) -> (dX0, ..., dXn-1).

std::string ExtremumName(size_t i) {
  return i == 0 ? "Y" : i == 1 ? "dY" : "X" + std::to_string(i - 2);
}

// Y must be the broadcast of every X, and dY must have Y's dims.
template <class Describe>
void CheckExtremumDims(const std::string& label, const std::vector<const std::vector<int64_t>*>& dims,
                       Describe&& describe) {
  PARITY_ENFORCE(SameDims(*dims[1], *dims[0]), ErrorKind::kShapeMismatch, label, ": dY (",
                 describe(1), ") must have the dims of Y (", describe(0), ")");
  std::vector<int64_t> broadcast = *dims[2];
  for (size_t i = 3; i < dims.size(); ++i) {
    broadcast = BroadcastShapes(broadcast, *dims[i], label, "X0..X" + std::to_string(i - 3),
                                ExtremumName(i));
  }
  PARITY_ENFORCE(SameDims(broadcast, *dims[0]), ErrorKind::kShapeMismatch, label, ": Y (",
                 describe(0), ") must have the broadcast dims of the inputs X, ",
                 ShapeString(broadcast));
}

template <bool kMax>
class ExtremumGradientOp final : public Operator {
 public:
  ExtremumGradientOp(const caffe2::OperatorDef& def, Workspace* ws) : Operator(def, ws) {
    CheckDistinctOutputs(def, label());
  }

  void Run() override {
    const int inputs = InputSize();
    dtypes_.clear();
    dims_.clear();
    for (int i = 0; i < inputs; ++i) {
      dtypes_.push_back(Input(i).dtype());
      dims_.push_back(&Input(i).dims());
    }
    auto describe = [&](size_t i) { return Input(static_cast<int>(i)).DebugString(); };
    if (names_.empty()) {
      for (int i = 0; i < inputs; ++i) names_.push_back(ExtremumName(i));
    }
    const DataType dtype = CheckGradientDtypes(dtypes_, names_, describe, label());
    bool cached = cached_;
    for (int i = 0; cached && i < inputs; ++i) cached = SameDims(*dims_[i], seen_dims_[i]);
    if (!cached) {
      cached_ = false;
      CheckExtremumDims(label(), dims_, describe);
      seen_dims_.resize(inputs);
      for (int i = 0; i < inputs; ++i) seen_dims_[i] = *dims_[i];
      cached_ = true;
    }
    if (dtype == DataType::kFloat) {
      Compute<float>();
    } else {
      Compute<double>();
    }
  }

 private:
  template <typename T>
  void Compute() {
    const Tensor& y = Input(0);
    const int64_t n_out = y.numel();
    const T* py = y.template data<T>();
    const T* pdy = Input(1).template data<T>();
    // taken[k] = 1 once an earlier input has claimed output position k.
    elementwise::ResizeTo(&taken_, y.dims());
    T* taken = taken_.mutable_data<T>();
    std::fill(taken, taken + n_out, T(0));
    std::vector<T*>& outs = Outs<T>();
    outs.resize(OutputSize());
    for (int i = 0; i < OutputSize(); ++i) outs[i] = router_.Prepare<T>(*this, i, Input(i + 2).dims());
    for (int i = 0; i < OutputSize(); ++i) {
      const Tensor& x = Input(i + 2);
      T* dx = outs[i];
      const bool assign = x.numel() == n_out;
      if (!assign) std::fill(dx, dx + x.numel(), T(0));
      plan_.Build(y.dims(), y.dims(), x.dims());
      const T* px = x.template data<T>();
      const Eigen::Index n = plan_.inner();
      const bool x_vec = plan_.b_mode() == BroadcastPlan::Mode::kVector;
      auto block = [&](int64_t o, int64_t ix, const auto& xv) {
        ConstMap<T> yv(py + o, n);
        ConstMap<T> dyv(pdy + o, n);
        Map<T> tv(taken + o, n);
        // First input holding the extremum at each position: equal to Y and not yet claimed.
        auto mine = (xv == yv).template cast<T>() * (T(1) - tv);
        Store(dx, ix, x_vec, assign, mine * dyv);
        tv += mine;
      };
      if (x_vec) {
        plan_.ForEachBlock([&](int64_t o, int64_t, int64_t ix) { block(o, ix, ConstMap<T>(px + ix, n)); });
      } else {
        plan_.ForEachBlock([&](int64_t o, int64_t, int64_t ix) { block(o, ix, Array<T>::Constant(n, px[ix])); });
      }
    }
    router_.Finish<T>(*this);
  }

  template <typename T>
  std::vector<T*>& Outs() {
    if constexpr (std::is_same_v<T, float>) {
      return outs_f_;
    } else {
      return outs_d_;
    }
  }

  std::vector<std::string> names_;
  std::vector<DataType> dtypes_;
  std::vector<const std::vector<int64_t>*> dims_;
  bool cached_ = false;
  std::vector<std::vector<int64_t>> seen_dims_;
  BroadcastPlan plan_;
  Tensor taken_;
  std::vector<float*> outs_f_;
  std::vector<double*> outs_d_;
  OutputRouter router_;
};

std::vector<TensorType> ExtremumGradientShape(const caffe2::OperatorDef& def,
                                              const ArgumentHelper& args,
                                              const std::vector<TensorType>& in) {
  PARITY_ENFORCE(def.output_size() == def.input_size() - 2, ErrorKind::kBadArgument,
                 args.op_label(), ": needs one output per forward input X (", def.input_size() - 2,
                 "), got ", def.output_size());
  std::vector<DataType> dtypes;
  std::vector<std::string> names;
  std::vector<const std::vector<int64_t>*> dims;
  for (size_t i = 0; i < in.size(); ++i) {
    dtypes.push_back(in[i].dtype);
    names.push_back(ExtremumName(i));
    dims.push_back(&in[i].dims);
  }
  auto describe = [&](size_t i) { return TensorTypeString(in[i]); };
  CheckGradientDtypes(dtypes, names, describe, args.op_label());
  CheckExtremumDims(args.op_label(), dims, describe);
  CheckDistinctOutputs(def, args.op_label());
  return std::vector<TensorType>(in.begin() + 2, in.end());
}

#define PARITY_EXTREMUM_GRADIENT(Name, kMax, what)                                              \
  PARITY_OP_SCHEMA(Name##Gradient)                                                             \
      .NumInputs(3, std::numeric_limits<int>::max())                                           \
      .NumOutputs(1, std::numeric_limits<int>::max())                                          \
      .NumInputsOutputs([](int in, int out) { return out == in - 2; },                         \
                        "one output dXi per forward input Xi: (Y, dY, X0, ..., Xn-1) -> "      \
                        "(dX0, ..., dXn-1)")                                                   \
      .ShapeInference(ExtremumGradientShape)                                                   \
      .InputDoc(0, "Y", "The forward output (the elementwise " what ").")                     \
      .InputDoc(1, "dY", "Gradient of Y.")                                                     \
      .InputDoc(2, "X0", "The forward inputs X0, X1, ...")                                    \
      .OutputDoc(0, "dX0", "Gradients dX0, dX1, ..., each with its X's dims.")                 \
      .Doc("Gradient of " #Name ": dY goes to the first input (in input order) equal to Y at "  \
           "each position of the broadcast shape, summed back to that input's dims; ties give " \
           "later inputs nothing (Caffe2 gives every tied input dY). NaN positions pass none.");  \
  PARITY_REGISTER_CPU_OPERATOR(Name##Gradient, ExtremumGradientOp<kMax>)

PARITY_EXTREMUM_GRADIENT(Max, true, "maximum");
PARITY_EXTREMUM_GRADIENT(Min, false, "minimum");
#undef PARITY_EXTREMUM_GRADIENT

// ---------------------------------------------------------------------------------------------
// MeanGradient (dY) -> (dX0, ..., dXn-1): each dY * (1/n), the factor the forward op scales by.

class MeanGradientOp final : public Operator {
 public:
  MeanGradientOp(const caffe2::OperatorDef& def, Workspace* ws) : Operator(def, ws) {
    CheckDistinctOutputs(def, label());
  }

  void Run() override {
    const Tensor& dy = Input(0);
    PARITY_ENFORCE(dy.dtype() == DataType::kFloat || dy.dtype() == DataType::kDouble,
                   ErrorKind::kShapeMismatch, label(), ": unsupported dtype of dY (",
                   dy.DebugString(), "); supported: float, double");
    if (dy.dtype() == DataType::kFloat) {
      Compute<float>();
    } else {
      Compute<double>();
    }
  }

 private:
  template <typename T>
  void Compute() {
    const Tensor& dy = Input(0);
    const int64_t n = dy.numel();
    const T scale = static_cast<T>(1.0 / OutputSize());
    for (int i = 0; i < OutputSize(); ++i) {
      T* dx = router_.Prepare<T>(*this, i, dy.dims());
      Map<T>(dx, n) = ConstMap<T>(dy.template data<T>(), n) * scale;
    }
    router_.Finish<T>(*this);
  }

  OutputRouter router_;
};

PARITY_OP_SCHEMA(MeanGradient)
    .NumInputs(1)
    .NumOutputs(1, std::numeric_limits<int>::max())
    .AllowInplace({{0, 0}})
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      PARITY_ENFORCE(in[0].dtype == DataType::kFloat || in[0].dtype == DataType::kDouble,
                     ErrorKind::kShapeMismatch, args.op_label(), ": unsupported dtype of dY (",
                     TensorTypeString(in[0]), "); supported: float, double");
      CheckDistinctOutputs(def, args.op_label());
      return std::vector<TensorType>(def.output_size(), in[0]);
    })
    .InputDoc(0, "dY", "Gradient of the forward output.")
    .OutputDoc(0, "dX0", "dX0, ..., dXn-1: one per forward input, each dY * (1/n).")
    .Doc("Gradient of Mean over n inputs: every dXi = dY * (1/n). dX0 may be written in place "
         "of dY.");
PARITY_REGISTER_CPU_OPERATOR(MeanGradient, MeanGradientOp);

}  // namespace
}  // namespace parity

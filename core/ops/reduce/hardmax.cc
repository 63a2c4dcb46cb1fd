// Hardmax (ONNX's; Caffe2 had none): the input coerced to 2-D at `axis` as Softmax is (rows
// [prod(dims[:axis]), prod(dims[axis:])], ONNX's form before opset 13; the importer transposes for
// opset 13's single axis), each row 1 at its maximum and 0 elsewhere. Ties: the first maximum. A
// NaN counts as the maximum (the first NaN), as numpy's argmax, which ONNX's reference uses.
// float and double. Piecewise constant, so no gradient (makers.cc).
#include <cmath>
#include <cstdint>

#include "core/operator.h"
#include "core/ops/common/shape_util.h"
#include "core/schema.h"

namespace parity {
namespace {

template <typename T>
void HardmaxRows(const T* x, T* y, int64_t rows, int64_t cols) {
  for (int64_t n = 0; n < rows; ++n) {
    const T* row = x + n * cols;
    int64_t best = 0;
    for (int64_t d = 1; d < cols && !std::isnan(row[best]); ++d) {
      if (std::isnan(row[d]) || row[d] > row[best]) best = d;
    }
    // Written after the row is read: the output may be the input (in place).
    for (int64_t d = 0; d < cols; ++d) y[n * cols + d] = d == best ? T(1) : T(0);
  }
}

class HardmaxOp final : public Operator {
 public:
  HardmaxOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), axis_(Arg<int64_t>("axis")) {}

  void Run() override {
    const Tensor& in = Input(0);
    const int axis = shape_util::CanonicalAxis(axis_, in.ndim(), label(), "axis", in.dims());
    const int64_t rows = shape_util::SizeToDim(in.dims(), axis);
    const int64_t cols = shape_util::SizeFromDim(in.dims(), axis);
    shape_util::DispatchFloating(in, label(), InputName(0), [&](auto zero) {
      using T = decltype(zero);
      Tensor* out = Output(0);
      if (out != &in) out->Resize(in.dims());
      // The output takes the input's dtype even without elements (rows of no columns).
      T* y = out->template mutable_data<T>();
      if (cols > 0) HardmaxRows<T>(in.data<T>(), y, rows, cols);
    });
  }

 private:
  const int64_t axis_;
};

PARITY_OP_SCHEMA(Hardmax)
    .NumInputs(1)
    .NumOutputs(1)
    .AllowInplace({{0, 0}})
    .NotDifferentiable()
    .Arg("axis", ArgType::kInt, int64_t{1},
         "The input is coerced to 2-D [prod(dims[:axis]), prod(dims[axis:])]; negative allowed.")
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      shape_util::CanonicalAxis(args.Get<int64_t>("axis"), static_cast<int>(in[0].dims.size()),
                                args.op_label(), "axis", in[0].dims);
      PARITY_ENFORCE(in[0].dtype == DataType::kFloat || in[0].dtype == DataType::kDouble,
                     ErrorKind::kShapeMismatch, args.op_label(), ": input '", def.input(0),
                     "' must be float or double, got ", TensorTypeString(in[0]));
      return std::vector<TensorType>{in[0]};
    })
    .InputDoc(0, "input", "float/double tensor.")
    .OutputDoc(0, "output", "1 at the first maximum of each row of the 2-D view, else 0.")
    .Doc(
        "One-hot of each row's first maximum, the input coerced to 2-D at `axis` (ONNX's "
        "Hardmax before opset 13).");
PARITY_REGISTER_CPU_OPERATOR(Hardmax, HardmaxOp);

}  // namespace
}  // namespace parity

// Range (Caffe2's, caffe2/operators/utility_ops.h; ONNX's Range): [start, stop) in steps of
// `step`, as Python's range and numpy's arange: Range(stop), Range(start, stop) or
// Range(start, stop, step), each input one element (dims [] or [1]) of one dtype: float, double,
// int32, int64. Defaults start 0, step 1.
//
// Length max(ceil((stop - start) / step), 0), exact for integers. Caffe2 computed the integer
// length as (stop - start) / step plus one when that product fell short, which undercounts
// descending ranges (Range(10, 6, -3) gave [10] where numpy and ONNX give [10, 7]); parity follows
// numpy, which Caffe2's comment says it meant to match. A step of 0 is an error (Caffe2's too).
// Element i is start + i * step, computed in the dtype.
//
// The output's length depends on the values, so shape inference knows only its dtype. No
// gradient (makers.cc).
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/operator.h"
#include "core/ops/fill/range.h"
#include "core/schema.h"

namespace parity {

bool IsRangeType(DataType dtype) {
  return dtype == DataType::kFloat || dtype == DataType::kDouble || dtype == DataType::kInt32 ||
         dtype == DataType::kInt64;
}

void CheckRangeInputs(const Operator& op) {
  const DataType dtype = op.Input(0).dtype();
  for (int i = 0; i < op.InputSize(); ++i) {
    const Tensor& t = op.Input(i);
    PARITY_ENFORCE(t.numel() == 1 && t.ndim() <= 1, ErrorKind::kShapeMismatch, op.label(),
                   ": input '", op.InputName(i), "' must hold one element (dims [] or [1]), got ",
                   t.DebugString());
    PARITY_ENFORCE(IsRangeType(t.dtype()) && t.dtype() == dtype, ErrorKind::kShapeMismatch,
                   op.label(), ": input '", op.InputName(i), "' ", t.DebugString(),
                   " must be float, double, int32 or int64, all inputs of one dtype");
  }
}

namespace {


template <typename T>
T Scalar(const Tensor& t) {
  return t.data<T>()[0];
}

class RangeOp final : public Operator {
 public:
  using Operator::Operator;

  void Run() override {
    const DataType dtype = Input(0).dtype();
    CheckRangeInputs(*this);
    switch (dtype) {
      case DataType::kFloat:
        RunWith<float>();
        break;
      case DataType::kDouble:
        RunWith<double>();
        break;
      case DataType::kInt32:
        RunWith<int32_t>();
        break;
      default:
        RunWith<int64_t>();
        break;
    }
  }

 private:
  template <typename T>
  void RunWith() {
    const int n = InputSize();
    const T start = n == 1 ? T(0) : Scalar<T>(Input(0));
    const T stop = Scalar<T>(Input(n == 1 ? 0 : 1));
    const T step = n == 3 ? Scalar<T>(Input(2)) : T(1);
    const int64_t length = RangeLength(label(), start, stop, step);
    Tensor* out = Output(0);
    out->Resize({length});
    T* y = out->template mutable_data<T>();
    for (int64_t i = 0; i < length; ++i) {
      if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        y[i] = static_cast<T>(static_cast<U>(start) + static_cast<U>(i) * static_cast<U>(step));
      } else {
        y[i] = start + static_cast<T>(i) * step;
      }
    }
  }
};

PARITY_OP_SCHEMA(Range)
    .NumInputs(1, 3)
    .NumOutputs(1)
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      for (size_t i = 0; i < in.size(); ++i) {
        PARITY_ENFORCE(IsRangeType(in[i].dtype) && in[i].dtype == in[0].dtype,
                       ErrorKind::kShapeMismatch, args.op_label(), ": input '", def.input(i), "' ",
                       TensorTypeString(in[i]),
                       " must be float, double, int32 or int64, all inputs of one dtype");
      }
      TensorType out;
      out.dtype = in[0].dtype;
      out.known = false;  // the length is data
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "start", "With one input: stop. One element.")
    .InputDoc(1, "stop", "Optional (then input 0 is start): the excluded end.")
    .InputDoc(2, "step", "Optional: the step (default 1, never 0).")
    .OutputDoc(0, "output", "1-D: start, start + step, ... before stop.")
    .Doc("The values from start towards stop (excluded) in steps of step, as numpy's arange.");
PARITY_REGISTER_CPU_OPERATOR(Range, RangeOp);

}  // namespace
}  // namespace parity

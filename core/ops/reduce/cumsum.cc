// CumSum (ONNX's; Caffe2 had none): running sums of X along `axis` (ONNX's axis input, an
// argument here: the importer reads the constant). exclusive = 1 leaves each element out of its
// own sum (the first is 0); reverse = 1 sums from the end. float, double, int32, int64; integer
// sums wrap (two's complement). May run in place: each element is read before it is written and
// never read again.
//
// Linear, so its gradient is a CumSum of dY with the same axis and exclusive and the opposite
// direction (makers.cc): dX[j] = the sum of dY over the positions whose sums include X[j].
#include <cstdint>
#include <type_traits>

#include "core/operator.h"
#include "core/ops/common/shape_util.h"
#include "core/schema.h"

namespace parity {
namespace {

template <typename T>
T Plus(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <typename T>
void CumSumRows(const T* x, T* y, int64_t outer, int64_t len, int64_t inner, bool exclusive,
                bool reverse) {
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      T acc = T(0);
      for (int64_t step = 0; step < len; ++step) {
        const int64_t k = reverse ? len - 1 - step : step;
        const int64_t at = (o * len + k) * inner + i;
        const T v = x[at];
        if (exclusive) {
          y[at] = acc;
          acc = Plus(acc, v);
        } else {
          acc = Plus(acc, v);
          y[at] = acc;
        }
      }
    }
  }
}

void CheckCumSum(const std::string& label, DataType dtype, const std::vector<int64_t>& dims,
                 int64_t axis, const std::string& described) {
  PARITY_ENFORCE(dtype == DataType::kFloat || dtype == DataType::kDouble ||
                     dtype == DataType::kInt32 || dtype == DataType::kInt64,
                 ErrorKind::kShapeMismatch, label, ": unsupported dtype of X (", described,
                 "); supported: float, double, int32, int64");
  PARITY_ENFORCE(!dims.empty(), ErrorKind::kShapeMismatch, label,
                 ": X must have rank >= 1, got a scalar ", described);
  shape_util::CanonicalAxis(axis, static_cast<int>(dims.size()), label, "axis", dims);
}

class CumSumOp final : public Operator {
 public:
  CumSumOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        axis_(Arg<int64_t>("axis")),
        exclusive_(Arg<bool>("exclusive")),
        reverse_(Arg<bool>("reverse")) {}

  void Run() override {
    const Tensor& x = Input(0);
    CheckCumSum(label(), x.dtype(), x.dims(), axis_, x.DebugString());
    const int axis = shape_util::CanonicalAxis(axis_, x.ndim(), label(), "axis", x.dims());
    const int64_t outer = shape_util::SizeToDim(x.dims(), axis);
    const int64_t len = x.dims()[axis];
    const int64_t inner = shape_util::SizeFromDim(x.dims(), axis + 1);
    Tensor* y = Output(0);
    if (y != &x) y->Resize(x.dims());
    auto run = [&](auto zero) {
      using T = decltype(zero);
      CumSumRows<T>(x.data<T>(), y->template mutable_data<T>(), outer, len, inner, exclusive_,
                    reverse_);
    };
    switch (x.dtype()) {
      case DataType::kFloat:
        run(float{});
        break;
      case DataType::kDouble:
        run(double{});
        break;
      case DataType::kInt32:
        run(int32_t{});
        break;
      default:
        run(int64_t{});
        break;
    }
  }

 private:
  const int64_t axis_;
  const bool exclusive_;
  const bool reverse_;
};

PARITY_OP_SCHEMA(CumSum)
    .NumInputs(1)
    .NumOutputs(1)
    .AllowInplace({{0, 0}})
    .DifferentiableInputs({0})
    .Arg("axis", ArgType::kInt, int64_t{0}, "The axis to sum along (negative allowed).")
    .Arg("exclusive", ArgType::kInt, int64_t{0}, "1: each sum leaves its own element out.")
    .Arg("reverse", ArgType::kInt, int64_t{0}, "1: sum from the end of the axis.")
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      CheckCumSum(args.op_label(), in[0].dtype, in[0].dims, args.Get<int64_t>("axis"),
                  TensorTypeString(in[0]));
      return std::vector<TensorType>{in[0]};
    })
    .InputDoc(0, "X", "float, double, int32 or int64 tensor of rank >= 1.")
    .OutputDoc(0, "Y", "The running sums, X's dims.")
    .Doc("Cumulative sum along `axis`, optionally exclusive and/or reversed (ONNX's CumSum).");
PARITY_REGISTER_CPU_OPERATOR(CumSum, CumSumOp);

}  // namespace
}  // namespace parity

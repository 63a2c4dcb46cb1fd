// Trilu (ONNX's; Caffe2 had none): keeps the upper (upper = 1, the default) or lower triangle of
// each matrix over the last two dims, the rest zero. Element (i, j) stays when j - i >= k (upper)
// or j - i <= k (lower): k = 0 is the main diagonal, k > 0 above it. Inputs of rank >= 2, float,
// double, int32, int64; may run in place. Linear, so its gradient is Trilu of dY (makers.cc).
#include <cstdint>

#include "core/operator.h"
#include "core/ops/common/elementwise.h"
#include "core/schema.h"

namespace parity {
namespace {

constexpr char kTriluTypes[] = "float, double, int32, int64";

bool IsTriluType(DataType dtype) {
  bool ok = false;
  elementwise::VisitType(dtype, [&](auto zero) {
    ok = elementwise::kIsOneOf<decltype(zero), float, double, int32_t, int64_t>;
  });
  return ok;
}

void CheckTrilu(const std::string& label, DataType dtype, const std::vector<int64_t>& dims,
                const std::string& described) {
  PARITY_ENFORCE(dims.size() >= 2, ErrorKind::kShapeMismatch, label,
                 ": needs a tensor of rank >= 2 (matrices over the last two dims), got ",
                 described);
  PARITY_ENFORCE(IsTriluType(dtype), ErrorKind::kShapeMismatch, label, ": unsupported dtype (",
                 described, "); supported: ", kTriluTypes);
}

class TriluOp final : public Operator {
 public:
  TriluOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), upper_(Arg<bool>("upper")), k_(Arg<int64_t>("k")) {}

  void Run() override {
    const Tensor& x = Input(0);
    CheckTrilu(label(), x.dtype(), x.dims(), x.DebugString());
    const int64_t rows = x.dim(-2), cols = x.dim(-1);
    const int64_t matrices = rows * cols == 0 ? 0 : x.numel() / (rows * cols);
    Tensor* y = Output(0);
    if (y != &x) y->Resize(x.dims());
    elementwise::VisitType(x.dtype(), [&](auto zero) {
      using T = decltype(zero);
      if constexpr (elementwise::kIsOneOf<T, float, double, int32_t, int64_t>) {
        const T* in = x.data<T>();
        T* out = y->mutable_data<T>();
        for (int64_t m = 0; m < matrices; ++m) {
          for (int64_t i = 0; i < rows; ++i) {
            for (int64_t j = 0; j < cols; ++j) {
              const int64_t at = (m * rows + i) * cols + j;
              const bool keep = upper_ ? j - i >= k_ : j - i <= k_;
              out[at] = keep ? in[at] : T(0);
            }
          }
        }
      }
    });
  }

 private:
  const bool upper_;
  const int64_t k_;
};

PARITY_OP_SCHEMA(Trilu)
    .NumInputs(1)
    .NumOutputs(1)
    .AllowInplace({{0, 0}})
    .DifferentiableInputs({0})
    .Arg("upper", ArgType::kInt, int64_t{1}, "1: keep the upper triangle; 0: the lower.")
    .Arg("k", ArgType::kInt, int64_t{0},
         "Diagonal offset: (i, j) stays when j - i >= k (upper) or <= k (lower).")
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      CheckTrilu(args.op_label(), in[0].dtype, in[0].dims, TensorTypeString(in[0]));
      return std::vector<TensorType>{in[0]};
    })
    .InputDoc(0, "X", "Tensor of rank >= 2: float, double, int32 or int64.")
    .OutputDoc(0, "Y", "X with the elements off the chosen triangle zeroed.")
    .Doc("Upper or lower triangle of each matrix over the last two dims (ONNX's Trilu).");
PARITY_REGISTER_CPU_OPERATOR(Trilu, TriluOp);

}  // namespace
}  // namespace parity

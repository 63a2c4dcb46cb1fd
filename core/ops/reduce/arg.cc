// ArgMax, ArgMin (Caffe2's caffe2/operators/arg_ops.cc): the int64 index of the largest / smallest
// element along `axis` (default -1: the last; negative counts from the end), `keepdims` (default 1)
// keeping that axis as size 1. float, double, int32, int64.
//
// Ties: the first index, as Caffe2 (an element replaces the running best only when strictly
// greater / smaller); `select_last_index` = 1 (ONNX's attribute, an extension here) picks the last
// (greater or equal replaces). NaN: every comparison with NaN is false, so a NaN is selected only
// when it is the first element of its run, and then stays (Caffe2's loop, kept as it is).
// An axis of size 0 has no index: kShapeMismatch.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/operator.h"
#include "core/ops/common/elementwise.h"
#include "core/ops/common/shape_util.h"
#include "core/schema.h"

namespace parity {
namespace {

struct ArgPlan {
  int axis = 0;
  int64_t outer = 1, n = 1, inner = 1;
  std::vector<int64_t> out_dims;
};

ArgPlan PlanArg(const std::vector<int64_t>& dims, const ArgumentHelper& args) {
  ArgPlan plan;
  const int rank = static_cast<int>(dims.size());
  PARITY_ENFORCE(rank >= 1, ErrorKind::kShapeMismatch, args.op_label(),
                 ": needs a tensor of rank >= 1, got a scalar");
  plan.axis =
      shape_util::CanonicalAxis(args.Get<int64_t>("axis"), rank, args.op_label(), "axis", dims);
  const bool keepdims = args.Get<bool>("keepdims");
  for (int i = 0; i < rank; ++i) {
    if (i < plan.axis) plan.outer *= dims[i];
    if (i > plan.axis) plan.inner *= dims[i];
    if (i != plan.axis) {
      plan.out_dims.push_back(dims[i]);
    } else if (keepdims) {
      plan.out_dims.push_back(1);
    }
  }
  plan.n = dims[plan.axis];
  PARITY_ENFORCE(plan.n > 0 || plan.outer * plan.inner == 0, ErrorKind::kShapeMismatch,
                 args.op_label(), ": axis ", plan.axis, " of ", ShapeString(dims),
                 " is empty: no index to return");
  return plan;
}

constexpr char kArgTypes[] = "float, double, int32, int64";

bool IsArgType(DataType dtype) {
  bool numeric = false;
  elementwise::VisitType(dtype, [&](auto zero) {
    numeric = elementwise::kIsOneOf<decltype(zero), float, double, int32_t, int64_t>;
  });
  return numeric;
}

template <bool kMax>
class ArgOp final : public Operator {
 public:
  ArgOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), last_(Arg<bool>("select_last_index")) {}

  void Run() override {
    const Tensor& x = Input(0);
    const ArgPlan plan = PlanArg(x.dims(), args());
    PARITY_ENFORCE(IsArgType(x.dtype()), ErrorKind::kShapeMismatch, label(),
                   ": unsupported dtype of X (", x.DebugString(), "); supported: ", kArgTypes);
    Tensor* y = Output(0);
    y->Resize(plan.out_dims);
    int64_t* out = y->mutable_data<int64_t>();
    elementwise::VisitType(x.dtype(), [&](auto zero) {
      using T = decltype(zero);
      if constexpr (elementwise::kIsOneOf<T, float, double, int32_t, int64_t>) {
        Compute(x.data<T>(), plan, out);
      }
    });
  }

 private:
  template <typename T>
  void Compute(const T* x, const ArgPlan& plan, int64_t* out) const {
    for (int64_t o = 0; o < plan.outer; ++o) {
      for (int64_t i = 0; i < plan.inner; ++i) {
        const T* run = x + o * plan.n * plan.inner + i;
        int64_t best = 0;
        for (int64_t k = 1; k < plan.n; ++k) {
          const T candidate = run[k * plan.inner], current = run[best * plan.inner];
          const bool better = kMax ? (last_ ? candidate >= current : candidate > current)
                                   : (last_ ? candidate <= current : candidate < current);
          if (better) best = k;
        }
        out[o * plan.inner + i] = best;
      }
    }
  }

  const bool last_;
};

std::vector<TensorType> ArgShape(const caffe2::OperatorDef&, const ArgumentHelper& args,
                                 const std::vector<TensorType>& in) {
  PARITY_ENFORCE(IsArgType(in[0].dtype), ErrorKind::kShapeMismatch, args.op_label(),
                 ": unsupported dtype of X (", TensorTypeString(in[0]),
                 "); supported: ", kArgTypes);
  TensorType out;
  out.dtype = DataType::kInt64;
  out.dims = PlanArg(in[0].dims, args).out_dims;
  return {out};
}

OpSchema& ArgSchema(OpSchema& schema) {
  return schema.NumInputs(1)
      .NumOutputs(1)
      .Arg("axis", ArgType::kInt, int64_t{-1},
           "The axis to search (negative counts from the end); default the last.")
      .Arg("keepdims", ArgType::kInt, int64_t{1}, "If 1, the searched axis stays as size 1.")
      .Arg("select_last_index", ArgType::kInt, int64_t{0},
           "If 1, ties give the last index instead of the first (ONNX; not in Caffe2).")
      .NotDifferentiable()
      .ShapeInference(ArgShape)
      .InputDoc(0, "X", "float, double, int32 or int64 tensor of rank >= 1.")
      .OutputDoc(0, "Indices", "int64: X's dims with `axis` 1 (keepdims) or removed.");
}

PARITY_OP_SCHEMA(ArgMax).Apply(ArgSchema).Doc(
    "Index of the largest element along `axis` (the first among ties).");
PARITY_REGISTER_CPU_OPERATOR(ArgMax, ArgOp<true>);

PARITY_OP_SCHEMA(ArgMin).Apply(ArgSchema).Doc(
    "Index of the smallest element along `axis` (the first among ties).");
PARITY_REGISTER_CPU_OPERATOR(ArgMin, ArgOp<false>);

}  // namespace
}  // namespace parity

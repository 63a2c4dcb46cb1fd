// Variadic elementwise ops: Max, Min (numpy broadcasting over all inputs) and Sum, Mean (inputs of
// one shape). Caffe2 semantics (caffe2/operators/minmax_ops.cc, utility_ops.h, mean_op.h); all
// four may write their output in place of input 0 only (Caffe2's AllowInplace({{0, 0}}), which the
// gradient accumulation of the backward pass relies on for Sum).
//
// Max and Min propagate NaN (a NaN in any input gives NaN), as numpy's maximum / minimum do. Pytorch's
// Caffe2 requires equal shapes for Max / Min; parity broadcasts, which agrees wherever Caffe2
// accepts the inputs. Caffe2 registers them for float; parity also takes double and every integer
// dtype it stores (int8, int16, int32, int64, uint8, uint16: ONNX's Max / Min; the reference
// agrees).
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/operator.h"
#include "core/ops/common/broadcast.h"
#include "core/ops/common/elementwise.h"
#include "core/schema.h"

namespace parity {
namespace {

using elementwise::AsWrapping;
using elementwise::ConstMap;
using elementwise::FromWrapping;
using elementwise::Map;

// Every input has input 0's dtype, and that dtype is one of Ts (kShapeMismatch otherwise).
// `describe(i)` is "float [2, 3]" for input i.
template <typename... Ts, typename Describe>
void CheckVariadicTypes(const std::vector<DataType>& dtypes, Describe&& describe,
                        const std::string& label, const char* supported) {
  bool ok = false;
  elementwise::VisitType(dtypes[0], [&](auto zero) {
    ok = elementwise::kIsOneOf<decltype(zero), Ts...>;
  });
  PARITY_ENFORCE(ok, ErrorKind::kShapeMismatch, label, ": unsupported dtype of input 0 (",
                 describe(0), "); supported: ", supported);
  for (size_t i = 1; i < dtypes.size(); ++i) {
    PARITY_ENFORCE(dtypes[i] == dtypes[0], ErrorKind::kShapeMismatch, label, ": input ", i, " (",
                   describe(i), ") must have the dtype of input 0 (", describe(0), ")");
  }
}

std::vector<DataType> DtypesOf(const std::vector<TensorType>& in) {
  std::vector<DataType> out;
  for (const auto& t : in) out.push_back(t.dtype);
  return out;
}

// The broadcast shape of all inputs, folded left to right.
std::vector<int64_t> VariadicBroadcast(const std::vector<const std::vector<int64_t>*>& dims,
                                       const std::string& label) {
  std::vector<int64_t> out = *dims[0];
  for (size_t i = 1; i < dims.size(); ++i) {
    out = BroadcastShapes(out, *dims[i], label, i == 1 ? "input 0" : "inputs 0.." + std::to_string(i - 1),
                          "input " + std::to_string(i));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Max, Min.

struct MaxFn {
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return x.binaryExpr(y, elementwise::MaxNaN<typename X::Scalar>());
  }
};
struct MinFn {
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return x.binaryExpr(y, elementwise::MinNaN<typename X::Scalar>());
  }
};

constexpr char kMinMaxTypes[] = "float, double, int8, int16, int32, int64, uint8, uint16";

// The C++ types of kMinMaxTypes, for CheckVariadicTypes and the kernel's dispatch.
#define PARITY_MINMAX_TYPES float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t

template <class Fn>
class MinMaxOp final : public Operator {
 public:
  using Operator::Operator;

  void Run() override {
    const int count = InputSize();
    dtypes_.clear();
    dims_.clear();
    for (int i = 0; i < count; ++i) {
      dtypes_.push_back(Input(i).dtype());
      dims_.push_back(&Input(i).dims());
    }
    CheckVariadicTypes<PARITY_MINMAX_TYPES>(
        dtypes_, [&](size_t i) { return Input(static_cast<int>(i)).DebugString(); }, label(),
        kMinMaxTypes);
    std::vector<int64_t> out_dims = VariadicBroadcast(dims_, label());
    const Tensor& x0 = Input(0);
    const bool in_place = OutputBlob(0) == InputBlob(0);
    if (in_place) {
      PARITY_ENFORCE(x0.dims() == out_dims, ErrorKind::kShapeMismatch, label(), ": the output ",
                     ShapeString(out_dims), " cannot be written in place of input 0 ",
                     ShapeString(x0.dims()), " (in place needs the output to keep its shape)");
    }
    Tensor* out = Output(0);
    out->Resize(out_dims);
    elementwise::VisitType(x0.dtype(), [&](auto zero) {
      using T = decltype(zero);
      if constexpr (elementwise::kIsOneOf<T, PARITY_MINMAX_TYPES>) Compute<T>(out);
    });
  }

 private:
  template <typename T>
  void Compute(Tensor* out) {
    const int count = InputSize();
    T* o = out->mutable_data<T>();
    const size_t bytes = out->nbytes();
    // Computed aside when the output shares memory with an input other than by exact in-place
    // use of input 0 (the running result is read back, so later inputs must not alias it).
    bool aside = false;
    for (int i = 0; i < count; ++i) {
      const Tensor& x = Input(i);
      aside = aside || elementwise::UnsafeOverlap(o, bytes, x.raw_data(), x.nbytes(),
                                                  i == 0 && x.dims() == out->dims());
    }
    T* dst = o;
    if (aside) {
      scratch_.Resize(out->dims());
      dst = scratch_.mutable_data<T>();
    }
    const std::vector<int64_t>& out_dims = out->dims();
    auto op = [](const auto& x, const auto& y) { return Fn::Apply(x, y); };
    if (count == 1) {
      // One input: a copy broadcast to its own shape.
      plan_.Build(out_dims, Input(0).dims(), Input(0).dims());
      elementwise::RunPlan<T, T>(plan_, Input(0).template data<T>(), Input(0).template data<T>(), dst, op);
    } else {
      plan_.Build(out_dims, Input(0).dims(), Input(1).dims());
      elementwise::RunPlan<T, T>(plan_, Input(0).template data<T>(), Input(1).template data<T>(), dst, op);
      for (int i = 2; i < count; ++i) {
        // The running result already has the output's shape, so it is read in place.
        plan_.Build(out_dims, out_dims, Input(i).dims());
        elementwise::RunPlan<T, T>(plan_, dst, Input(i).template data<T>(), dst, op);
      }
    }
    if (aside && bytes > 0) std::memcpy(o, dst, bytes);
  }

  std::vector<DataType> dtypes_;
  std::vector<const std::vector<int64_t>*> dims_;
  BroadcastPlan plan_;
  Tensor scratch_;
};

std::vector<TensorType> MinMaxShape(const caffe2::OperatorDef& def, const ArgumentHelper& args,
                                    const std::vector<TensorType>& in) {
  CheckVariadicTypes<PARITY_MINMAX_TYPES>(
      DtypesOf(in), [&](size_t i) { return TensorTypeString(in[i]); }, args.op_label(),
      kMinMaxTypes);
  std::vector<const std::vector<int64_t>*> dims;
  for (const auto& t : in) dims.push_back(&t.dims);
  TensorType out = in[0];
  out.dims = VariadicBroadcast(dims, args.op_label());
  PARITY_ENFORCE(def.output(0) != def.input(0) || out.dims == in[0].dims,
                 ErrorKind::kShapeMismatch, args.op_label(), ": the output ",
                 ShapeString(out.dims), " cannot be written in place of input 0 ",
                 ShapeString(in[0].dims), " (in place needs the output to keep its shape)");
  return {out};
}

#define PARITY_MINMAX_OP(Name, what)                                                           \
  PARITY_OP_SCHEMA(Name)                                                                       \
      .NumInputs(1, std::numeric_limits<int>::max())                                           \
      .NumOutputs(1)                                                                           \
      .AllowInplace({{0, 0}})                                                                  \
      .ShapeInference(MinMaxShape)                                                             \
      .InputDoc(0, "X0", "First input; further inputs X1, X2, ... of the same dtype.")         \
      .OutputDoc(0, "Y", "The elementwise " what " over all inputs, in their broadcast shape.") \
      .Doc("Elementwise " what " of any number of inputs of one dtype (float, double, int8, " \
           "int16, int32, int64, uint8, uint16) with numpy broadcasting; NaN propagates.");     \
  PARITY_REGISTER_CPU_OPERATOR(Name, MinMaxOp<Name##Fn>)

PARITY_MINMAX_OP(Max, "maximum");
PARITY_MINMAX_OP(Min, "minimum");
#undef PARITY_MINMAX_OP
#undef PARITY_MINMAX_TYPES

// ---------------------------------------------------------------------------------------------
// Sum, Mean: inputs of one shape.

template <typename Describe>
void CheckSameShapes(const std::vector<const std::vector<int64_t>*>& dims, Describe&& describe,
                     const std::string& label) {
  for (size_t i = 1; i < dims.size(); ++i) {
    PARITY_ENFORCE(*dims[i] == *dims[0], ErrorKind::kShapeMismatch, label, ": input ", i, " (",
                   describe(i), ") must have the shape of input 0 (", describe(0), ")");
  }
}

constexpr char kSumTypes[] = "float, double, int32, int64";
constexpr char kMeanTypes[] = "float, double";

template <bool kMean>
class SumOp final : public Operator {
 public:
  using Operator::Operator;

  void Run() override {
    const int count = InputSize();
    dtypes_.clear();
    dims_.clear();
    for (int i = 0; i < count; ++i) {
      dtypes_.push_back(Input(i).dtype());
      dims_.push_back(&Input(i).dims());
    }
    auto describe = [&](size_t i) { return Input(static_cast<int>(i)).DebugString(); };
    if constexpr (kMean) {
      CheckVariadicTypes<float, double>(dtypes_, describe, label(), kMeanTypes);
    } else {
      CheckVariadicTypes<float, double, int32_t, int64_t>(dtypes_, describe, label(), kSumTypes);
    }
    CheckSameShapes(dims_, describe, label());
    Tensor* out = Output(0);
    out->Resize(Input(0).dims());
    switch (Input(0).dtype()) {
      case DataType::kFloat: Compute<float>(out); break;
      case DataType::kDouble: Compute<double>(out); break;
      case DataType::kInt32: if constexpr (!kMean) Compute<int32_t>(out); break;
      case DataType::kInt64: if constexpr (!kMean) Compute<int64_t>(out); break;
      default: break;
    }
  }

 private:
  template <typename T>
  void Compute(Tensor* out) {
    const int count = InputSize();
    const int64_t n = out->numel();
    T* o = out->mutable_data<T>();
    bool aside = false;
    for (int i = 0; i < count; ++i) {
      aside = aside || elementwise::UnsafeOverlap(o, out->nbytes(), Input(i).raw_data(),
                                                  Input(i).nbytes(), i == 0);
    }
    T* dst = o;
    if (aside) {
      scratch_.Resize(out->dims());
      dst = scratch_.mutable_data<T>();
    }
    // Each element is summed by one thread, in input order: split by element range, the result is
    // bit-identical for any thread count.
    elementwise::ParallelElementwise(dst, n, count, [&](int64_t begin, int64_t end) {
      const int64_t len = end - begin;
      auto input = [&](int i) { return ConstMap<T>(Input(i).template data<T>() + begin, len); };
      Map<T> y(dst + begin, len);
      if (count == 1) {
        y = input(0);
      } else {
        y = FromWrapping<T>(AsWrapping<T>(input(0)) + AsWrapping<T>(input(1)));
        for (int i = 2; i < count; ++i) {
          y = FromWrapping<T>(AsWrapping<T>(y) + AsWrapping<T>(input(i)));
        }
      }
      // Caffe2's MeanOp scales the sum by 1/n rather than dividing by n.
      if constexpr (kMean) y *= static_cast<T>(1.0 / count);
    });
    if (aside && n > 0) std::memcpy(o, dst, out->nbytes());
  }

  std::vector<DataType> dtypes_;
  std::vector<const std::vector<int64_t>*> dims_;
  Tensor scratch_;
};

template <bool kMean>
std::vector<TensorType> SumShape(const caffe2::OperatorDef&, const ArgumentHelper& args,
                                 const std::vector<TensorType>& in) {
  auto describe = [&](size_t i) { return TensorTypeString(in[i]); };
  if constexpr (kMean) {
    CheckVariadicTypes<float, double>(DtypesOf(in), describe, args.op_label(), kMeanTypes);
  } else {
    CheckVariadicTypes<float, double, int32_t, int64_t>(DtypesOf(in), describe, args.op_label(),
                                                        kSumTypes);
  }
  std::vector<const std::vector<int64_t>*> dims;
  for (const auto& t : in) dims.push_back(&t.dims);
  CheckSameShapes(dims, describe, args.op_label());
  return {in[0]};
}

PARITY_OP_SCHEMA(Sum)
    .NumInputs(1, std::numeric_limits<int>::max())
    .NumOutputs(1)
    .AllowInplace({{0, 0}})
    .ShapeInference(SumShape<false>)
    .InputDoc(0, "X0", "First input; further inputs X1, X2, ... of the same shape and dtype.")
    .OutputDoc(0, "Y", "The elementwise sum.")
    .Doc("Elementwise sum of any number of inputs of one shape and dtype (float, double, int32, "
         "int64; integers wrap). May run in place on input 0 only.");
PARITY_REGISTER_CPU_OPERATOR(Sum, SumOp<false>);

PARITY_OP_SCHEMA(Mean)
    .NumInputs(1, std::numeric_limits<int>::max())
    .NumOutputs(1)
    .AllowInplace({{0, 0}})
    .ShapeInference(SumShape<true>)
    .InputDoc(0, "X0", "First input; further inputs X1, X2, ... of the same shape and dtype.")
    .OutputDoc(0, "Y", "The elementwise mean.")
    .Doc("Elementwise mean of any number of float or double inputs of one shape: the sum "
         "scaled by 1/n.");
PARITY_REGISTER_CPU_OPERATOR(Mean, SumOp<true>);

}  // namespace
}  // namespace parity

// Where (Caffe2's, caffe2/operators/elementwise_logical_ops.h; ONNX's Where): Z = C ? X : Y
// elementwise, with C bool and X, Y of one dtype (any dtype a tensor holds as numbers or bool).
//
// Caffe2 required C, X and Y of one shape, or with `broadcast_on_rows` = 1 a 1-D C with one flag
// per row (dim 0) of X and Y (which then have one shape). ONNX broadcasts all three as numpy does;
// parity takes that as the extension of the default form, so Caffe2's nets (equal shapes) mean the
// same and ONNX's broadcast forms run.
//
//   WhereGradient (C, X, Y, dZ) -> (dX, dY): dZ where C holds goes to X, elsewhere to Y, each
//   summed over the copies that broadcasting made of that input's elements. X and Y are read for
//   their dims only; the gradients have dZ's dtype (float or double).
//
// No in place: Caffe2's schema declared the pair (input 1, output 2) of a one-output op, which
// allows nothing, and parity keeps that.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/operator.h"
#include "core/ops/common/broadcast.h"
#include "core/ops/common/elementwise.h"
#include "core/schema.h"

namespace parity {
namespace {

// The output dims of C, X, Y and each one's element strides over them (0 where it is repeated).
struct WherePlan {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides[3];
  bool same_dims = false;  // all three have the output's dims: a plain loop
};

// Strides of `in` (aligned to the right of `out`) over `out`: 0 where `in` has a 1 (or no dim).
std::vector<int64_t> AlignedStrides(const std::vector<int64_t>& in,
                                    const std::vector<int64_t>& out) {
  std::vector<int64_t> strides(out.size(), 0);
  const size_t shift = out.size() - in.size();
  int64_t step = 1;
  for (size_t i = in.size(); i-- > 0;) {
    if (in[i] != 1) strides[i + shift] = step;
    step *= in[i];
  }
  return strides;
}

int64_t NumElements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Checks the inputs and plans the broadcast. `describe(i)` shows input i in messages.
template <class Describe>
WherePlan PlanWhere(const std::vector<DataType>& dtypes,
                    const std::vector<std::vector<int64_t>>& dims, bool on_rows,
                    const std::string& label, Describe&& describe) {
  PARITY_ENFORCE(dtypes[0] == DataType::kBool, ErrorKind::kShapeMismatch, label,
                 ": condition C must be bool, got ", describe(0));
  bool holds_numbers = false;
  elementwise::VisitType(dtypes[1], [&](auto) { holds_numbers = true; });
  PARITY_ENFORCE(holds_numbers, ErrorKind::kShapeMismatch, label, ": unsupported dtype of X (",
                 describe(1),
                 "); supported: float, double, int32, int64, bool, uint8, int8, "
                 "int16, uint16");
  PARITY_ENFORCE(dtypes[2] == dtypes[1], ErrorKind::kShapeMismatch, label, ": Y (", describe(2),
                 ") must have the dtype of X (", describe(1), ")");
  WherePlan plan;
  if (on_rows) {
    // Caffe2's row form: C [N], X and Y [N, ...] of one shape.
    PARITY_ENFORCE(dims[1] == dims[2], ErrorKind::kShapeMismatch, label,
                   ": with broadcast_on_rows=1, X (", describe(1), ") and Y (", describe(2),
                   ") must have one shape");
    PARITY_ENFORCE(dims[0].size() == 1 && !dims[1].empty() && dims[0][0] == dims[1][0],
                   ErrorKind::kShapeMismatch, label, ": with broadcast_on_rows=1, C (", describe(0),
                   ") must be 1-D with one flag per row (dim 0) of X (", describe(1), ")");
    plan.dims = dims[1];
    std::vector<int64_t> c_dims(dims[1].size(), 1);
    c_dims[0] = dims[0][0];
    plan.strides[0] = AlignedStrides(c_dims, plan.dims);
  } else {
    const std::vector<int64_t> cx = BroadcastShapes(dims[0], dims[1], label, "C", "X");
    plan.dims = BroadcastShapes(cx, dims[2], label, "C and X broadcast", "Y");
    plan.strides[0] = AlignedStrides(dims[0], plan.dims);
  }
  plan.strides[1] = AlignedStrides(dims[1], plan.dims);
  plan.strides[2] = AlignedStrides(dims[2], plan.dims);
  plan.same_dims = !on_rows && dims[0] == plan.dims && dims[1] == plan.dims && dims[2] == plan.dims;
  return plan;
}

// Calls fn(z, c, x, y) with the flat offsets of every output element and the inputs' elements it
// reads, in output order.
template <typename Fn>
void ForEachWhere(const WherePlan& plan, Fn&& fn) {
  const int64_t numel = NumElements(plan.dims);
  if (numel == 0) return;
  if (plan.same_dims) {
    for (int64_t k = 0; k < numel; ++k) fn(k, k, k, k);
    return;
  }
  const int rank = static_cast<int>(plan.dims.size());
  std::vector<int64_t> counter(rank, 0);
  int64_t offset[3] = {0, 0, 0};
  for (int64_t k = 0; k < numel; ++k) {
    fn(k, offset[0], offset[1], offset[2]);
    // Odometer, innermost dim fastest.
    for (int d = rank - 1; d >= 0; --d) {
      for (int i = 0; i < 3; ++i) offset[i] += plan.strides[i][d];
      if (++counter[d] < plan.dims[d]) break;
      for (int i = 0; i < 3; ++i) offset[i] -= plan.strides[i][d] * plan.dims[d];
      counter[d] = 0;
    }
  }
}

WherePlan PlanFor(const Operator& op, bool on_rows) {
  std::vector<DataType> dtypes;
  std::vector<std::vector<int64_t>> dims;
  for (int i = 0; i < 3; ++i) {
    dtypes.push_back(op.Input(i).dtype());
    dims.push_back(op.Input(i).dims());
  }
  return PlanWhere(dtypes, dims, on_rows, op.label(),
                   [&](int i) { return "'" + op.InputName(i) + "' " + op.Input(i).DebugString(); });
}

WherePlan PlanFor(const ArgumentHelper& args, const caffe2::OperatorDef& def,
                  const std::vector<TensorType>& in) {
  std::vector<DataType> dtypes;
  std::vector<std::vector<int64_t>> dims;
  for (int i = 0; i < 3; ++i) {
    dtypes.push_back(in[i].dtype);
    dims.push_back(in[i].dims);
  }
  return PlanWhere(dtypes, dims, args.Get<bool>("broadcast_on_rows"), args.op_label(),
                   [&](int i) { return "'" + def.input(i) + "' " + TensorTypeString(in[i]); });
}

class WhereOp final : public Operator {
 public:
  WhereOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), on_rows_(Arg<bool>("broadcast_on_rows")) {}

  void Run() override {
    const WherePlan plan = PlanFor(*this, on_rows_);
    const bool* c = Input(0).data<bool>();
    elementwise::VisitType(Input(1).dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* x = Input(1).data<T>();
      const T* y = Input(2).data<T>();
      Tensor* out = Output(0);
      elementwise::ResizeTo(out, plan.dims);
      T* z = out->mutable_data<T>();
      ForEachWhere(plan, [&](int64_t k, int64_t ic, int64_t ix, int64_t iy) {
        z[k] = c[ic] ? x[ix] : y[iy];
      });
    });
  }

 private:
  const bool on_rows_;
};

OpSchema& WhereArgs(OpSchema& schema) {
  return schema.Arg("broadcast_on_rows", ArgType::kInt, int64_t{0},
                    "1: Caffe2's row form, C [N] selects whole rows (dim 0) of X and Y, which "
                    "have one shape. 0: C, X and Y broadcast as numpy does.");
}

PARITY_OP_SCHEMA(Where)
    .NumInputs(3)
    .NumOutputs(1)
    .DifferentiableInputs({1, 2})
    .Apply(WhereArgs)
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      TensorType out;
      out.dtype = in[1].dtype;
      out.dims = PlanFor(args, def, in).dims;
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "C", "bool condition.")
    .InputDoc(1, "X", "Values where C holds: any numeric or bool dtype.")
    .InputDoc(2, "Y", "Values where C does not hold: X's dtype.")
    .OutputDoc(0, "Z", "C ? X : Y, shaped like the broadcast of C, X and Y.")
    .Doc("Elementwise select: Z = C ? X : Y (Caffe2's Where, with ONNX's numpy broadcasting).");
PARITY_REGISTER_CPU_OPERATOR(Where, WhereOp);

// ---------------------------------------------------------------------------------------------
// WhereGradient

class WhereGradientOp final : public Operator {
 public:
  WhereGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), on_rows_(Arg<bool>("broadcast_on_rows")) {
    PARITY_ENFORCE(OutputName(0) != OutputName(1), ErrorKind::kBadArgument, label(),
                   ": outputs 0 and 1 are both '", OutputName(0),
                   "'; each input gradient needs its own blob");
  }

  void Run() override {
    const WherePlan plan = PlanFor(*this, on_rows_);
    const Tensor& dz = Input(3);
    PARITY_ENFORCE(dz.dims() == plan.dims, ErrorKind::kShapeMismatch, label(), ": gradient '",
                   InputName(3), "' ", dz.DebugString(), " must have the output's dims ",
                   ShapeString(plan.dims));
    PARITY_ENFORCE(dz.dtype() == DataType::kFloat || dz.dtype() == DataType::kDouble,
                   ErrorKind::kShapeMismatch, label(), ": gradient '", InputName(3),
                   "' must be float or double, got ", dz.DebugString());
    const bool* c = Input(0).data<bool>();
    const std::vector<int64_t> x_dims = Input(1).dims();
    const std::vector<int64_t> y_dims = Input(2).dims();
    if (dz.dtype() == DataType::kFloat) {
      RunWith<float>(plan, c, x_dims, y_dims);
    } else {
      RunWith<double>(plan, c, x_dims, y_dims);
    }
  }

 private:
  template <typename T>
  void RunWith(const WherePlan& plan, const bool* c, const std::vector<int64_t>& x_dims,
               const std::vector<int64_t>& y_dims) {
    // Accumulated aside: an output may be written over an input (dZ, or X / Y read for dims).
    std::vector<T> dx(NumElements(x_dims), T(0));
    std::vector<T> dy(NumElements(y_dims), T(0));
    const T* dz = Input(3).data<T>();
    ForEachWhere(plan, [&](int64_t k, int64_t ic, int64_t ix, int64_t iy) {
      if (c[ic]) {
        dx[ix] += dz[k];
      } else {
        dy[iy] += dz[k];
      }
    });
    Write(0, x_dims, dx);
    Write(1, y_dims, dy);
  }

  template <typename T>
  void Write(int i, const std::vector<int64_t>& dims, const std::vector<T>& values) {
    Tensor* out = Output(i);
    elementwise::ResizeTo(out, dims);
    std::copy(values.begin(), values.end(), out->mutable_data<T>());
  }

  const bool on_rows_;
};

PARITY_OP_SCHEMA(WhereGradient)
    .NumInputs(4)
    .NumOutputs(2)
    .NotDifferentiable()
    .Apply(WhereArgs)
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      const WherePlan plan = PlanFor(args, def, in);
      PARITY_ENFORCE(in[3].dims == plan.dims, ErrorKind::kShapeMismatch, args.op_label(),
                     ": gradient '", def.input(3), "' ", TensorTypeString(in[3]),
                     " must have the output's dims ", ShapeString(plan.dims));
      PARITY_ENFORCE(in[3].dtype == DataType::kFloat || in[3].dtype == DataType::kDouble,
                     ErrorKind::kShapeMismatch, args.op_label(), ": gradient '", def.input(3),
                     "' must be float or double, got ", TensorTypeString(in[3]));
      TensorType dx{in[3].dtype, in[1].dims, true};
      TensorType dy{in[3].dtype, in[2].dims, true};
      return std::vector<TensorType>{dx, dy};
    })
    .InputDoc(0, "C", "Where's condition.")
    .InputDoc(1, "X", "Where's X (read for its dims).")
    .InputDoc(2, "Y", "Where's Y (read for its dims).")
    .InputDoc(3, "dZ", "The gradient of Where's output, float/double.")
    .OutputDoc(0, "dX", "dZ where C holds, summed back to X's dims.")
    .OutputDoc(1, "dY", "dZ where C does not hold, summed back to Y's dims.")
    .Doc("Gradient of Where: routes dZ to X or Y by C and sums broadcast copies.");
PARITY_REGISTER_CPU_OPERATOR(WhereGradient, WhereGradientOp);

}  // namespace
}  // namespace parity

// Gradient kernels of the reductions (conventions in core/ops/GRADIENTS.md; makers in core/ops/reduce/makers.cc):
//   ReduceSumGradient / ReduceMeanGradient / ReduceMaxGradient / ReduceMinGradient /
//   ReduceProdGradient        (dY, X, Y) -> dX   axes / keepdims copied from the forward op
//   SumElementsGradient       (X, dY)    -> dX   average copied
//   SoftmaxGradient           (Y, dY)    -> dX   axis copied; dX = Y * (dY - <dY, Y>) per row
//
// Sum: dX = dY broadcast back over the reduced axes; Mean: the same divided by the group size.
// Max / Min: each reduced group's gradient goes to ONE element, the FIRST (in X's row-major
// order) that equals the group's Y; every other element, ties included, gets 0. (Caffe2's
// ReduceMax/MinGradient gives dY to every tied element; at a tie the function is not
// differentiable, and the first-element rule keeps the sum of dX equal to the sum of dY.)
// The gradient has the dtype of dY (float or double); X and Y must share it for Max / Min.
#include <Eigen/Core>
#include <algorithm>

#include "core/operator.h"
#include "core/ops/reduce/reduce.h"
#include "core/ops/common/eigen_maps.h"
#include "core/ops/common/shape_util.h"
#include "core/schema.h"

namespace parity {
namespace {

using reduce_util::PlanReduce;
using reduce_util::ReducePlan;
using shape_util::SizeFromDim;
using shape_util::SizeToDim;

enum class Reduction { kSum, kMean, kMax, kMin };

void ExpectDims(const Tensor& t, const std::vector<int64_t>& dims, const std::string& label,
                const std::string& blob, const char* what) {
  PARITY_ENFORCE(t.dims() == dims, ErrorKind::kShapeMismatch, label, ": ", what, " '", blob, "' ",
                 t.DebugString(), " must have dims ", ShapeString(dims));
}

DataType GradDtype(const TensorType& dy, const ArgumentHelper& args, const std::string& blob) {
  PARITY_ENFORCE(dy.dtype == DataType::kFloat || dy.dtype == DataType::kDouble,
                 ErrorKind::kShapeMismatch, args.op_label(), ": gradient '", blob,
                 "' must be float or double, got ", TensorTypeString(dy));
  return dy.dtype;
}

// X's axes merged into runs of reduced / kept axes, with each run's stride in Y (0 if reduced).
struct Walk {
  std::vector<int64_t> sizes;
  std::vector<int64_t> y_strides;
  std::vector<bool> reduced;
};

void PlanWalk(const std::vector<int64_t>& dims, const ReducePlan& plan, Walk* w) {
  w->sizes.clear();
  w->reduced.clear();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 1) continue;  // Size-1 axes change nothing.
    if (!w->sizes.empty() && w->reduced.back() == plan.reduced[i]) {
      w->sizes.back() *= dims[i];
    } else {
      w->sizes.push_back(dims[i]);
      w->reduced.push_back(plan.reduced[i]);
    }
  }
  if (w->sizes.empty()) {
    w->sizes.push_back(1);
    w->reduced.push_back(false);
  }
  const int g = static_cast<int>(w->sizes.size());
  w->y_strides.assign(g, 0);
  int64_t stride = 1;
  for (int i = g - 1; i >= 0; --i) {
    if (w->reduced[i]) continue;
    w->y_strides[i] = stride;
    stride *= w->sizes[i];
  }
}

// Calls fn(x_offset, y_offset, length, y_step) for each innermost run of X (row-major), where
// element x_offset + k maps to Y element y_offset + k * y_step (y_step 0: a reduced run).
template <typename Fn>
void ForEachRun(const Walk& w, std::vector<int64_t>* index, Fn&& fn) {
  const int g = static_cast<int>(w.sizes.size());
  const int64_t len = w.sizes[g - 1];
  const int64_t step = w.y_strides[g - 1];
  const int64_t runs = SizeToDim(w.sizes, g - 1);
  index->assign(g, 0);
  int64_t y = 0;
  for (int64_t r = 0; r < runs; ++r) {
    fn(r * len, y, len, step);
    for (int a = g - 2; a >= 0; --a) {
      y += w.y_strides[a];
      if (++(*index)[a] < w.sizes[a]) break;
      y -= w.y_strides[a] * (*index)[a];
      (*index)[a] = 0;
    }
  }
}

template <Reduction kKind>
class ReduceGradientOp final : public Operator {
 public:
  ReduceGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), axes_(Args<int64_t>("axes")), keepdims_(Arg<bool>("keepdims")) {}

  void Run() override {
    shape_util::DispatchFloating(Input(0), label(), InputName(0),
                                 [&](auto zero) { RunTyped<decltype(zero)>(); });
  }

 private:
  static constexpr bool kSelect = kKind == Reduction::kMax || kKind == Reduction::kMin;

  template <typename T>
  void RunTyped() {
    const Tensor& dy = Input(0);
    const Tensor& x = Input(1);
    const Tensor& y = Input(2);
    const ReducePlan plan = PlanReduce(x.dims(), axes_, keepdims_, label());
    ExpectDims(dy, plan.out_dims, label(), InputName(0), "gradient");
    ExpectDims(y, plan.out_dims, label(), InputName(2), "forward output");
    if (kSelect) {
      shape_util::ExpectSameDtype(x, dy.dtype(), label(), InputName(1));
      shape_util::ExpectSameDtype(y, dy.dtype(), label(), InputName(2));
    }
    PlanWalk(x.dims(), plan, &walk_);
    const std::vector<int64_t> x_dims = x.dims();
    Tensor* out = Output(0);
    out->Resize(x_dims);
    T* dx = out->template mutable_data<T>();
    if (out->numel() == 0) return;
    const T* g = dy.data<T>();
    if (!kSelect) {
      const T scale = kKind == Reduction::kMean ? T(1) / static_cast<T>(plan.count) : T(1);
      ForEachRun(walk_, &index_, [&](int64_t xo, int64_t yo, int64_t len, int64_t step) {
        T* d = dx + xo;
        if (step == 0) {
          std::fill(d, d + len, g[yo] * scale);
        } else {
          for (int64_t k = 0; k < len; ++k) d[k] = g[yo + k] * scale;
        }
      });
      return;
    }
    const T* xv = x.data<T>();
    const T* yv = y.data<T>();
    taken_.assign(dy.numel(), 0);
    ForEachRun(walk_, &index_, [&](int64_t xo, int64_t yo, int64_t len, int64_t step) {
      for (int64_t k = 0; k < len; ++k) {
        const int64_t j = yo + k * step;
        const bool first = !taken_[j] && xv[xo + k] == yv[j];
        if (first) taken_[j] = 1;
        dx[xo + k] = first ? g[j] : T(0);
      }
    });
  }

  std::vector<int64_t> axes_;
  bool keepdims_;
  // Scratch kept across runs, so repeated runs do not allocate.
  Walk walk_;
  std::vector<int64_t> index_;
  std::vector<char> taken_;
};

// ReduceProdGradient: dX[i] = dY[g] * (the product of the other elements of i's group g). From the
// group's count of zeros and product of its non-zero elements: no zero, dY * prod / x[i]; one zero,
// dY * prod at that zero and 0 elsewhere; more, 0 everywhere. (Y / x[i] would be 0 / 0 at a zero.)
class ReduceProdGradientOp final : public Operator {
 public:
  ReduceProdGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), axes_(Args<int64_t>("axes")), keepdims_(Arg<bool>("keepdims")) {}

  void Run() override {
    shape_util::DispatchFloating(Input(0), label(), InputName(0),
                                 [&](auto zero) { RunTyped<decltype(zero)>(); });
  }

 private:
  template <typename T>
  void RunTyped() {
    const Tensor& dy = Input(0);
    const Tensor& x = Input(1);
    const ReducePlan plan = PlanReduce(x.dims(), axes_, keepdims_, label());
    ExpectDims(dy, plan.out_dims, label(), InputName(0), "gradient");
    ExpectDims(Input(2), plan.out_dims, label(), InputName(2), "forward output");
    shape_util::ExpectSameDtype(x, dy.dtype(), label(), InputName(1));
    PlanWalk(x.dims(), plan, &walk_);
    const T* xv = x.data<T>();
    const T* g = dy.data<T>();
    std::vector<T> product(dy.numel(), T(1));
    std::vector<int64_t> zeros(dy.numel(), 0);
    ForEachRun(walk_, &index_, [&](int64_t xo, int64_t yo, int64_t len, int64_t step) {
      for (int64_t k = 0; k < len; ++k) {
        const int64_t j = yo + k * step;
        if (xv[xo + k] == T(0)) {
          ++zeros[j];
        } else {
          product[j] *= xv[xo + k];
        }
      }
    });
    std::vector<T> dx(x.numel());
    ForEachRun(walk_, &index_, [&](int64_t xo, int64_t yo, int64_t len, int64_t step) {
      for (int64_t k = 0; k < len; ++k) {
        const int64_t j = yo + k * step;
        const T v = xv[xo + k];
        if (zeros[j] == 0) {
          dx[xo + k] = g[j] * product[j] / v;
        } else {
          dx[xo + k] = zeros[j] == 1 && v == T(0) ? g[j] * product[j] : T(0);
        }
      }
    });
    // Written last: dX may be written over one of the inputs.
    Tensor* out = Output(0);
    out->Resize(x.dims());
    std::copy(dx.begin(), dx.end(), out->template mutable_data<T>());
  }

  std::vector<int64_t> axes_;
  bool keepdims_;
  Walk walk_;
  std::vector<int64_t> index_;
};

OpSchema& ReduceGradientSchema(OpSchema& schema) {
  return schema.NumInputs(3)
      .NumOutputs(1)
      .Apply(reduce_util::ReduceArgs)
      .NotDifferentiable()
      .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                         const std::vector<TensorType>& in) {
        const ReducePlan plan = PlanReduce(in[1].dims, args.GetVector<int64_t>("axes"),
                                           args.Get<bool>("keepdims"), args.op_label());
        PARITY_ENFORCE(in[0].dims == plan.out_dims, ErrorKind::kShapeMismatch, args.op_label(),
                       ": gradient '", def.input(0), "' ", TensorTypeString(in[0]),
                       " must have dims ", ShapeString(plan.out_dims));
        TensorType out = in[1];
        out.dtype = GradDtype(in[0], args, def.input(0));
        return std::vector<TensorType>{out};
      })
      .InputDoc(0, "dY", "Gradient of the reduction's output, float/double.")
      .InputDoc(1, "X", "The reduction's input.")
      .InputDoc(2, "Y", "The reduction's output.")
      .OutputDoc(0, "dX", "Gradient of X.");
}

PARITY_OP_SCHEMA(ReduceSumGradient)
    .Apply(ReduceGradientSchema)
    .Doc("Gradient of ReduceSum: dY broadcast back over the reduced axes.");
PARITY_REGISTER_CPU_OPERATOR(ReduceSumGradient, ReduceGradientOp<Reduction::kSum>);
PARITY_OP_SCHEMA(ReduceMeanGradient)
    .Apply(ReduceGradientSchema)
    .Doc("Gradient of ReduceMean: dY broadcast back over the reduced axes, / group size.");
PARITY_REGISTER_CPU_OPERATOR(ReduceMeanGradient, ReduceGradientOp<Reduction::kMean>);
PARITY_OP_SCHEMA(ReduceMaxGradient)
    .Apply(ReduceGradientSchema)
    .Doc("Gradient of ReduceMax: each group's dY goes to the first element (row-major) equal "
         "to the max; ties after it get 0.");
PARITY_REGISTER_CPU_OPERATOR(ReduceMaxGradient, ReduceGradientOp<Reduction::kMax>);
PARITY_OP_SCHEMA(ReduceMinGradient)
    .Apply(ReduceGradientSchema)
    .Doc("Gradient of ReduceMin: each group's dY goes to the first element (row-major) equal "
         "to the min; ties after it get 0.");
PARITY_REGISTER_CPU_OPERATOR(ReduceMinGradient, ReduceGradientOp<Reduction::kMin>);
PARITY_OP_SCHEMA(ReduceProdGradient)
    .Apply(ReduceGradientSchema)
    .Doc("Gradient of ReduceProd: dY times the product of the other elements of each group.");
PARITY_REGISTER_CPU_OPERATOR(ReduceProdGradient, ReduceProdGradientOp);

// ---------------------------------------------------------------------------------------------
// SumElementsGradient

class SumElementsGradientOp final : public Operator {
 public:
  SumElementsGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), average_(Arg<bool>("average")) {}

  void Run() override {
    const Tensor& dy = Input(1);
    PARITY_ENFORCE(dy.numel() == 1, ErrorKind::kShapeMismatch, label(), ": gradient '",
                   InputName(1), "' must hold one element (SumElements outputs a scalar), got ",
                   dy.DebugString());
    shape_util::DispatchFloating(dy, label(), InputName(1), [&](auto zero) {
      using T = decltype(zero);
      const std::vector<int64_t> x_dims = Input(0).dims();
      T value = dy.data<T>()[0];
      if (average_) value /= static_cast<T>(SizeFromDim(x_dims, 0));
      Tensor* dx = Output(0);
      dx->Resize(x_dims);
      T* out = dx->template mutable_data<T>();
      std::fill(out, out + dx->numel(), value);
    });
  }

 private:
  bool average_;
};

PARITY_OP_SCHEMA(SumElementsGradient)
    .NumInputs(2)
    .NumOutputs(1)
    .Arg("average", ArgType::kInt, int64_t{0}, "SumElements' average (copied): divide by numel.")
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      TensorType out = in[0];
      out.dtype = GradDtype(in[1], args, def.input(1));
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "X", "SumElements' input (read for its dims).")
    .InputDoc(1, "dY", "Scalar gradient of the sum, float/double.")
    .OutputDoc(0, "dX", "dY (or dY / numel with average=1) everywhere, dims of X.")
    .Doc("Gradient of SumElements.");
PARITY_REGISTER_CPU_OPERATOR(SumElementsGradient, SumElementsGradientOp);

// ---------------------------------------------------------------------------------------------
// SoftmaxGradient

class SoftmaxGradientOp final : public Operator {
 public:
  SoftmaxGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), axis_(Arg<int64_t>("axis")) {}

  void Run() override {
    const Tensor& y = Input(0);
    const Tensor& dy = Input(1);
    PARITY_ENFORCE(y.dims() == dy.dims() && y.dtype() == dy.dtype(), ErrorKind::kShapeMismatch,
                   label(), ": Y '", InputName(0), "' ", y.DebugString(), " and dY '",
                   InputName(1), "' ", dy.DebugString(), " must have the same dtype and dims");
    const int axis = reduce_util::SoftmaxAxis(axis_, y.dims(), label());
    shape_util::DispatchFloating(dy, label(), InputName(1), [&](auto zero) {
      using T = decltype(zero);
      const int64_t n = SizeToDim(y.dims(), axis);
      const int64_t d = SizeFromDim(y.dims(), axis);
      const T* yv = y.data<T>();
      const T* g = dy.data<T>();
      Tensor* dx = Output(0);
      dx->Resize(y.dims());
      T* out = dx->template mutable_data<T>();
      if (d == 0) return;
      for (int64_t i = 0; i < n; ++i) {
        ConstArrayMap<T> yr(yv + i * d, d);
        ConstArrayMap<T> gr(g + i * d, d);
        const T dot = (yr * gr).sum();
        ArrayMap<T>(out + i * d, d) = yr * (gr - dot);
      }
    });
  }

 private:
  int64_t axis_;
};

PARITY_OP_SCHEMA(SoftmaxGradient)
    .NumInputs(2)
    .NumOutputs(1)
    .AllowInplace({{1, 0}})
    .Arg("axis", ArgType::kInt, int64_t{1}, "Softmax's axis (copied from the forward op).")
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      reduce_util::SoftmaxAxis(args.Get<int64_t>("axis"), in[0].dims, args.op_label());
      PARITY_ENFORCE(in[0].dims == in[1].dims, ErrorKind::kShapeMismatch, args.op_label(),
                     ": Y ", TensorTypeString(in[0]), " and dY ", TensorTypeString(in[1]),
                     " must have the same dims");
      TensorType out = in[0];
      out.dtype = GradDtype(in[1], args, def.input(1));
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "Y", "Softmax's output.")
    .InputDoc(1, "dY", "Gradient of Softmax's output (may share dX's blob).")
    .OutputDoc(0, "dX", "Y * (dY - sum(dY * Y)) over each row of the 2-D view.")
    .Doc("Gradient of Softmax.");
PARITY_REGISTER_CPU_OPERATOR(SoftmaxGradient, SoftmaxGradientOp);

}  // namespace
}  // namespace parity

// Reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, SumElements, Softmax.
// Caffe2 semantics (caffe2/operators/reduce_ops.h, utility_ops.h, softmax_op.cc), newer pytorch
// tree; ReduceProd is ONNX's (Caffe2 had none), with the same axes / keepdims rules.
//
// Reduce*: `axes` (default: all) are canonicalized (negative allowed) and deduplicated; keepdims=1
// keeps reduced axes as size 1. Sum/Max/Min take float, double, int32, int64; Mean and Prod
// float/double (an integer product overflows within a few elements). An empty reduction gives 0
// for Sum, 1 for Prod and NaN (0/0) for Mean; Max/Min over an empty axis give their identity,
// -inf/+inf for floats and the lowest/highest value for integers (ONNX's ReduceMax/ReduceMin from
// opset 18, numpy's `initial`; Caffe2 started from lowest()/max() for floats too, a value that
// differs between f32 and f64, so no engine could be compared with it). Max/Min propagate NaN
// (Caffe2's Eigen maxCoeff dropped a NaN unless it started an accumulator, which depends on the
// row's alignment).
//
// The kernel merges adjacent reduced (or kept) axes and reduces one merged axis at a time as an
// [outer, r, inner] pass with Eigen over contiguous rows: a plain row reduction when inner == 1,
// otherwise an accumulation of whole rows of length inner.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/ops/reduce/reduce.h"

#include "core/operator.h"
#include "core/ops/common/avx2_exp.h"
#include "core/ops/common/eigen_maps.h"
#include "core/ops/common/elementwise.h"
#include "core/ops/common/shape_util.h"
#include "core/ops/common/simd_kernels.h"
#include "core/ops/common/size_paths.h"
#include "core/parallel.h"
#include "core/schema.h"

namespace parity {
namespace reduce_util {

ReducePlan PlanReduce(const std::vector<int64_t>& dims, const std::vector<int64_t>& axes,
                      bool keepdims, const std::string& label) {
  const int rank = static_cast<int>(dims.size());
  ReducePlan plan;
  plan.reduced.assign(rank, axes.empty());
  for (int64_t axis : axes) {
    plan.reduced[shape_util::CanonicalAxis(axis, rank, label, "'axes' entry", dims)] = true;
  }
  for (int i = 0; i < rank; ++i) {
    if (plan.reduced[i]) {
      plan.count *= dims[i];
      if (keepdims) plan.out_dims.push_back(1);
    } else {
      plan.out_dims.push_back(dims[i]);
    }
  }
  return plan;
}

OpSchema& ReduceArgs(OpSchema& schema) {
  return schema
      .Arg("axes", ArgType::kInts, std::vector<int64_t>{},
           "Axes to reduce (negative counts from the end); default all.")
      .Arg("keepdims", ArgType::kInt, int64_t{1}, "If 1, reduced axes stay as size-1 dims.");
}

int SoftmaxAxis(int64_t axis, const std::vector<int64_t>& dims, const std::string& label) {
  return shape_util::CanonicalAxis(axis, static_cast<int>(dims.size()), label, "axis", dims);
}

}  // namespace reduce_util

namespace {

using reduce_util::PlanReduce;
using reduce_util::ReducePlan;

using shape_util::CanonicalAxis;
using shape_util::SizeFromDim;
using shape_util::SizeToDim;

enum class Reduction { kSum, kMean, kMax, kMin, kProd };

// The max (or min) of nothing: the identity of the reduction, -inf (+inf) where T has infinities,
// else T's lowest (highest) value.
template <typename T>
T EmptyExtremum(bool max) {
  if constexpr (std::numeric_limits<T>::has_infinity) {
    return max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  } else {
    return max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
}

// Rows [o_begin, o_end) of one pass, and of those only the columns [c_begin, c_end) when
// inner > 1: x is [outer, r, inner], y is [outer, inner].
template <typename T>
void ReduceRows(Reduction kind, const T* x, T* y, int64_t o_begin, int64_t o_end, int64_t r,
                int64_t inner, int64_t c_begin, int64_t c_end) {
  for (int64_t o = o_begin; o < o_end; ++o) {
    const T* xo = x + o * r * inner;
    if (inner == 1) {
      ConstArrayMap<T> row(xo, r);
      switch (kind) {
        case Reduction::kSum:
        case Reduction::kMean:
          if constexpr (std::is_same_v<T, float>) {
            // Eight lanes, four accumulators where the CPU has AVX2 (Eigen's sum takes 4 at once
            // with one accumulator here); one fixed order per row, as before.
            if (simd::Available()) {
              y[o] = simd::RowSum(xo, r);
              break;
            }
          }
          y[o] = IndexOrderedSum<T>(r, [xo](int64_t j) { return xo[j]; });
          break;
        // NaN propagates (numpy, PyTorch, ONNX; the reference): Eigen's default max / min keep
        // a NaN only where it happens to start an accumulator.
        case Reduction::kMax: y[o] = row.template maxCoeff<Eigen::PropagateNaN>(); break;
        case Reduction::kMin: y[o] = row.template minCoeff<Eigen::PropagateNaN>(); break;
        case Reduction::kProd:
          y[o] = IndexOrderedProduct<T>(r, [xo](int64_t j) { return xo[j]; });
          break;
      }
      continue;
    }
    const int64_t width = c_end - c_begin;
    ArrayMap<T> acc(y + o * inner + c_begin, width);
    if (r == 0) {
      acc.setConstant(kind == Reduction::kProd ? T(1) : T(0));
      continue;
    }
    if constexpr (std::is_same_v<T, float>) {
      // Four rows per sweep of the accumulator, eight lanes: the same adds in the same order as
      // below (so the same bits), at half the time (1024 x 1024 down the columns, one thread).
      if ((kind == Reduction::kSum || kind == Reduction::kMean) && simd::Available()) {
        simd::ColumnSum(xo + c_begin, r, inner, y + o * inner + c_begin, width);
        continue;
      }
    }
    acc = ConstArrayMap<T>(xo + c_begin, width);
    for (int64_t j = 1; j < r; ++j) {
      ConstArrayMap<T> row(xo + j * inner + c_begin, width);
      switch (kind) {
        case Reduction::kSum:
        case Reduction::kMean: acc += row; break;
        case Reduction::kMax: acc = acc.binaryExpr(row, elementwise::MaxNaN<T>()); break;
        case Reduction::kMin: acc = acc.binaryExpr(row, elementwise::MinNaN<T>()); break;
        case Reduction::kProd: acc *= row; break;
      }
    }
  }
}

// One pass: x is [outer, r, inner], y is [outer, inner]. Large passes are split across threads
// over the kept dims only (rows of the output, or columns of a row when there are few rows), so
// every output element is still reduced by one thread in the same order as on one thread: the
// result is bit-identical for any thread count.
template <typename T>
void ReducePass(Reduction kind, const T* x, T* y, int64_t outer, int64_t r, int64_t inner) {
  const int64_t work_per_row = std::max<int64_t>(1, r) * inner;
  if (inner == 1 || outer >= 2 * ParallelThreads() ||
      outer * work_per_row < 2 * ParallelMinWork()) {
    ParallelFor(0, outer, GrainFor(work_per_row), [&](int64_t begin, int64_t end) {
      ReduceRows(kind, x, y, begin, end, r, inner, 0, inner);
    });
    return;
  }
  // Few long rows (a reduction over a leading axis): split each row's columns, at 64-byte
  // boundaries of y so Eigen handles every column as the whole row would.
  for (int64_t o = 0; o < outer; ++o) {
    elementwise::ParallelElementwise(y + o * inner, inner, std::max<int64_t>(1, r),
                                     [&](int64_t begin, int64_t end) {
                                       ReduceRows(kind, x, y, o, o + 1, r, inner, begin, end);
                                     });
  }
}

template <Reduction kKind>
class ReduceOp final : public Operator {
 public:
  ReduceOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), axes_(Args<int64_t>("axes")), keepdims_(Arg<bool>("keepdims")) {}

  void Run() override {
    const Tensor& in = Input(0);
    const ReducePlan plan = PlanReduce(in.dims(), axes_, keepdims_, label());
    const int64_t out_numel = SizeFromDim(plan.out_dims, 0);
    auto body = [&](auto zero) {
      using T = decltype(zero);
      Tensor* out = Output(0);
      out->Resize(plan.out_dims);
      T* y = out->template mutable_data<T>();
      if (out_numel == 0) return;
      if (plan.count == 0 && (kKind == Reduction::kMax || kKind == Reduction::kMin)) {
        std::fill(y, y + out_numel, EmptyExtremum<T>(kKind == Reduction::kMax));
        return;
      }
      Compute<T>(in.data<T>(), y, in.dims(), plan);
      if (kKind == Reduction::kMean) {
        elementwise::ParallelElementwise(y, out_numel, 1, [&](int64_t begin, int64_t end) {
          ArrayMap<T>(y + begin, end - begin) /= static_cast<T>(plan.count);
        });
      }
    };
    if (kKind == Reduction::kMean || kKind == Reduction::kProd) {
      shape_util::DispatchFloating(in, label(), InputName(0), body);
    } else {
      switch (in.dtype()) {
        case DataType::kFloat: body(float{}); break;
        case DataType::kDouble: body(double{}); break;
        case DataType::kInt32: body(int32_t{}); break;
        case DataType::kInt64: body(int64_t{}); break;
        default:
          throw MakeError(ErrorKind::kShapeMismatch, label(), ": input '", InputName(0),
                          "' must be float, double, int32 or int64, got ", in.DebugString());
      }
    }
  }

 private:
  // Merges runs of reduced / kept axes, then reduces the merged reduced axes last to first,
  // ping-ponging between two scratch buffers and writing the last pass into y.
  template <typename T>
  void Compute(const T* x, T* y, const std::vector<int64_t>& dims, const ReducePlan& plan) {
    std::vector<int64_t> sizes;
    std::vector<bool> kinds;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (!sizes.empty() && kinds.back() == plan.reduced[i]) {
        sizes.back() *= dims[i];
      } else {
        sizes.push_back(dims[i]);
        kinds.push_back(plan.reduced[i]);
      }
    }
    int passes = static_cast<int>(std::count(kinds.begin(), kinds.end(), true));
    if (passes == 0) {  // Nothing reduced (e.g. a scalar input): a copy.
      std::copy(x, x + SizeFromDim(dims, 0), y);
      return;
    }
    const T* src = x;
    for (int g = static_cast<int>(sizes.size()) - 1; g >= 0; --g) {
      if (!kinds[g]) continue;
      const int64_t outer = SizeToDim(sizes, g);
      const int64_t inner = SizeFromDim(sizes, g + 1);
      T* dst = y;
      if (--passes > 0) {
        std::vector<char>& buf = (src == reinterpret_cast<const T*>(scratch_[0].data()))
                                     ? scratch_[1]
                                     : scratch_[0];
        buf.resize(static_cast<size_t>(outer * inner) * sizeof(T));
        dst = reinterpret_cast<T*>(buf.data());
      }
      ReducePass<T>(kKind, src, dst, outer, sizes[g], inner);
      sizes[g] = 1;
      src = dst;
    }
  }

  std::vector<int64_t> axes_;
  bool keepdims_;
  std::vector<char> scratch_[2];  // Kept across runs so repeated runs do not allocate.
};

OpSchema& ReduceSchema(OpSchema& schema) {
  return schema.NumInputs(1)
      .NumOutputs(1)
      .Apply(reduce_util::ReduceArgs)
      .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                         const std::vector<TensorType>& in) {
        TensorType out = in[0];
        out.dims = PlanReduce(in[0].dims, args.GetVector<int64_t>("axes"),
                              args.Get<bool>("keepdims"), args.op_label())
                       .out_dims;
        return std::vector<TensorType>{out};
      })
      .InputDoc(0, "data", "The tensor to reduce.")
      .OutputDoc(0, "reduced", "The reduction over `axes`.");
}

PARITY_OP_SCHEMA(ReduceSum)
    .Apply(ReduceSchema)
    .Doc("Sum over `axes` (float, double, int32, int64); 0 over an empty axis.");
PARITY_REGISTER_CPU_OPERATOR(ReduceSum, ReduceOp<Reduction::kSum>);
PARITY_OP_SCHEMA(ReduceMean)
    .Apply(ReduceSchema)
    .Doc("Mean over `axes` (float, double); NaN over an empty axis.");
PARITY_REGISTER_CPU_OPERATOR(ReduceMean, ReduceOp<Reduction::kMean>);
PARITY_OP_SCHEMA(ReduceMax)
    .Apply(ReduceSchema)
    .Doc("Maximum over `axes` (float, double, int32, int64); -inf (an integer's lowest) over an "
         "empty axis.");
PARITY_REGISTER_CPU_OPERATOR(ReduceMax, ReduceOp<Reduction::kMax>);
PARITY_OP_SCHEMA(ReduceMin)
    .Apply(ReduceSchema)
    .Doc("Minimum over `axes` (float, double, int32, int64); +inf (an integer's highest) over an "
         "empty axis.");
PARITY_REGISTER_CPU_OPERATOR(ReduceMin, ReduceOp<Reduction::kMin>);
PARITY_OP_SCHEMA(ReduceProd)
    .Apply(ReduceSchema)
    .Doc("Product over `axes` (float, double; ONNX's ReduceProd); 1 over an empty axis.");
PARITY_REGISTER_CPU_OPERATOR(ReduceProd, ReduceOp<Reduction::kProd>);

// ---------------------------------------------------------------------------------------------
// SumElements: a scalar (dims []) of the input's dtype.

class SumElementsOp final : public Operator {
 public:
  SumElementsOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), average_(Arg<bool>("average")) {}

  void Run() override {
    const Tensor& in = Input(0);
    auto body = [&](auto zero) {
      using T = decltype(zero);
      const T* data = in.data<T>();
      T sum = IndexOrderedSum<T>(in.numel(), [data](int64_t j) { return data[j]; });
      Tensor* out = Output(0);
      out->Resize({});
      if (average_) sum /= static_cast<T>(in.numel());  // 0/0 = NaN for an empty input.
      out->template mutable_data<T>()[0] = sum;
    };
    switch (in.dtype()) {
      case DataType::kFloat: body(float{}); return;
      case DataType::kDouble: body(double{}); return;
      case DataType::kInt32:
      case DataType::kInt64:
        PARITY_ENFORCE(!average_, ErrorKind::kShapeMismatch, label(),
                       ": average=1 needs a float or double input, got ", in.DebugString());
        if (in.dtype() == DataType::kInt32) {
          body(int32_t{});
        } else {
          body(int64_t{});
        }
        return;
      default:
        throw MakeError(ErrorKind::kShapeMismatch, label(), ": input '", InputName(0),
                        "' must be float, double, int32 or int64, got ", in.DebugString());
    }
  }

 private:
  bool average_;
};

PARITY_OP_SCHEMA(SumElements)
    .NumInputs(1)
    .NumOutputs(1)
    .Arg("average", ArgType::kInt, int64_t{0}, "If 1, divide the sum by the element count.")
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper&,
                       const std::vector<TensorType>& in) {
      TensorType out;
      out.dtype = in[0].dtype;
      return std::vector<TensorType>{out};
    })
    .InputDoc(0, "X", "Any float/double (or int32/int64 without average) tensor.")
    .OutputDoc(0, "sum", "Scalar (dims []): the sum, or the mean with average=1.")
    .Doc("Sums all elements into a scalar (the mean with average=1).");
PARITY_REGISTER_CPU_OPERATOR(SumElements, SumElementsOp);

// ---------------------------------------------------------------------------------------------
// Softmax: the input is seen as [N, D] with N = prod(dims[:axis]); each row gets
// exp(x - max(x)) / sum(exp(x - max(x))), the max subtracted for stability.

// Rows are split across threads (each row by one thread, as on one thread: bit-identical). Float
// rows on CPUs with AVX2 + FMA take exp and the sum 8 wide (ExpShiftedAvx2, avx2_exp.h): Eigen's
// SSE2 exp made Softmax about 3x slower than PyTorch's.
template <typename T>
void SoftmaxRows(const T* x, T* y, int64_t n, int64_t d) {
  if (d == 0) return;
  ParallelFor(0, n, GrainFor(d), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      ConstArrayMap<T> xr(x + i * d, d);
      ArrayMap<T> yr(y + i * d, d);
      const T m = xr.maxCoeff();
#ifdef PARITY_AVX2_EXP
      if constexpr (std::is_same_v<T, float>) {
        if (UseAvx2Fma()) {
          yr /= ExpShiftedAvx2(x + i * d, m, y + i * d, d);
          continue;
        }
      }
#endif
      const T* xi = x + i * d;
      T* yi = y + i * d;
      AssignIndexAligned<T>(yi, d, [xi, m](int64_t b, int64_t len) {
        return (ConstArrayMap<T>(xi + b, len) - m).exp();
      });
      yr /= IndexOrderedSum<T>(d, [yi](int64_t j) { return yi[j]; });
    }
  });
}

class SoftmaxOp final : public Operator {
 public:
  SoftmaxOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), axis_(Arg<int64_t>("axis")) {}

  void Run() override {
    const Tensor& in = Input(0);
    const int axis = CanonicalAxis(axis_, in.ndim(), label(), "axis", in.dims());
    shape_util::DispatchFloating(in, label(), InputName(0), [&](auto zero) {
      using T = decltype(zero);
      Tensor* out = Output(0);
      out->Resize(in.dims());
      T* y = out->template mutable_data<T>();
      SoftmaxRows<T>(in.data<T>(), y, SizeToDim(in.dims(), axis), SizeFromDim(in.dims(), axis));
    });
  }

 private:
  int64_t axis_;
};

PARITY_OP_SCHEMA(Softmax)
    .NumInputs(1)
    .NumOutputs(1)
    .Arg("axis", ArgType::kInt, int64_t{1},
         "The input is coerced to 2-D [prod(dims[:axis]), prod(dims[axis:])]; negative allowed.")
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      CanonicalAxis(args.Get<int64_t>("axis"), static_cast<int>(in[0].dims.size()),
                    args.op_label(), "axis", in[0].dims);
      return std::vector<TensorType>{in[0]};
    })
    .InputDoc(0, "input", "float/double tensor.")
    .OutputDoc(0, "output", "Softmax over each row of the 2-D view; same dims as the input.")
    .Doc("Softmax of the input coerced to 2-D at `axis` (Caffe2), numerically stable.");
PARITY_REGISTER_CPU_OPERATOR(Softmax, SoftmaxOp);
#ifdef PARITY_AVX2_EXP
// Reducing the trailing axes sums contiguous rows with simd::RowSum (32 floats per step, then 8,
// then a scalar tail): the measure is the row length, the product of the reduced trailing dims
// (all dims when `axes` is absent); -1 when the reduced axes are not a suffix.
int64_t ReducedRowLength(const caffe2::OperatorDef& def, const InputDims& in) {
  if (in.empty()) return -1;
  const int64_t rank = static_cast<int64_t>(in[0].size());
  std::vector<bool> reduced(rank, true);
  for (const auto& arg : def.arg()) {
    if (arg.name() != "axes") continue;
    reduced.assign(rank, false);
    for (int64_t axis : arg.ints()) {
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank) return -1;
      reduced[axis] = true;
    }
  }
  int64_t row = 1;
  bool in_suffix = true;
  for (int64_t i = rank - 1; i >= 0; --i) {
    if (reduced[i] && !in_suffix) return -1;  // a reduced axis before a kept one
    if (!reduced[i]) in_suffix = false;
    if (reduced[i]) row *= in[0][i];
  }
  return row;
}
PARITY_SIZE_PATH(ReduceSum, "AVX2 row sum, 32 floats per step", 32, 32, ReducedRowLength);
PARITY_SIZE_PATH(ReduceMean, "AVX2 row sum, 32 floats per step", 32, 32, ReducedRowLength);

// The row length at `axis` (default 1): Exp8 and the sum take 8 of a row at a time.
PARITY_SIZE_PATH(Softmax, "AVX2 + FMA exp and sum over 8 floats of each row, tail padded to 8", 8,
                 8, [](const caffe2::OperatorDef& def, const InputDims& in) -> int64_t {
                   if (in.empty()) return -1;
                   int64_t axis = 1;
                   for (const auto& arg : def.arg()) {
                     if (arg.name() == "axis" && arg.has_i()) axis = arg.i();
                   }
                   const int64_t rank = static_cast<int64_t>(in[0].size());
                   if (axis < 0) axis += rank;
                   if (axis < 0 || axis >= rank) return -1;
                   int64_t row = 1;
                   for (int64_t i = axis; i < rank; ++i) row *= in[0][i];
                   return row;
                 });
#endif

}  // namespace
}  // namespace parity

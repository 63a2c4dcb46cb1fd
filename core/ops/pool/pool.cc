// MaxPool and AveragePool: 2-D pooling, NCHW, float and double (MaxPool also int8 and uint8, as
// ONNX's: a maximum needs no arithmetic), after Caffe2's pool_op.h / .cc
// (the newer version with count_include_pad). Geometry arguments and output size:
// conv_geometry.h; each pad must be smaller than the kernel, and with a dilation (taps every
// dilation-th element, as ONNX's MaxPool / AveragePool `dilations`; Caffe2 pools took none) every
// window must still cover an input element. With global_pooling the window is the whole H x W image
// and the output is [N, C, 1, 1].
//
// Window of output (oh, ow): rows oh * stride_h - pad_t + k * dilation_h, k in [0, kernel_h), and
// columns likewise, clipped to the image; padding never contributes a value.
//   - MaxPool: the largest element of the window. Ties: the value is the same whichever wins, but
//     the winner is defined for the gradient: the FIRST maximal element in scan order (row by row,
//     left to right), since the scan replaces the running maximum only on a strictly greater value.
//     NaN: comparisons with NaN are false, so a NaN is the result only when it is the window's
//     first element (Caffe2 starts from the lowest float instead and never returns a NaN).
//   - AveragePool: the window's sum times 1 / count, count being the clipped window's size
//     (count_include_pad = false, Caffe2's default) or kernel_h * kernel_w (true: the padding
//     counts as zeros). Caffe2 scales by the reciprocal too, so results match it to the last bit
//     save for summation order.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/ops/common/conv_geometry.h"
#include "core/ops/common/gemm.h"
#include "core/ops/pool/pool.h"
#include "core/operator.h"
#include "core/parallel.h"
#include "core/schema.h"

namespace parity {
namespace {

// Visits every window of every [H, W] plane of x: fn(plane, window) returns the output. Planes are
// independent, so they are split among the compute threads (ParallelFor, core/parallel.h); each
// output is computed by the same code whatever the split, so results are bit-identical across
// thread counts.
template <typename T, typename Fn>
void ForEachWindow(const T* x, int64_t planes, int64_t H, int64_t W, const ConvGeometry& g,
                   int64_t out_h, int64_t out_w, T* y, const Fn& fn) {
  const PoolPlan plan(g, H, W, out_h, out_w);
  ParallelFor(0, planes, GrainFor(PoolPlaneWork(g, H, W, out_h, out_w)),
              [&](int64_t first, int64_t last) {
                for (int64_t p = first; p < last; ++p) {
                  const T* plane = x + p * H * W;
                  T* out = y + p * out_h * out_w;
                  for (int64_t oh = 0; oh < out_h; ++oh) {
                    for (int64_t ow = 0; ow < out_w; ++ow) {
                      out[oh * out_w + ow] = fn(plane, plan.Window(oh, ow));
                    }
                  }
                }
              });
}

template <typename T>
void MaxPool(const T* x, int64_t planes, int64_t H, int64_t W, const ConvGeometry& g,
             int64_t out_h, int64_t out_w, T* y) {
  // The value of the first maximum in scan order (WindowMax, pool.h): that of the element
  // MaxPoolGradient credits (WindowArgMax).
  ForEachWindow(x, planes, H, W, g, out_h, out_w, y, [W](const T* plane, const PoolWindow& win) {
    return WindowMax(plane, W, win);
  });
}

// MaxPool with its optional second output: indices[i] is the flat index in X (N * C * H * W,
// row-major: plane * H * W + h * W + w) of the element y[i] holds, the one WindowArgMax picks
// (ONNX's MaxPool Indices with storage_order 0; padding is never an index).
template <typename T>
void MaxPoolWithIndices(const T* x, int64_t planes, int64_t H, int64_t W, const ConvGeometry& g,
                        int64_t out_h, int64_t out_w, T* y, int64_t* indices) {
  const PoolPlan plan(g, H, W, out_h, out_w);
  ParallelFor(0, planes, GrainFor(PoolPlaneWork(g, H, W, out_h, out_w)),
              [&](int64_t first, int64_t last) {
                for (int64_t p = first; p < last; ++p) {
                  const T* plane = x + p * H * W;
                  const int64_t o = p * out_h * out_w;
                  for (int64_t i = 0; i < out_h * out_w; ++i) {
                    const int64_t k = WindowArgMax(plane, W, plan.Window(i / out_w, i % out_w));
                    y[o + i] = plane[k];
                    indices[o + i] = p * H * W + k;
                  }
                }
              });
}

template <typename T>
void AveragePool(const T* x, int64_t planes, int64_t H, int64_t W, const ConvGeometry& g,
                 int64_t out_h, int64_t out_w, bool count_include_pad, T* y) {
  ForEachWindow(x, planes, H, W, g, out_h, out_w, y,
                [&g, W, count_include_pad](const T* plane, const PoolWindow& win) {
                  T sum = 0;
                  for (int64_t h = win.h_begin; h < win.h_end; h += win.h_step) {
                    const T* row = plane + h * W;
                    for (int64_t w = win.w_begin; w < win.w_end; w += win.w_step) sum += row[w];
                  }
                  return sum * (T(1) / static_cast<T>(AverageCount(g, count_include_pad, win)));
                });
}

// Calls fn(T{}) for the dtypes the pool computes in: float and double, and for MaxPool int8 and
// uint8; kShapeMismatch naming the op and X otherwise.
template <bool kAverage, typename Fn>
void DispatchPoolType(DataType dtype, const std::string& label, const std::vector<int64_t>& dims,
                      Fn&& fn) {
  if constexpr (!kAverage) {
    if (dtype == DataType::kInt8) return fn(int8_t{});
    if (dtype == DataType::kUint8) return fn(uint8_t{});
    PARITY_ENFORCE(IsFloatingDataType(dtype) && dtype != DataType::kFloat16,
                   ErrorKind::kShapeMismatch, label,
                   ": takes float, double, int8 or uint8 tensors, got X ", DataTypeName(dtype),
                   " ", ShapeString(dims));
  }
  DispatchFloatOrDouble(dtype, label, "X", dims, fn);
}

template <bool kAverage>
class PoolOp final : public Operator {
 public:
  PoolOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        geometry_(ParseConvGeometry(args(), ConvKind::kPool)),
        count_include_pad_(kAverage && Arg<bool>("count_include_pad")) {}

  void Run() override {
    const Tensor& X = Input(0);
    ConvGeometry g = geometry_;  // global pooling sets the kernel from X
    ConvOutputDims(label(), X.dims(), X.ndim() > 1 ? X.dim(1) : 0, &g, &y_dims_);
    EnforceWindowsCoverInput(label(), g, X.dim(2), X.dim(3), y_dims_[2], y_dims_[3]);
    Tensor* Y = Output(0);
    Y->Resize(y_dims_);
    Tensor* indices = nullptr;
    if (OutputSize() == 2) {
      indices = Output(1);
      indices->Resize(y_dims_);
    }
    DispatchPoolType<kAverage>(X.dtype(), label(), X.dims(), [&](auto zero) {
      using T = decltype(zero);
      const T* x = X.data<T>();
      T* y = Y->mutable_data<T>();
      const int64_t planes = X.dim(0) * X.dim(1);
      if constexpr (kAverage) {
        AveragePool(x, planes, X.dim(2), X.dim(3), g, Y->dim(2), Y->dim(3), count_include_pad_, y);
      } else if (indices != nullptr) {
        MaxPoolWithIndices(x, planes, X.dim(2), X.dim(3), g, Y->dim(2), Y->dim(3), y,
                           indices->mutable_data<int64_t>());
      } else {
        MaxPool(x, planes, X.dim(2), X.dim(3), g, Y->dim(2), Y->dim(3), y);
      }
    });
  }

 private:
  const ConvGeometry geometry_;
  const bool count_include_pad_;
  std::vector<int64_t> y_dims_;
};

template <bool kAverage>
std::vector<TensorType> PoolInference(const caffe2::OperatorDef& def, const ArgumentHelper& args,
                                      const std::vector<TensorType>& in) {
  ConvGeometry g = ParseConvGeometry(args, ConvKind::kPool);
  TensorType y;
  y.dtype = in[0].dtype;
  ConvOutputDims(args.op_label(), in[0].dims, in[0].dims.size() > 1 ? in[0].dims[1] : 0, &g,
                 &y.dims);
  EnforceWindowsCoverInput(args.op_label(), g, in[0].dims[2], in[0].dims[3], y.dims[2], y.dims[3]);
  DispatchPoolType<kAverage>(in[0].dtype, args.op_label(), in[0].dims, [](auto) {});
  if (def.output_size() == 2) return {y, TensorType{DataType::kInt64, y.dims}};
  return {y};
}

}  // namespace

OpSchema& PoolArgs(OpSchema& schema) {
  return schema.Apply(ConvGeometryArgs)
      .Arg("global_pooling", ArgType::kInt, int64_t{0},
           "1: pool over the whole H x W image (output [N, C, 1, 1]); kernel is ignored and "
           "pads/stride must not be set.");
}

OpSchema& CountIncludePadArg(OpSchema& schema) {
  return schema.Arg("count_include_pad", ArgType::kInt, int64_t{0},
                    "0 (Caffe2's default): divide by the number of input elements in the window; "
                    "1: by kernel_h * kernel_w, counting the padding as zeros.");
}

namespace {

OpSchema& PoolSchema(OpSchema& schema) {
  return schema.NumInputs(1)
      .NumOutputs(1)
      .Apply(PoolArgs)
      .DifferentiableInputs({0})
      .InputDoc(0, "X", "Input [N, C, H, W]: float or double (MaxPool also int8, uint8).")
      .OutputDoc(0, "Y", "Output [N, C, out_h, out_w].");
}

PARITY_OP_SCHEMA(MaxPool)
    .Apply(PoolSchema)
    .NumOutputs(1, 2)
    .ShapeInference(PoolInference<false>)
    .OutputDoc(1, "Indices",
               "Optional, int64 [N, C, out_h, out_w]: the flat row-major index in X (over "
               "N * C * H * W) of each output's element (ONNX's MaxPool Indices, storage_order "
               "0).")
    .Doc("2-D max pooling (NCHW). Padding never wins; among equal maxima the first in scan "
         "order (row-major within the window) is the one selected (for the gradient, and the "
         "optional Indices output).");
PARITY_REGISTER_CPU_OPERATOR(MaxPool, PoolOp<false>);

PARITY_OP_SCHEMA(AveragePool)
    .Apply(PoolSchema)
    .ShapeInference(PoolInference<true>)
    .Apply(CountIncludePadArg)
    .Doc("2-D average pooling (NCHW) over each window clipped to the image.");
PARITY_REGISTER_CPU_OPERATOR(AveragePool, PoolOp<true>);

}  // namespace
}  // namespace parity

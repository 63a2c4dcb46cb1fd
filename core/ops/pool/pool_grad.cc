// MaxPoolGradient and AveragePoolGradient (2-D, NCHW, float and double), after Caffe2's
// PoolGradientOp (pool_gradient_op.cc). The makers (core/ops/pool/makers.cc) emit
//
//   MaxPoolGradient / AveragePoolGradient (X, Y, dY) -> dX
//
// with the forward op's geometry, `global_pooling` (and `count_include_pad`) copied on. dX has X's
// dims and starts at zero; each output position (oh, ow) of each plane then adds its dY:
//   - MaxPoolGradient: all of dY to ONE element of the window, the first maximum in scan order
//     (row by row, left to right), found in X by WindowArgMax (pool.h), the very function MaxPool
//     takes its value from, so the credited element is always the one the forward chose. Among
//     tied maxima only the first gets the gradient (Caffe2's CPU kernel compares X == Y and credits
//     every tie; a subgradient either way, but parity's is the derivative of what MaxPool
//     computes: the first maximum's value). Y is checked for shape only.
//   - AveragePoolGradient: dY / count to every element of the clipped window, count being the
//     forward's divisor (the clipped window's size, or kernel_h * kernel_w with
//     count_include_pad); as the forward does, dY is multiplied by the reciprocal.
// Windows that overlap (stride < kernel) add up. Only the plan (a pair of taps per output row and
// column) is allocated per run.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/operator.h"
#include "core/parallel.h"
#include "core/ops/common/conv_geometry.h"
#include "core/ops/common/gemm.h"
#include "core/ops/pool/pool.h"
#include "core/schema.h"

namespace parity {

void PoolGradientShape(const std::string& label, const std::vector<int64_t>& x,
                       const std::vector<int64_t>& y, const std::vector<int64_t>& dy,
                       ConvGeometry* g, std::vector<int64_t>* y_dims) {
  ConvOutputDims(label, x, x.size() > 1 ? x[1] : 0, g, y_dims);
  EnforceWindowsCoverInput(label, *g, x[2], x[3], (*y_dims)[2], (*y_dims)[3]);
  PARITY_ENFORCE(y == *y_dims, ErrorKind::kShapeMismatch, label, ": Y ", ShapeString(y),
                 " should have the forward output's dims ", ShapeString(*y_dims), " (X ",
                 ShapeString(x), ")");
  PARITY_ENFORCE(dy == *y_dims, ErrorKind::kShapeMismatch, label, ": dY ", ShapeString(dy),
                 " should have the forward output's dims ", ShapeString(*y_dims), " (X ",
                 ShapeString(x), ")");
}

namespace {

void EnforcePoolGradientDtypes(const std::string& label, const std::vector<TensorType>& in) {
  DispatchFloatOrDouble(in[0].dtype, label, "X", in[0].dims, [](auto) {});
  EnforceSameDtype(label, "X", in[0].dtype, "Y", in[1].dtype, in[1].dims);
  EnforceSameDtype(label, "X", in[0].dtype, "dY", in[2].dtype, in[2].dims);
}

// Both backward kernels zero dX and accumulate plane by plane; planes are independent, so they
// are split among the compute threads (ParallelFor), and within a plane the windows add up in
// output order whatever the split: bit-identical across thread counts.
template <typename T, typename Fn>
void ForEachPlane(int64_t planes, int64_t H, int64_t W, const ConvGeometry& g, int64_t out_h,
                  int64_t out_w, T* dx, const Fn& plane_backward) {
  ParallelFor(0, planes, GrainFor(PoolPlaneWork(g, H, W, out_h, out_w)),
              [&](int64_t first, int64_t last) {
                std::fill(dx + first * H * W, dx + last * H * W, T(0));
                for (int64_t p = first; p < last; ++p) plane_backward(p, dx + p * H * W);
              });
}

template <typename T>
void MaxPoolBackward(const T* x, const T* dy, int64_t planes, int64_t H, int64_t W,
                     const ConvGeometry& g, int64_t out_h, int64_t out_w, T* dx) {
  const PoolPlan plan(g, H, W, out_h, out_w);
  ForEachPlane(planes, H, W, g, out_h, out_w, dx, [&](int64_t p, T* dx_plane) {
    const T* x_plane = x + p * H * W;
    const T* dy_plane = dy + p * out_h * out_w;
    for (int64_t oh = 0; oh < out_h; ++oh) {
      for (int64_t ow = 0; ow < out_w; ++ow) {
        dx_plane[WindowArgMax(x_plane, W, plan.Window(oh, ow))] += dy_plane[oh * out_w + ow];
      }
    }
  });
}

template <typename T>
void AveragePoolBackward(const T* dy, int64_t planes, int64_t H, int64_t W, const ConvGeometry& g,
                         int64_t out_h, int64_t out_w, bool count_include_pad, T* dx) {
  const PoolPlan plan(g, H, W, out_h, out_w);
  ForEachPlane(planes, H, W, g, out_h, out_w, dx, [&](int64_t p, T* dx_plane) {
    const T* dy_plane = dy + p * out_h * out_w;
    for (int64_t oh = 0; oh < out_h; ++oh) {
      for (int64_t ow = 0; ow < out_w; ++ow) {
        const PoolWindow win = plan.Window(oh, ow);
        const T share = dy_plane[oh * out_w + ow] *
                        (T(1) / static_cast<T>(AverageCount(g, count_include_pad, win)));
        for (int64_t h = win.h_begin; h < win.h_end; h += win.h_step) {
          T* row = dx_plane + h * W;
          for (int64_t w = win.w_begin; w < win.w_end; w += win.w_step) row[w] += share;
        }
      }
    }
  });
}

template <bool kAverage>
class PoolGradientOp final : public Operator {
 public:
  PoolGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        geometry_(ParseConvGeometry(args(), ConvKind::kPool)),
        count_include_pad_(kAverage && Arg<bool>("count_include_pad")) {}

  void Run() override {
    const Tensor& X = Input(0);
    const Tensor& Y = Input(1);
    const Tensor& dY = Input(2);
    ConvGeometry g = geometry_;  // global pooling sets the kernel from X
    PoolGradientShape(label(), X.dims(), Y.dims(), dY.dims(), &g, &y_dims_);
    EnforceSameDtype(label(), "X", X.dtype(), "Y", Y.dtype(), Y.dims());
    EnforceSameDtype(label(), "X", X.dtype(), "dY", dY.dtype(), dY.dims());
    DispatchFloatOrDouble(X.dtype(), label(), "X", X.dims(), [&](auto zero) {
      using T = decltype(zero);
      Tensor* dX = Output(0);
      dX->Resize(X.dims());
      T* dx = dX->mutable_data<T>();  // zeroed plane by plane by the kernels
      const int64_t planes = X.dim(0) * X.dim(1);
      const int64_t H = X.dim(2), W = X.dim(3), out_h = y_dims_[2], out_w = y_dims_[3];
      if constexpr (kAverage) {
        AveragePoolBackward(dY.data<T>(), planes, H, W, g, out_h, out_w, count_include_pad_, dx);
      } else {
        MaxPoolBackward(X.data<T>(), dY.data<T>(), planes, H, W, g, out_h, out_w, dx);
      }
    });
  }

 private:
  const ConvGeometry geometry_;
  const bool count_include_pad_;
  std::vector<int64_t> y_dims_;
};

std::vector<TensorType> PoolGradientInference(const caffe2::OperatorDef&,
                                              const ArgumentHelper& args,
                                              const std::vector<TensorType>& in) {
  ConvGeometry g = ParseConvGeometry(args, ConvKind::kPool);
  std::vector<int64_t> y_dims;
  PoolGradientShape(args.op_label(), in[0].dims, in[1].dims, in[2].dims, &g, &y_dims);
  EnforcePoolGradientDtypes(args.op_label(), in);
  TensorType dx;
  dx.dtype = in[0].dtype;
  dx.dims = in[0].dims;
  return {dx};
}

OpSchema& PoolGradientSchema(OpSchema& schema) {
  return schema.NumInputs(3)
      .NumOutputs(1)
      .Apply(PoolArgs)
      .ShapeInference(PoolGradientInference)
      .InputDoc(0, "X", "The forward input [N, C, H, W], float or double.")
      .InputDoc(1, "Y", "The forward output [N, C, out_h, out_w] (checked for shape).")
      .InputDoc(2, "dY", "Gradient of Y, Y's dims.")
      .OutputDoc(0, "dX", "Gradient of X, X's dims.");
}

PARITY_OP_SCHEMA(MaxPoolGradient)
    .Apply(PoolGradientSchema)
    .Doc(
        "Gradient of MaxPool: each window's dY goes to the first maximum of the window in scan "
        "order (row by row, left to right), the element MaxPool took its value from; tied "
        "maxima after the first get nothing.");
PARITY_REGISTER_CPU_OPERATOR(MaxPoolGradient, PoolGradientOp<false>);

PARITY_OP_SCHEMA(AveragePoolGradient)
    .Apply(PoolGradientSchema)
    .Apply(CountIncludePadArg)
    .Doc(
        "Gradient of AveragePool: each window's dY, divided by the forward's count (clipped "
        "window size, or kernel_h * kernel_w with count_include_pad), to every element of the "
        "window clipped to the image.");
PARITY_REGISTER_CPU_OPERATOR(AveragePoolGradient, PoolGradientOp<true>);

}  // namespace
}  // namespace parity

// FC, FCTransposed, MatMul and BatchMatMul on the device through cuBLAS (f32, no TF32: see
// context.cc). Sizes and errors come from the CPU kernels' shape functions (core/ops/linalg).
#include <climits>
#include <vector>

#include "core/ops/linalg/linalg.h"
#include "gpu/cuda_operator.h"
#include "gpu/kernels/kernels.h"
#include "gpu/ops/gemm.h"

namespace parity::gpu {
namespace {

template <bool kTransposedWeight>
class FullyConnectedCudaOp final : public CudaOperator {
 public:
  FullyConnectedCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws), axis_(Arg<int64_t>("axis")), axis_w_(Arg<int64_t>("axis_w")) {}

  void Run() override {
    const Tensor& x = FloatInput(0);
    const Tensor& w = FloatInput(1);
    const Tensor& b = FloatInput(2);
    const FcSizes s = FcShape(label(), kTransposedWeight, axis_, axis_w_, x.dims(), w.dims(),
                              &b.dims(), &y_dims_);
    Tensor* y = DeviceOutput(0);
    y->Resize(y_dims_);
    float* out = y->mutable_data<float>();
    // As on the CPU: Y starts as the bias in every row and the GEMM accumulates onto it.
    kernels::FillRows(b.data<float>(), out, s.M, s.N, stream());
    CheckLaunch();
    GemmCall g{false, !kTransposedWeight, s.M, s.N, s.K, 1.0f};
    StridedBatchedGemm(label(), context(), g, x.data<float>(), 0, w.data<float>(), 0,
                       out, 0, 1);
  }

 private:
  const int64_t axis_;
  const int64_t axis_w_;
  std::vector<int64_t> y_dims_;
};

PARITY_REGISTER_CUDA_OPERATOR(FC, FullyConnectedCudaOp<false>);
PARITY_REGISTER_CUDA_OPERATOR(FCTransposed, FullyConnectedCudaOp<true>);

class MatMulCudaOp final : public CudaOperator {
 public:
  MatMulCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws),
        axis_a_(Arg<int64_t>("axis_a")),
        axis_b_(Arg<int64_t>("axis_b")),
        trans_a_(Arg<bool>("trans_a")),
        trans_b_(Arg<bool>("trans_b")) {}

  void Run() override {
    const Tensor& a = FloatInput(0);
    const Tensor& b = FloatInput(1);
    // The third input only lends Y its dims, so it may sit on any device.
    const MatMulSizes s = MatMulShape(label(), axis_a_, axis_b_, trans_a_, trans_b_, a.dims(),
                                      b.dims(), InputSize() == 3 ? &Input(2).dims() : nullptr,
                                      &y_dims_);
    Tensor* y = DeviceOutput(0);
    y->Resize(y_dims_);
    float* out = y->mutable_data<float>();
    GemmCall g{trans_a_, trans_b_, s.M, s.N, s.K, 0.0f};
    StridedBatchedGemm(label(), context(), g, a.data<float>(), 0, b.data<float>(), 0,
                       out, 0, 1);
  }

 private:
  const int64_t axis_a_;
  const int64_t axis_b_;
  const bool trans_a_;
  const bool trans_b_;
  std::vector<int64_t> y_dims_;
};

PARITY_REGISTER_CUDA_OPERATOR(MatMul, MatMulCudaOp);

class BatchMatMulCudaOp final : public CudaOperator {
 public:
  BatchMatMulCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : CudaOperator(def, ws),
        trans_a_(Arg<bool>("trans_a")),
        trans_b_(Arg<bool>("trans_b")),
        broadcast_(Arg<bool>("broadcast")) {}

  void Run() override {
    const Tensor& a = FloatInput(0);
    const Tensor& b = FloatInput(1);
    PlanBatchMatMul(label(), a.dims(), b.dims(), trans_a_, trans_b_, broadcast_, &plan_, &y_dims_);
    Tensor* y = DeviceOutput(0);
    y->Resize(y_dims_);
    float* out = y->mutable_data<float>();
    const BatchMatMulPlan& p = plan_;
    if (p.y_batch == 0 || p.M == 0 || p.N == 0) return;
    const int64_t a_size = p.M * p.K, b_size = p.K * p.N, y_size = p.M * p.N;
    GemmCall g{p.trans_a, p.trans_b, p.M, p.N, p.K, 0.0f};
    // One strided-batched call where each operand either walks every batch or is one matrix
    // for all (same batch dims, or one operand without batch dims); general broadcasting of the
    // batch dims takes one GEMM per output batch.
    const bool a_walks = p.a_batch == p.y_batch, b_walks = p.b_batch == p.y_batch;
    if ((a_walks || p.a_batch == 1) && (b_walks || p.b_batch == 1)) {
      StridedBatchedGemm(label(), context(), g, a.data<float>(),
                         p.a_batch == 1 ? 0 : a_size, b.data<float>(), p.b_batch == 1 ? 0 : b_size,
                         out, y_size, p.y_batch);
      return;
    }
    const size_t nb = p.y_batch_dims.size();
    for (int64_t i = 0; i < p.y_batch; ++i) {
      int64_t rest = i, a_index = 0, b_index = 0;
      for (size_t d = nb; d-- > 0;) {
        const int64_t coord = rest % p.y_batch_dims[d];
        rest /= p.y_batch_dims[d];
        a_index += coord * p.a_strides[d];
        b_index += coord * p.b_strides[d];
      }
      StridedBatchedGemm(label(), context(), g, a.data<float>() + a_index * a_size, 0,
                         b.data<float>() + b_index * b_size, 0, out + i * y_size, 0, 1);
    }
  }

 private:
  const bool trans_a_;
  const bool trans_b_;
  const bool broadcast_;
  BatchMatMulPlan plan_;
  std::vector<int64_t> y_dims_;
};

PARITY_REGISTER_CUDA_OPERATOR(BatchMatMul, BatchMatMulCudaOp);

}  // namespace
}  // namespace parity::gpu

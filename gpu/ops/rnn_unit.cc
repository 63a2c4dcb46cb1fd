// LSTMUnit and GRUUnit and their gradients on the device (float). Shapes, the timestep and the rows past their
// sequences come from the CPU kernels' helper (core/ops/rnn_unit/rnn_unit.h), read from host
// copies of the index inputs (which may live on either device); the per-row validity goes to the
// device as int32 flags. The arithmetic is gpu/kernels/rnn_unit_body.h's, tested on the host
// against the CPU kernels (tests/gpu/bodies/rnn_unit_body_test.cc).
#include <vector>

#include "core/ops/common/shape_util.h"
#include "core/ops/rnn_unit/rnn_unit.h"
#include "gpu/cuda_operator.h"
#include "gpu/device.h"
#include "gpu/kernels/norm_rnn.h"

namespace parity::gpu {
namespace {

class RnnUnitCudaBase : public CudaOperator {
 public:
  RnnUnitCudaBase(const caffe2::OperatorDef& def, Workspace* ws, int state_inputs, int gate_count)
      : CudaOperator(def, ws),
        state_inputs_(state_inputs),
        gate_count_(gate_count),
        drop_states_(Arg<bool>("drop_states")),
        has_lengths_(Arg<bool>("sequence_lengths")) {
    rnn_unit_util::CheckRnnUnitInputCount(*this, state_inputs, has_lengths_);
  }

 protected:
  // The step's geometry, and `valid` filled with the device copy of the per-row flags.
  rnn_unit_util::RnnStep Prepare(Tensor* valid) {
    for (int i = 0; i <= state_inputs_; ++i) FloatInput(i);
    const rnn_unit_util::RnnStep s = rnn_unit_util::PrepareRnnStep(
        *this, state_inputs_, gate_count_, has_lengths_, [&](int i) {
          return shape_util::ReadIndexTensor(ToCpu(Input(i)), label(), InputName(i));
        });
    Tensor flags(DataType::kInt32, {s.n});
    int32_t* f = flags.mutable_data<int32_t>();
    for (int64_t n = 0; n < s.n; ++n) f[n] = s.valid[n] ? 1 : 0;
    *valid = Tensor(device());
    CopyTensor(flags, valid);
    return s;
  }

  const int state_inputs_;
  const int gate_count_;
  const bool drop_states_;
  const bool has_lengths_;
};

class LSTMUnitCudaOp final : public RnnUnitCudaBase {
 public:
  LSTMUnitCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : RnnUnitCudaBase(def, ws, 2, 4), forget_bias_(Arg<double>("forget_bias")) {}

  void Run() override {
    Tensor valid;
    const rnn_unit_util::RnnStep s = Prepare(&valid);
    const float* h_prev = Input(0).data<float>();
    const float* c_prev = Input(1).data<float>();
    const float* gates = Input(2).data<float>();
    Tensor* H = DeviceOutput(0);
    Tensor* C = DeviceOutput(1);
    H->Resize(Input(0).dims());
    C->Resize(Input(1).dims());
    // The CPU's T(forget_bias_): the float argument widened to double and back, exactly.
    kernels::LSTMUnitFloat(h_prev, c_prev, gates, valid.data<int32_t>(), s.n, s.d,
                           static_cast<float>(forget_bias_), drop_states_,
                           H->mutable_data<float>(), C->mutable_data<float>(), stream());
    CheckLaunch();
  }

 private:
  const double forget_bias_;
};

PARITY_REGISTER_CUDA_OPERATOR(LSTMUnit, LSTMUnitCudaOp);

class GRUUnitCudaOp final : public RnnUnitCudaBase {
 public:
  GRUUnitCudaOp(const caffe2::OperatorDef& def, Workspace* ws) : RnnUnitCudaBase(def, ws, 1, 3) {}

  void Run() override {
    Tensor valid;
    const rnn_unit_util::RnnStep s = Prepare(&valid);
    const float* h_prev = Input(0).data<float>();
    const float* gates = Input(1).data<float>();
    Tensor* H = DeviceOutput(0);
    H->Resize(Input(0).dims());
    kernels::GRUUnitFloat(h_prev, gates, valid.data<int32_t>(), s.n, s.d, drop_states_,
                          H->mutable_data<float>(), stream());
    CheckLaunch();
  }
};

PARITY_REGISTER_CUDA_OPERATOR(GRUUnit, GRUUnitCudaOp);

// The gradients: the forward op's inputs, then `extra` tensors shaped like hidden_prev (the
// forward outputs and their gradients), checked by the CPU gradients' helper.
class RnnUnitGradientCudaBase : public CudaOperator {
 public:
  RnnUnitGradientCudaBase(const caffe2::OperatorDef& def, Workspace* ws, int state_inputs,
                          int gate_count, int extra)
      : CudaOperator(def, ws),
        state_inputs_(state_inputs),
        gate_count_(gate_count),
        drop_states_(Arg<bool>("drop_states")),
        has_lengths_(Arg<bool>("sequence_lengths")),
        forward_inputs_(rnn_unit_util::CheckRnnUnitGradientInputCount(*this, state_inputs, extra,
                                                                     has_lengths_)) {}

 protected:
  rnn_unit_util::RnnStep Prepare(Tensor* valid) {
    const int index_begin = forward_inputs_ - (has_lengths_ ? 2 : 1);
    for (int i = 0; i < InputSize(); ++i) {
      if (i < index_begin || i >= forward_inputs_) FloatInput(i);
    }
    const rnn_unit_util::RnnStep s = rnn_unit_util::PrepareRnnUnitGradientStep(
        *this, state_inputs_, gate_count_, has_lengths_, [&](int i) { return ToCpu(Input(i)); });
    *valid = ValidFlags(s);
    return s;
  }

  // The per-row flags on the device, as int32.
  Tensor ValidFlags(const rnn_unit_util::RnnStep& s) {
    Tensor flags(DataType::kInt32, {s.n});
    int32_t* f = flags.mutable_data<int32_t>();
    for (int64_t n = 0; n < s.n; ++n) f[n] = s.valid[n] ? 1 : 0;
    Tensor on_device(device());
    CopyTensor(flags, &on_device);
    return on_device;
  }

  const int state_inputs_;
  const int gate_count_;
  const bool drop_states_;
  const bool has_lengths_;
  const int forward_inputs_;
};

class LSTMUnitGradientCudaOp final : public RnnUnitGradientCudaBase {
 public:
  LSTMUnitGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : RnnUnitGradientCudaBase(def, ws, 2, 4, 4), forget_bias_(Arg<double>("forget_bias")) {}

  void Run() override {
    Tensor valid;
    const rnn_unit_util::RnnStep s = Prepare(&valid);
    const int base = forward_inputs_;
    const float* c_prev = Input(1).data<float>();
    const float* gates = Input(2).data<float>();
    const float* c = Input(base + 1).data<float>();
    const float* dh = Input(base + 2).data<float>();
    const float* dc = Input(base + 3).data<float>();
    const std::vector<int64_t> state_dims = Input(0).dims();
    const std::vector<int64_t> gate_dims = Input(2).dims();
    Tensor* dH = DeviceOutput(0);
    Tensor* dC = DeviceOutput(1);
    Tensor* dG = DeviceOutput(2);
    dH->Resize(state_dims);
    dC->Resize(state_dims);
    dG->Resize(gate_dims);
    kernels::LSTMUnitGradientFloat(c_prev, gates, c, dh, dc, valid.data<int32_t>(), s.n, s.d,
                                   static_cast<float>(forget_bias_), drop_states_,
                                   dH->mutable_data<float>(), dC->mutable_data<float>(),
                                   dG->mutable_data<float>(), stream());
    CheckLaunch();
  }

 private:
  const double forget_bias_;
};

PARITY_REGISTER_CUDA_OPERATOR(LSTMUnitGradient, LSTMUnitGradientCudaOp);

class GRUUnitGradientCudaOp final : public RnnUnitGradientCudaBase {
 public:
  GRUUnitGradientCudaOp(const caffe2::OperatorDef& def, Workspace* ws)
      : RnnUnitGradientCudaBase(def, ws, 1, 3, 2) {}

  void Run() override {
    Tensor valid;
    const rnn_unit_util::RnnStep s = Prepare(&valid);
    const float* h_prev = Input(0).data<float>();
    const float* gates = Input(1).data<float>();
    const float* dh = Input(forward_inputs_ + 1).data<float>();
    const std::vector<int64_t> state_dims = Input(0).dims();
    const std::vector<int64_t> gate_dims = Input(1).dims();
    Tensor* dH = DeviceOutput(0);
    Tensor* dG = DeviceOutput(1);
    dH->Resize(state_dims);
    dG->Resize(gate_dims);
    kernels::GRUUnitGradientFloat(h_prev, gates, dh, valid.data<int32_t>(), s.n, s.d,
                                  drop_states_, dH->mutable_data<float>(),
                                  dG->mutable_data<float>(), stream());
    CheckLaunch();
  }
};

PARITY_REGISTER_CUDA_OPERATOR(GRUUnitGradient, GRUUnitGradientCudaOp);

}  // namespace
}  // namespace parity::gpu

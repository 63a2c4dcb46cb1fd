// Gradient kernels of the RNN cells (Caffe2's lstm_unit_op.h, gru_unit_op.h; conventions of
// core/ops/rnn_unit/makers.cc, the forward op's arguments copied). float and double.
//
// LSTMUnitGradient (h_prev, c_prev, gates, [seq_lengths], timestep, h, c, dh, dc)
//                  -> (dh_prev, dc_prev, dgates), gates [i, f, o, g] as in the forward op:
//   valid rows (timestep < seq_len):
//     dct = dc + dh * o * (1 - tanh(c)^2);  dc_prev = dct * f;  dh_prev = 0 (h_prev does not
//     enter the unit: the step net's FC carries it);
//     di = dct * g * i(1 - i);  df = dct * c_prev * f(1 - f);  do = dh * tanh(c) * o(1 - o);
//     dg = dct * i * (1 - g^2)
//   rows past their sequence: dgates = 0; dh_prev = dh, dc_prev = dc (0 with drop_states=1).
// GRUUnitGradient (h_prev, gates, [seq_lengths], timestep, h, dh) -> (dh_prev, dgates), gates
// [r, u, o], h = h_prev * u + tanh(o) * (1 - u) with u = s(x_u):
//   valid rows: dh_prev = dh * u;  dr = 0 (the reset gate acts in the step net);
//     du = dh * (h_prev - tanh(o)) * u(1 - u);  do = dh * (1 - u) * (1 - tanh(o)^2)
//   rows past their sequence: dgates = 0; dh_prev = dh (0 with drop_states=1).
#include <algorithm>
#include <cmath>

#include "core/operator.h"
#include "core/ops/common/shape_util.h"
#include "core/ops/common/sigmoid.h"
#include "core/ops/rnn_unit/rnn_unit.h"
#include "core/schema.h"

namespace parity {
namespace rnn_unit_util {

int CheckRnnUnitGradientInputCount(const Operator& op, int state_inputs, int extra,
                                   bool has_lengths) {
  const int forward_inputs = state_inputs + (has_lengths ? 3 : 2);
  PARITY_ENFORCE(op.InputSize() == forward_inputs + extra, ErrorKind::kBadArgument, op.label(),
                 ": with sequence_lengths=", has_lengths ? 1 : 0, " takes ",
                 forward_inputs + extra, " inputs (the forward op's ", forward_inputs,
                 ", then its outputs and their gradients), got ", op.InputSize());
  return forward_inputs;
}

RnnStep PrepareRnnUnitGradientStep(const Operator& op, int state_inputs, int gate_count,
                                   bool has_lengths,
                                   const std::function<Tensor(int)>& host_input) {
  const std::string& label = op.label();
  const int forward_inputs = state_inputs + (has_lengths ? 3 : 2);
  const Tensor& h = op.Input(0);
  PARITY_ENFORCE(h.ndim() == 3 && h.dims()[0] == 1, ErrorKind::kShapeMismatch, label,
                 ": hidden_prev '", op.InputName(0), "' must be [1, N, D], got ", h.DebugString());
  RnnStep s;
  s.n = h.dims()[1];
  s.d = h.dims()[2];
  const std::vector<int64_t> gates_dims{1, s.n, gate_count * s.d};
  for (int i = 1; i < op.InputSize(); ++i) {
    if (i >= forward_inputs - (has_lengths ? 2 : 1) && i < forward_inputs) continue;
    const std::vector<int64_t>& want = i == state_inputs ? gates_dims : h.dims();
    const Tensor& x = op.Input(i);
    PARITY_ENFORCE(x.dims() == want && x.dtype() == h.dtype(), ErrorKind::kShapeMismatch, label,
                   ": input '", op.InputName(i), "' must be ", DataTypeName(h.dtype()), " ",
                   ShapeString(want), " to match hidden_prev ", h.DebugString(), ", got ",
                   x.DebugString());
  }
  const int t_index = forward_inputs - 1;
  const Tensor& t = op.Input(t_index);
  PARITY_ENFORCE(t.numel() == 1, ErrorKind::kShapeMismatch, label, ": timestep '",
                 op.InputName(t_index), "' must hold one int, got ", t.DebugString());
  const int64_t step =
      shape_util::ReadIndexTensor(host_input(t_index), label, op.InputName(t_index))[0];
  s.t = step;
  s.valid.assign(s.n, true);
  if (has_lengths) {
    const int l_index = forward_inputs - 2;
    const Tensor lengths = host_input(l_index);
    PARITY_ENFORCE(lengths.numel() == s.n, ErrorKind::kShapeMismatch, label, ": seq_lengths '",
                   op.InputName(l_index), "' must hold N = ", s.n, " lengths, got ",
                   lengths.DebugString());
    if (lengths.dtype() == DataType::kInt32) {
      const int32_t* len = lengths.data<int32_t>();
      for (int64_t i = 0; i < s.n; ++i) s.valid[i] = step < len[i];
    } else if (lengths.dtype() == DataType::kInt64) {
      const int64_t* len = lengths.data<int64_t>();
      for (int64_t i = 0; i < s.n; ++i) s.valid[i] = step < len[i];
    } else {
      throw MakeError(ErrorKind::kShapeMismatch, label, ": seq_lengths '", op.InputName(l_index),
                      "' must be int32 or int64, got ", lengths.DebugString());
    }
  }
  return s;
}

}  // namespace rnn_unit_util

namespace {

using rnn_unit_util::ConstRowMap;
using rnn_unit_util::Row;
using rnn_unit_util::RowMap;

// Input layout and checks shared by both gradients. The forward inputs come first (states, gates,
// [seq_lengths], timestep), then `extra` tensors shaped like hidden_prev (outputs and their
// gradients).
class RnnUnitGradientBase : public Operator {
 public:
  RnnUnitGradientBase(const caffe2::OperatorDef& def, Workspace* ws, int state_inputs,
                      int gate_count, int extra)
      : Operator(def, ws),
        state_inputs_(state_inputs),
        gate_count_(gate_count),
        extra_(extra),
        drop_states_(Arg<bool>("drop_states")),
        has_lengths_(Arg<bool>("sequence_lengths")) {
    forward_inputs_ = rnn_unit_util::CheckRnnUnitGradientInputCount(*this, state_inputs, extra,
                                                                     has_lengths_);
  }

 protected:
  struct Step {
    int64_t n = 0;
    int64_t d = 0;
  };

  Step Prepare() {
    const rnn_unit_util::RnnStep step = rnn_unit_util::PrepareRnnUnitGradientStep(
        *this, state_inputs_, gate_count_, has_lengths_, [&](int i) { return Input(i); });
    valid_.assign(step.valid.begin(), step.valid.end());
    Step s;
    s.n = step.n;
    s.d = step.d;
    return s;
  }

  const int state_inputs_;
  const int gate_count_;
  const int extra_;
  const bool drop_states_;
  const bool has_lengths_;
  int forward_inputs_ = 0;
  std::vector<char> valid_;  // Per row; kept across runs.
};

// ---------------------------------------------------------------------------------------------
// LSTMUnitGradient

class LSTMUnitGradientOp final : public RnnUnitGradientBase {
 public:
  LSTMUnitGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : RnnUnitGradientBase(def, ws, 2, 4, 4), forget_bias_(Arg<double>("forget_bias")) {}

  void Run() override {
    shape_util::DispatchFloating(Input(0), label(), InputName(0),
                                 [&](auto zero) { RunTyped<decltype(zero)>(); });
  }

 private:
  template <typename T>
  void RunTyped() {
    const Step s = Prepare();
    const int base = forward_inputs_;
    const T* c_prev = Input(1).data<T>();
    const T* gates = Input(2).data<T>();
    const T* c = Input(base + 1).data<T>();
    const T* dh = Input(base + 2).data<T>();
    const T* dc = Input(base + 3).data<T>();
    const std::vector<int64_t> state_dims = Input(0).dims();
    const std::vector<int64_t> gate_dims = Input(2).dims();
    Tensor* dH = Output(0);
    Tensor* dC = Output(1);
    Tensor* dG = Output(2);
    dH->Resize(state_dims);
    dC->Resize(state_dims);
    dG->Resize(gate_dims);
    T* dh_prev = dH->template mutable_data<T>();
    T* dc_prev = dC->template mutable_data<T>();
    T* dg = dG->template mutable_data<T>();
    const T fb = static_cast<T>(forget_bias_);
    const int64_t d = s.d;
    const SigmoidScalarOp<T> sigmoid;
    // One row's activations and cell gradient, reused across rows.
    Row<T> i(d), f(d), o(d), g(d), tanh_c(d), dct(d);
    for (int64_t n = 0; n < s.n; ++n) {
      const int64_t row = n * d;
      const T* x = gates + n * 4 * d;
      T* gx = dg + n * 4 * d;
      if (!valid_[n]) {
        for (int64_t j = 0; j < d; ++j) {
          dh_prev[row + j] = drop_states_ ? T(0) : dh[row + j];
          dc_prev[row + j] = drop_states_ ? T(0) : dc[row + j];
        }
        std::fill(gx, gx + 4 * d, T(0));
        continue;
      }
      // A row at a time through Eigen's packets, as the forward kernel; the gate gradients are
      // written before dc_prev and dh_prev, which read nothing after them.
      i = ConstRowMap<T>(x, d).unaryExpr(sigmoid);
      f = (ConstRowMap<T>(x + d, d) + fb).unaryExpr(sigmoid);
      o = ConstRowMap<T>(x + 2 * d, d).unaryExpr(sigmoid);
      g = ConstRowMap<T>(x + 3 * d, d).tanh();
      tanh_c = ConstRowMap<T>(c + row, d).tanh();
      const ConstRowMap<T> dh_row(dh + row, d);
      dct = ConstRowMap<T>(dc + row, d) + dh_row * o * (T(1) - tanh_c * tanh_c);
      RowMap<T>(gx, d) = dct * g * i * (T(1) - i);
      RowMap<T>(gx + d, d) = dct * ConstRowMap<T>(c_prev + row, d) * f * (T(1) - f);
      RowMap<T>(gx + 2 * d, d) = dh_row * tanh_c * o * (T(1) - o);
      RowMap<T>(gx + 3 * d, d) = dct * i * (T(1) - g * g);
      RowMap<T>(dc_prev + row, d) = dct * f;
      RowMap<T>(dh_prev + row, d).setZero();
    }
  }

  const double forget_bias_;
};

PARITY_OP_SCHEMA(LSTMUnitGradient)
    .NumInputs(8, 9)
    .NumOutputs(3)
    .Apply(rnn_unit_util::LSTMUnitArgs)
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper&,
                       const std::vector<TensorType>& in) {
      return std::vector<TensorType>{in[0], in[1], in[2]};
    })
    .InputDoc(0, "hidden_prev", "[1, N, D] LSTMUnit's input 0.")
    .InputDoc(1, "cell_prev", "[1, N, D] LSTMUnit's input 1.")
    .InputDoc(2, "gates", "[1, N, 4D] LSTMUnit's gate pre-activations [i, f, o, g].")
    .InputDoc(3, "seq_lengths", "int32/int64 [N] (only with sequence_lengths=1).")
    .InputDoc(4, "timestep", "One int: the step (then hidden_t, cell_t, their gradients).")
    .OutputDoc(0, "hidden_prev_grad", "[1, N, D]: 0 on valid rows, dh passed through past the end.")
    .OutputDoc(1, "cell_prev_grad", "[1, N, D].")
    .OutputDoc(2, "gates_grad", "[1, N, 4D]: 0 on rows past their sequence.")
    .Doc(
        "Gradient of LSTMUnit (Caffe2's LSTMUnitGradient): inputs are LSTMUnit's inputs, then "
        "hidden_t, cell_t, d hidden_t, d cell_t.");
PARITY_REGISTER_CPU_OPERATOR(LSTMUnitGradient, LSTMUnitGradientOp);

// ---------------------------------------------------------------------------------------------
// GRUUnitGradient

class GRUUnitGradientOp final : public RnnUnitGradientBase {
 public:
  GRUUnitGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : RnnUnitGradientBase(def, ws, 1, 3, 2) {}

  void Run() override {
    shape_util::DispatchFloating(Input(0), label(), InputName(0),
                                 [&](auto zero) { RunTyped<decltype(zero)>(); });
  }

 private:
  template <typename T>
  void RunTyped() {
    const Step s = Prepare();
    const int base = forward_inputs_;
    const T* h_prev = Input(0).data<T>();
    const T* gates = Input(1).data<T>();
    const T* dh = Input(base + 1).data<T>();
    const std::vector<int64_t> state_dims = Input(0).dims();
    const std::vector<int64_t> gate_dims = Input(1).dims();
    Tensor* dH = Output(0);
    Tensor* dG = Output(1);
    dH->Resize(state_dims);
    dG->Resize(gate_dims);
    T* dh_prev = dH->template mutable_data<T>();
    T* dg = dG->template mutable_data<T>();
    const int64_t d = s.d;
    Row<T> u(d), o(d);  // one row's activations, reused across rows
    for (int64_t n = 0; n < s.n; ++n) {
      const int64_t row = n * d;
      const T* x = gates + n * 3 * d;
      T* gx = dg + n * 3 * d;
      if (!valid_[n]) {
        for (int64_t j = 0; j < d; ++j) dh_prev[row + j] = drop_states_ ? T(0) : dh[row + j];
        std::fill(gx, gx + 3 * d, T(0));
        continue;
      }
      u = ConstRowMap<T>(x + d, d).unaryExpr(SigmoidScalarOp<T>());
      o = ConstRowMap<T>(x + 2 * d, d).tanh();
      // dh_prev is written last, elementwise: it may alias dh.
      const ConstRowMap<T> dh_row(dh + row, d);
      std::fill(gx, gx + d, T(0));
      RowMap<T>(gx + d, d) = dh_row * (ConstRowMap<T>(h_prev + row, d) - o) * u * (T(1) - u);
      RowMap<T>(gx + 2 * d, d) = dh_row * (T(1) - u) * (T(1) - o * o);
      RowMap<T>(dh_prev + row, d) = dh_row * u;
    }
  }
};

PARITY_OP_SCHEMA(GRUUnitGradient)
    .NumInputs(5, 6)
    .NumOutputs(2)
    .Apply(rnn_unit_util::RnnUnitArgs)
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper&,
                       const std::vector<TensorType>& in) {
      return std::vector<TensorType>{in[0], in[1]};
    })
    .InputDoc(0, "hidden_prev", "[1, N, D] GRUUnit's input 0.")
    .InputDoc(1, "gates", "[1, N, 3D] GRUUnit's gate pre-activations [r, u, o].")
    .InputDoc(2, "seq_lengths", "int32/int64 [N] (only with sequence_lengths=1).")
    .InputDoc(3, "timestep", "One int: the step (then hidden_t and its gradient).")
    .OutputDoc(0, "hidden_prev_grad", "[1, N, D].")
    .OutputDoc(1, "gates_grad", "[1, N, 3D]: reset-gate gradient 0; 0 past the sequence.")
    .Doc(
        "Gradient of GRUUnit (Caffe2's GRUUnitGradient): inputs are GRUUnit's inputs, then "
        "hidden_t and its gradient.");
PARITY_REGISTER_CPU_OPERATOR(GRUUnitGradient, GRUUnitGradientOp);

}  // namespace
}  // namespace parity

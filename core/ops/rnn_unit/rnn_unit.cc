// RNN cells: LSTMUnit and GRUUnit, one time step of Caffe2's recurrent nets
// (caffe2/operators/rnn/lstm_unit_op.h, gru_unit_op.h). float and double.
//
// LSTMUnit: gates [1, N, 4D] in order [i, f, o, g] (pre-activations):
//   i = s(x_i), f = s(x_f + forget_bias), o = s(x_o), g = tanh(x_g);
//   c = f * c_prev + i * g;  h = o * tanh(c).
// GRUUnit: gates [1, N, 3D] in order [r, u, o]; the reset gate r is applied inside the step net
// (to the hidden-to-output FC), so the unit uses only u and o:
//   h = h_prev * s(u) + tanh(o) * (1 - s(u)).
// Rows n with timestep >= seq_lengths[n] are past their sequence: the previous state is copied
// (zeros with drop_states=1). seq_lengths is an input only with sequence_lengths=1 (the default);
// timestep is the last input, a one-element int tensor.
#include "core/ops/rnn_unit/rnn_unit.h"

#include <cmath>

#include "core/operator.h"
#include "core/ops/common/shape_util.h"
#include "core/ops/common/sigmoid.h"
#include "core/schema.h"

namespace parity {
namespace rnn_unit_util {

OpSchema& RnnUnitArgs(OpSchema& schema) {
  return schema
      .Arg("drop_states", ArgType::kInt, int64_t{0},
           "If 1, rows past their sequence get zero states instead of the previous ones.")
      .Arg("sequence_lengths", ArgType::kInt, int64_t{1},
           "If 1, the input before the timestep is seq_lengths (int32/int64 [N]).");
}

OpSchema& LSTMUnitArgs(OpSchema& schema) {
  return RnnUnitArgs(schema).Arg("forget_bias", ArgType::kFloat, 0.0,
                                 "Added to the forget gate's pre-activation.");
}

void CheckRnnUnitInputCount(const Operator& op, int state_inputs, bool has_lengths) {
  const int expected = state_inputs + (has_lengths ? 3 : 2);
  PARITY_ENFORCE(op.InputSize() == expected, ErrorKind::kBadArgument, op.label(),
                 ": with "
                 "sequence_lengths=",
                 has_lengths ? 1 : 0, " takes ", expected, " inputs (states, gates, ",
                 has_lengths ? "seq_lengths, " : "", "timestep), got ", op.InputSize());
}

RnnStep PrepareRnnStep(const Operator& op, int state_inputs, int gate_count, bool has_lengths,
                       const std::function<std::vector<int64_t>(int)>& read_index) {
  const std::string& label = op.label();
  const Tensor& h = op.Input(0);
  PARITY_ENFORCE(h.ndim() == 3 && h.dims()[0] == 1, ErrorKind::kShapeMismatch, label,
                 ": hidden_prev '", op.InputName(0), "' must be [1, N, D], got ", h.DebugString());
  RnnStep s;
  s.n = h.dims()[1];
  s.d = h.dims()[2];
  for (int i = 1; i <= state_inputs; ++i) {
    const Tensor& x = op.Input(i);
    const std::vector<int64_t> want =
        i < state_inputs ? h.dims() : std::vector<int64_t>{1, s.n, gate_count * s.d};
    PARITY_ENFORCE(x.dims() == want && x.dtype() == h.dtype(), ErrorKind::kShapeMismatch, label,
                   ": input '", op.InputName(i), "' must be ", DataTypeName(h.dtype()), " ",
                   ShapeString(want), " to match hidden_prev ", h.DebugString(), ", got ",
                   x.DebugString());
  }
  const int t_index = op.InputSize() - 1;
  const Tensor& t = op.Input(t_index);
  PARITY_ENFORCE(t.numel() == 1, ErrorKind::kShapeMismatch, label, ": timestep '",
                 op.InputName(t_index), "' must hold one int, got ", t.DebugString());
  s.t = read_index(t_index)[0];
  s.valid.assign(s.n, true);
  if (has_lengths) {
    const int l_index = op.InputSize() - 2;
    const Tensor& lengths = op.Input(l_index);
    PARITY_ENFORCE(lengths.numel() == s.n, ErrorKind::kShapeMismatch, label, ": seq_lengths '",
                   op.InputName(l_index), "' must hold N = ", s.n, " lengths, got ",
                   lengths.DebugString());
    const std::vector<int64_t> len = read_index(l_index);
    for (int64_t i = 0; i < s.n; ++i) s.valid[i] = s.t < len[i];
  }
  return s;
}

}  // namespace rnn_unit_util

namespace {

using rnn_unit_util::ConstRowMap;
using rnn_unit_util::RnnUnitArgs;
using rnn_unit_util::Row;
using rnn_unit_util::RowMap;

// Shared input handling of the two cells. `gate_count` is 4 (LSTM) or 3 (GRU); `state_inputs`
// the number of leading state inputs (2 for LSTM: hidden, cell; 1 for GRU: hidden).
class RnnUnitBase : public Operator {
 public:
  RnnUnitBase(const caffe2::OperatorDef& def, Workspace* ws, int state_inputs, int gate_count)
      : Operator(def, ws),
        state_inputs_(state_inputs),
        gate_count_(gate_count),
        drop_states_(Arg<bool>("drop_states")),
        has_lengths_(Arg<bool>("sequence_lengths")) {
    rnn_unit_util::CheckRnnUnitInputCount(*this, state_inputs, has_lengths_);
  }

 protected:
  using Step = rnn_unit_util::RnnStep;

  // Validates shapes and dtypes, reads the timestep and the per-row validity.
  Step Prepare() {
    return rnn_unit_util::PrepareRnnStep(*this, state_inputs_, gate_count_, has_lengths_,
                                         [&](int i) {
                                           return shape_util::ReadIndexTensor(Input(i), label(),
                                                                              InputName(i));
                                         });
  }

  const int state_inputs_;
  const int gate_count_;
  const bool drop_states_;
  const bool has_lengths_;
};

class LSTMUnitOp final : public RnnUnitBase {
 public:
  LSTMUnitOp(const caffe2::OperatorDef& def, Workspace* ws)
      : RnnUnitBase(def, ws, 2, 4), forget_bias_(Arg<double>("forget_bias")) {}

  void Run() override {
    shape_util::DispatchFloating(Input(0), label(), InputName(0),
                                 [&](auto zero) { RunTyped<decltype(zero)>(); });
  }

 private:
  template <typename T>
  void RunTyped() {
    const Step s = Prepare();
    const T* h_prev = Input(0).data<T>();
    const T* c_prev = Input(1).data<T>();
    const T* gates = Input(2).data<T>();
    Tensor* H = Output(0);
    Tensor* C = Output(1);
    H->Resize(Input(0).dims());
    C->Resize(Input(1).dims());
    T* h = H->template mutable_data<T>();
    T* c = C->template mutable_data<T>();
    const T fb = static_cast<T>(forget_bias_);
    const int64_t d = s.d;
    const SigmoidScalarOp<T> sigmoid;
    for (int64_t n = 0; n < s.n; ++n) {
      const int64_t row = n * d;
      if (!s.valid[n]) {
        for (int64_t j = 0; j < d; ++j) {
          h[row + j] = drop_states_ ? T(0) : h_prev[row + j];
          c[row + j] = drop_states_ ? T(0) : c_prev[row + j];
        }
        continue;
      }
      // One row's gates at a time, through Eigen's packets: the activations are most of a step's
      // work outside its GEMM (bench/lstm_bench). Elementwise, so c may alias c_prev.
      const T* x = gates + n * 4 * d;
      RowMap<T> cell(c + row, d);
      cell = (ConstRowMap<T>(x + d, d) + fb).unaryExpr(sigmoid) * ConstRowMap<T>(c_prev + row, d) +
             ConstRowMap<T>(x, d).unaryExpr(sigmoid) * ConstRowMap<T>(x + 3 * d, d).tanh();
      RowMap<T>(h + row, d) = ConstRowMap<T>(x + 2 * d, d).unaryExpr(sigmoid) * cell.tanh();
    }
  }

  const double forget_bias_;
};

PARITY_OP_SCHEMA(LSTMUnit)
    .NumInputs(4, 5)
    .NumOutputs(2)
    .Apply(rnn_unit_util::LSTMUnitArgs)
    .DifferentiableInputs({0, 1, 2})
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper&,
                       const std::vector<TensorType>& in) {
      return std::vector<TensorType>{in[0], in[1]};
    })
    .InputDoc(0, "hidden_prev", "[1, N, D] previous hidden state.")
    .InputDoc(1, "cell_prev", "[1, N, D] previous cell state.")
    .InputDoc(2, "gates", "[1, N, 4D] gate pre-activations in order [i, f, o, g].")
    .InputDoc(3, "seq_lengths", "int32/int64 [N] (only with sequence_lengths=1).")
    .InputDoc(4, "timestep", "int32/int64 with one element: the current step (last input).")
    .OutputDoc(0, "hidden_t", "[1, N, D] new hidden state.")
    .OutputDoc(1, "cell_t", "[1, N, D] new cell state.")
    .Doc("One LSTM step (Caffe2's LSTMUnit): c = f*c_prev + i*g, h = o*tanh(c).");
PARITY_REGISTER_CPU_OPERATOR(LSTMUnit, LSTMUnitOp);

class GRUUnitOp final : public RnnUnitBase {
 public:
  GRUUnitOp(const caffe2::OperatorDef& def, Workspace* ws) : RnnUnitBase(def, ws, 1, 3) {}

  void Run() override {
    shape_util::DispatchFloating(Input(0), label(), InputName(0),
                                 [&](auto zero) { RunTyped<decltype(zero)>(); });
  }

 private:
  template <typename T>
  void RunTyped() {
    const Step s = Prepare();
    const T* h_prev = Input(0).data<T>();
    const T* gates = Input(1).data<T>();
    Tensor* H = Output(0);
    H->Resize(Input(0).dims());
    T* h = H->template mutable_data<T>();
    const int64_t d = s.d;
    Row<T> u(d);  // one row's update gate, reused across rows
    for (int64_t n = 0; n < s.n; ++n) {
      const int64_t row = n * d;
      if (!s.valid[n]) {
        for (int64_t j = 0; j < d; ++j) h[row + j] = drop_states_ ? T(0) : h_prev[row + j];
        continue;
      }
      const T* x = gates + n * 3 * d;
      u = ConstRowMap<T>(x + d, d).unaryExpr(SigmoidScalarOp<T>());
      RowMap<T>(h + row, d) =
          ConstRowMap<T>(h_prev + row, d) * u + ConstRowMap<T>(x + 2 * d, d).tanh() * (T(1) - u);
    }
  }
};

PARITY_OP_SCHEMA(GRUUnit)
    .NumInputs(3, 4)
    .NumOutputs(1)
    .Apply(RnnUnitArgs)
    .DifferentiableInputs({0, 1})
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper&,
                       const std::vector<TensorType>& in) {
      return std::vector<TensorType>{in[0]};
    })
    .InputDoc(0, "hidden_prev", "[1, N, D] previous hidden state.")
    .InputDoc(1, "gates", "[1, N, 3D] gate pre-activations in order [reset, update, output].")
    .InputDoc(2, "seq_lengths", "int32/int64 [N] (only with sequence_lengths=1).")
    .InputDoc(3, "timestep", "int32/int64 with one element: the current step (last input).")
    .OutputDoc(0, "hidden_t", "[1, N, D] new hidden state.")
    .Doc("One GRU step (Caffe2's GRUUnit): h = h_prev*s(u) + tanh(o)*(1 - s(u)).");
PARITY_REGISTER_CPU_OPERATOR(GRUUnit, GRUUnitOp);

}  // namespace
}  // namespace parity

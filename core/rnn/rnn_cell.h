// The recurrent cells of Caffe2's rnn_cell.py / gru_cell.py, built on RecurrentNet
// (recurrent_net.h), one layer each, with Caffe2's blob names so a Caffe2 user recognises them:
//
// LSTM: FC(input, <scope>/i2h_w, <scope>/i2h_b, axis 2) -> <scope>/i2h [T, N, 4H] over the whole
// sequence, then a RecurrentNetwork whose step is
//   FC(hidden_t_prev, gates_t_w, gates_t_b, axis 2) -> gates_t; Sum(gates_t, input_t) -> gates_t;
//   LSTMUnit(hidden_t_prev, cell_t_prev, gates_t, seq_lengths, timestep) -> (hidden_t, cell_t).
//
// GRU: FC(input, <scope>/i2h_w, <scope>/i2h_b, axis 2) -> <scope>/i2h [T, N, 3H], then a step of
//   Split(input_t, axis 2) -> (input_t_reset, input_t_update, input_t_output);
//   FC(hidden_t_prev, reset_gate_t_w, _b) -> reset_gate_t;  FC(.., update_gate_t_w, _b) ->
//   update_gate_t; Sum(reset_gate_t, input_t_reset) -> reset_gate_t (in place);
//   Sigmoid(reset_gate_t) -> reset_gate_t_sigmoid;
//   Mul(reset_gate_t_sigmoid, hidden_t_prev) -> modified_hidden_t_prev;
//   FC(modified_hidden_t_prev, output_gate_t_w, _b) -> output_gate_t
//     (linear_before_reset, cuDNN's variant: FC(hidden_t_prev, ..) -> output_gate_t, then
//      Mul(reset_gate_t_sigmoid, output_gate_t) -> output_gate_t_mul);
//   Sum(update_gate_t, input_t_update) -> update_gate_t (in place);
//   Sum(output gate, input_t_output) -> output_gate_t_summed;
//   Concat(reset_gate_t, update_gate_t, output_gate_t_summed, axis 2) -> (gates_t,
//   _gates_t_concat_dims); GRUUnit(hidden_t_prev, gates_t, seq_lengths, timestep) -> hidden_t.
// All step-net blobs are <scope>/<name>; every FC has axis 2.
#ifndef PARITY_CORE_RNN_RNN_CELL_H_
#define PARITY_CORE_RNN_RNN_CELL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/proto/caffe2.pb.h"

namespace parity {

// A parameter the init net must fill: name and shape.
struct RnnParameter {
  std::string name;
  std::vector<int64_t> dims;
};

// The op-level blob names default to those `parity rnn` gives the net's inputs.
struct LstmSpec {
  std::string input = "input";              // T x N x D
  std::string seq_lengths = "seq_lengths";  // int32 [N]
  std::string hidden_init = "hidden_init";  // [1, N, H] (or [H] / [N, H])
  std::string cell_init = "cell_init";
  int64_t dim_in = 0;   // D
  int64_t dim_out = 0;  // H
  std::string scope = "lstm";
  float forget_bias = 0.0f;
  bool drop_states = false;
  bool forward_only = false;
  // Recompute the gates on the backward pass instead of keeping them per step (Caffe2's
  // memory_optimization: recompute_blobs_on_backward = [gates_t]).
  bool memory_optimization = false;
  std::vector<int64_t> outputs_with_grads = {0};
};

struct LstmOutputs {
  std::string hidden_all, hidden_last, cell_all, cell_last;
  // The parameters, as the init net must fill them: i2h_w [4H, D], i2h_b [4H], gates_t_w [4H, H],
  // gates_t_b [4H] (gate order of LSTMUnit: input, forget, output, cell).
  std::string i2h_w, i2h_b, gates_t_w, gates_t_b;
  std::vector<RnnParameter> parameters;  // the four above with their shapes
};

LstmOutputs Lstm(caffe2::NetDef* net, const LstmSpec& spec);

struct GruSpec {
  std::string input = "input";              // T x N x D
  std::string seq_lengths = "seq_lengths";  // int32 [N]
  std::string hidden_init = "hidden_init";  // [1, N, H] (or [H] / [N, H])
  int64_t dim_in = 0;                       // D
  int64_t dim_out = 0;                      // H
  std::string scope = "gru";
  bool drop_states = false;
  bool linear_before_reset = false;
  bool forward_only = false;
  // Caffe2's GRUCell stores memory_optimization and ignores it. Here it recomputes every gate
  // blob of the step (all but the Split of input_t) on the backward pass instead of keeping them
  // per step: the LSTM's trade, made for the GRU.
  bool memory_optimization = false;
  std::vector<int64_t> outputs_with_grads = {0};
};

struct GruOutputs {
  std::string hidden_all, hidden_last;
  // i2h_w [3H, D], i2h_b [3H] (gate order of GRUUnit: reset, update, output), and
  // {reset,update,output}_gate_t_w [H, H], _b [H].
  std::vector<RnnParameter> parameters;
};

GruOutputs Gru(caffe2::NetDef* net, const GruSpec& spec);

// The cell builders are replaceable, as gradient makers are: a test plants a builder bug by
// installing a builder that wraps the one it replaces (tests/mutants/builder_mutants.cc), and
// Lstm and Gru call whichever is installed. Each Install returns the builder it replaced, to be
// installed again when done. Not synchronized: install before any thread builds.
using LstmBuilder = std::function<LstmOutputs(caffe2::NetDef*, const LstmSpec&)>;
using GruBuilder = std::function<GruOutputs(caffe2::NetDef*, const GruSpec&)>;
LstmBuilder InstallLstmBuilder(LstmBuilder builder);
GruBuilder InstallGruBuilder(GruBuilder builder);

}  // namespace parity

#endif  // PARITY_CORE_RNN_RNN_CELL_H_

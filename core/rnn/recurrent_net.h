// Builders of recurrent networks (C++ API): Caffe2's recurrent.recurrent_net (the newest version,
// seeds 001 #26 and 002). The cells built on it (LSTM, GRU) are in rnn_cell.h.
//
//   caffe2::NetDef cell;  // o_t = x_t * (x_t + o_{t-1}): Sum(input_t, o_prev) -> s; Mul -> o
//   cell.add_external_input("input_t"); ...; cell.add_external_output("o");
//   RecurrentNetSpec spec;
//   spec.cell_net = cell;
//   spec.input = {"input_t", "x"};
//   spec.initial_cell_inputs = {{"o_prev", "o_init"}};
//   spec.links = {{"o_prev", "o"}};
//   spec.scope = "rnn";
//   RecurrentNetOutputs out = RecurrentNet(&net, spec);  // out.outputs = {o_all, o_last}
//
// What the builder does (recurrent.py): the backward step net is the backward pass of the cell's
// ops with a gradient for each cell output ("<o>_grad"); ops that make a
// recompute_blobs_on_backward blob are repeated before it; forward blobs the backward net reads
// and the cell writes become its external inputs (the scratches); a gradient the backward net
// writes that also arrives from outside (the next step's contribution through a link) is written to
// "<blob>_accum" and added with Sum instead of overwriting; a recurrent input's gradient that
// nobody writes (a Sum first in the cell passes it through) is linked under the name the backward
// pass produced (seed 003); every cell input other than the sequence, the states and the timestep
// is an op input ("reference"), and those with a gradient are `param`s with their `param_grads`.
#ifndef PARITY_CORE_RNN_RECURRENT_NET_H_
#define PARITY_CORE_RNN_RECURRENT_NET_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/proto/caffe2.pb.h"

namespace parity {

struct RecurrentNetSpec {
  caffe2::NetDef cell_net;  // external inputs and outputs set
  // (cell blob, op-level T x N x ... blob): the one input sequence.
  std::pair<std::string, std::string> input;
  // (cell blob, op-level blob with its initial value), one per recurrent state.
  std::vector<std::pair<std::string, std::string>> initial_cell_inputs;
  // cell input at t + 1 -> the cell output at t it takes.
  std::map<std::string, std::string> links;
  std::string timestep = "timestep";
  std::string scope = "recurrent";
  std::vector<int64_t> outputs_with_grads = {0};
  std::vector<std::string> recompute_blobs_on_backward;
  bool forward_only = false;
};

struct RecurrentNetOutputs {
  // For each state, in order: "<cell output>_all" ((T + L - 1) x N x D) and "<cell output>_last".
  std::vector<std::string> outputs;
  std::string step_workspaces;
};

// Appends the RecurrentNetwork op to `net`. kBadArgument for a cell that does not fit (a state
// without a link, a link to a blob the cell does not output, a recomputed op with other outputs).
RecurrentNetOutputs RecurrentNet(caffe2::NetDef* net, const RecurrentNetSpec& spec);

}  // namespace parity

#endif  // PARITY_CORE_RNN_RECURRENT_NET_H_

// Shared by LSTMUnit / GRUUnit (rnn_unit.cc) and their gradients (rnn_unit_grad.cc): the argument
// declarations, so the arguments copied onto a gradient op validate, and the row views the
// kernels compute on (one batch row's gates or states at a time, through Eigen's packets).
#ifndef PARITY_CORE_OPS_RNN_UNIT_RNN_UNIT_H_
#define PARITY_CORE_OPS_RNN_UNIT_RNN_UNIT_H_

#include <Eigen/Core>

#include <cstdint>
#include <functional>
#include <vector>

#include "core/operator.h"
#include "core/schema.h"

namespace parity {
namespace rnn_unit_util {

// drop_states, sequence_lengths (GRUUnit's arguments).
OpSchema& RnnUnitArgs(OpSchema& schema);
// RnnUnitArgs + forget_bias (LSTMUnit's arguments).
OpSchema& LSTMUnitArgs(OpSchema& schema);

// One step's geometry and the rows inside their sequences: the CPU kernels' checks, shared with
// the CUDA kernels (gpu/ops/rnn_unit.cc) so both reject the same nets. `state_inputs` is 2 for
// LSTMUnit (hidden, cell), 1 for GRUUnit; `gate_count` 4 or 3.
struct RnnStep {
  int64_t n = 0;
  int64_t d = 0;
  int64_t t = 0;
  std::vector<bool> valid;  // row n is inside its sequence at this timestep
};
// The input count for sequence_lengths = has_lengths (kBadArgument otherwise).
void CheckRnnUnitInputCount(const Operator& op, int state_inputs, bool has_lengths);
// Shapes and dtypes of the states and gates, the timestep and the per-row validity. The timestep
// and lengths are read from `read_index(i)`, input i's values on the host (the CUDA kernel hands
// host copies of device inputs).
RnnStep PrepareRnnStep(const Operator& op, int state_inputs, int gate_count, bool has_lengths,
                       const std::function<std::vector<int64_t>(int)>& read_index);

// The gradients (rnn_unit_grad.cc): the forward op's inputs (states, gates, [seq_lengths],
// timestep), then `extra` tensors shaped like hidden_prev (the forward outputs and their
// gradients). Returns the count of forward inputs; kBadArgument for another input count.
int CheckRnnUnitGradientInputCount(const Operator& op, int state_inputs, int extra,
                                   bool has_lengths);
// The gradients' shape and dtype checks and the rows inside their sequences; `host_input(i)` is
// input i readable on the host (the timestep and lengths are read from it).
RnnStep PrepareRnnUnitGradientStep(const Operator& op, int state_inputs, int gate_count,
                                   bool has_lengths,
                                   const std::function<Tensor(int)>& host_input);

template <typename T>
using Row = Eigen::Array<T, Eigen::Dynamic, 1>;
template <typename T>
using RowMap = Eigen::Map<Row<T>>;
template <typename T>
using ConstRowMap = Eigen::Map<const Row<T>>;

}  // namespace rnn_unit_util
}  // namespace parity

#endif  // PARITY_CORE_OPS_RNN_UNIT_RNN_UNIT_H_

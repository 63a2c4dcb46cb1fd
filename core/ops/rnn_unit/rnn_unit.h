// Shared by LSTMUnit / GRUUnit (rnn_unit.cc) and their gradients (rnn_unit_grad.cc): the argument
// declarations, so the arguments copied onto a gradient op validate, and the row views the
// kernels compute on (one batch row's gates or states at a time, through Eigen's packets).
#ifndef PARITY_CORE_OPS_RNN_UNIT_RNN_UNIT_H_
#define PARITY_CORE_OPS_RNN_UNIT_RNN_UNIT_H_

#include <Eigen/Core>

#include "core/schema.h"

namespace parity {
namespace rnn_unit_util {

// drop_states, sequence_lengths (GRUUnit's arguments).
OpSchema& RnnUnitArgs(OpSchema& schema);
// RnnUnitArgs + forget_bias (LSTMUnit's arguments).
OpSchema& LSTMUnitArgs(OpSchema& schema);

template <typename T>
using Row = Eigen::Array<T, Eigen::Dynamic, 1>;
template <typename T>
using RowMap = Eigen::Map<Row<T>>;
template <typename T>
using ConstRowMap = Eigen::Map<const Row<T>>;

}  // namespace rnn_unit_util
}  // namespace parity

#endif  // PARITY_CORE_OPS_RNN_UNIT_RNN_UNIT_H_

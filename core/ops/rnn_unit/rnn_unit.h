// Argument declarations shared by LSTMUnit / GRUUnit (rnn_unit.cc) and their gradients
// (rnn_unit_grad.cc), so the arguments copied onto a gradient op validate.
#ifndef PARITY_CORE_OPS_RNN_UNIT_RNN_UNIT_H_
#define PARITY_CORE_OPS_RNN_UNIT_RNN_UNIT_H_

#include "core/schema.h"

namespace parity {
namespace rnn_unit_util {

// drop_states, sequence_lengths (GRUUnit's arguments).
OpSchema& RnnUnitArgs(OpSchema& schema);
// RnnUnitArgs + forget_bias (LSTMUnit's arguments).
OpSchema& LSTMUnitArgs(OpSchema& schema);

}  // namespace rnn_unit_util
}  // namespace parity

#endif  // PARITY_CORE_OPS_RNN_UNIT_RNN_UNIT_H_

// What RecurrentNetwork, its gradient op and its gradient maker share about the op's arguments.
#ifndef PARITY_CORE_RNN_RECURRENT_NETWORK_SCHEMA_H_
#define PARITY_CORE_RNN_RECURRENT_NETWORK_SCHEMA_H_

#include <string>

#include "core/argument.h"
#include "core/proto/caffe2.pb.h"
#include "core/schema.h"

namespace parity {

// The arguments of RecurrentNetwork, which its gradient op receives as well (copied by the maker).
void RecurrentNetworkArgs(OpSchema& schema);

// Whether the op has a backward step net (a NetDef, or non-empty text), i.e. is not forward-only.
bool HasBackwardStepNet(const ArgumentHelper& args);

// The name a step net gets in a step workspace: which net ("step_net", "backward_step_net"), the
// scratch blob, and a hash of the net's content.
std::string StepNetName(const std::string& which, const std::string& scratch,
                        const caffe2::NetDef& def);

}  // namespace parity

#endif  // PARITY_CORE_RNN_RECURRENT_NETWORK_SCHEMA_H_

// The edits the reducer (fuzz/reduce.h) tries on a case. Each returns the edited case, or nothing
// when the edit cannot be expressed (the caller moves on); whether the edited case still shows the
// finding is for the check to say.
#ifndef PARITY_FUZZ_CASE_EDITS_H_
#define PARITY_FUZZ_CASE_EDITS_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/proto/parity.pb.h"
#include "oracles/case_dims.h"

namespace parity::fuzz {

// What each op of a case's net wrote, op by op (a traced run): the values a removed op's consumers
// are fed.
using OpOutputs = std::vector<std::map<std::string, caffe2::TensorProto>>;

// The case without the ops at `removed`. A remaining op that read a removed op's output reads it
// as a new external input holding the value the op produced (from `outputs`). Nothing when that
// cannot be said with one value per blob name (two removed producers of one blob feeding the
// remaining ops, or a blob needed both as the case's input and as a removed op's output), when an
// output's value is unknown, or when no op would remain. Inputs no remaining op reads are dropped,
// and so are external outputs and losses nothing produces any more.
std::optional<Case> RemoveOps(const Case& c, const std::set<int>& removed,
                              const OpOutputs& outputs);

// The dim edits (ShrinkDimEverywhere, ShrinkDim, InputDimSizes) live with the oracles, which run
// cases shrunk the same way.
using oracles::InputDimSizes;
using oracles::ShrinkDim;
using oracles::ShrinkDimEverywhere;

enum class ValueEdit { kZeros, kIntegers, kOneDecimal };
// Input `input`'s floating values edited; nothing when that changes nothing (or it holds none).
std::optional<Case> EditValues(const Case& c, int input, ValueEdit edit);

// The case with argument `arg` of op `op` removed (the op takes its default); nothing for
// arguments holding nets.
std::optional<Case> RemoveArg(const Case& c, int op, int arg);

}  // namespace parity::fuzz

#endif  // PARITY_FUZZ_CASE_EDITS_H_

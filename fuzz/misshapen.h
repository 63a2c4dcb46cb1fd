// Single-op cases made wrong in one way: what a user's net gets wrong most (an input one longer on
// an axis, integers where floats belong, an input too many or too few). Both halves must refuse
// such a case alike, or take it alike and agree: the validity oracle holds them to it. Without such
// cases no campaign sees a deleted check (a `parity mutate` survivor class: the generators draw
// valid cases only, so production that stops checking a dtype or an arity computes on, unseen).
#ifndef PARITY_FUZZ_MISSHAPEN_H_
#define PARITY_FUZZ_MISSHAPEN_H_

#include <cstdint>
#include <optional>

#include "core/proto/parity.pb.h"

namespace parity::fuzz {

// `c` (a single-op case: its last op is the op under test) with one thing wrong, chosen by `pick`:
// a floating input's axis grown by one (the first slice repeated), one floating input fed as
// int32, an extra input (a copy of input 0), or the op's last input dropped. (Not a double among
// floats: the reference computes every floating value in its one precision and cannot tell them
// apart.) The description says which. Nullopt when the chosen edit does not
// apply (no floating input, a one-input op to drop from, ops that run nets).
std::optional<Case> MisshapenVariant(const Case& c, uint64_t pick);

}  // namespace parity::fuzz

#endif  // PARITY_FUZZ_MISSHAPEN_H_

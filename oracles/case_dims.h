// Cases with smaller inputs: every axis of one size cut to its first entries (the reducer's dim
// edits, fuzz/reduce.h), or one input's axis. The determinism oracle runs a net instance again on
// such a case: other shapes through the same ops, as a predictor meets batch after batch.
#ifndef PARITY_ORACLES_CASE_DIMS_H_
#define PARITY_ORACLES_CASE_DIMS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "core/proto/parity.pb.h"

namespace parity::oracles {

// The case with every input axis of size `from` cut to its first `to` entries; nothing when no
// axis has that size or `to` is not in [1, from).
std::optional<Case> ShrinkDimEverywhere(const Case& c, int64_t from, int64_t to);
// The case with axis `axis` of input `input` cut to its first `to` entries.
std::optional<Case> ShrinkDim(const Case& c, int input, int axis, int64_t to);
// The distinct dim sizes > 1 among the inputs, largest first.
std::vector<int64_t> InputDimSizes(const Case& c);

}  // namespace parity::oracles

#endif  // PARITY_ORACLES_CASE_DIMS_H_

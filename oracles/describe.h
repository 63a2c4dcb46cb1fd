// Human-readable Findings for terminals and test failures.
#ifndef PARITY_ORACLES_DESCRIBE_H_
#define PARITY_ORACLES_DESCRIBE_H_

#include <string>

#include "core/proto/parity.pb.h"

namespace parity::oracles {

// Several lines: oracle, error class, message, blamed op, per-blob metrics with the worst
// elements, and the repro command.
std::string DescribeFinding(const Finding& finding);
// One line: "[forward] value mismatch in FC: ...".
std::string DescribeFindingBrief(const Finding& finding);

}  // namespace parity::oracles

#endif  // PARITY_ORACLES_DESCRIBE_H_

// The limits a user sets through the environment, read the same way by both halves (the
// reference includes only core/proto/): a value that is not a whole number in range is an error
// naming the variable, never silently replaced by the default.
#ifndef PARITY_CORE_PROTO_ENV_LIMITS_H_
#define PARITY_CORE_PROTO_ENV_LIMITS_H_

#include <cstdint>
#include <optional>

namespace parity {

// PARITY_MAX_ALLOC_BYTES: the largest single allocation, a positive number of bytes; nullopt when
// unset or empty. Throws parity::Error (kBadArgument) when set to anything else.
std::optional<int64_t> MaxAllocBytesFromEnv();

// PARITY_MAX_LOOP_ITERATIONS: passes of one While before a resource-limit error, a non-negative
// number; nullopt when unset or empty. Throws parity::Error (kBadArgument) otherwise.
std::optional<int64_t> MaxLoopIterationsFromEnv();

}  // namespace parity

#endif  // PARITY_CORE_PROTO_ENV_LIMITS_H_

#include "core/proto/env_limits.h"

#include <cerrno>
#include <cstdlib>
#include <string>

#include "core/proto/error.h"

namespace parity {
namespace {

// The variable's value as a whole number of at least `minimum`; nullopt when unset or empty.
std::optional<int64_t> WholeNumberFromEnv(const char* variable, int64_t minimum,
                                          const char* meaning) {
  const char* env = std::getenv(variable);
  if (env == nullptr || *env == '\0') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(env, &end, 10);
  PARITY_ENFORCE(end != env && *end == '\0' && errno == 0 && value >= minimum,
                 ErrorKind::kBadArgument, variable, " must be ", meaning, ", got '", env, "'");
  return value;
}

}  // namespace

std::optional<int64_t> MaxAllocBytesFromEnv() {
  return WholeNumberFromEnv("PARITY_MAX_ALLOC_BYTES", 1, "a positive whole number of bytes");
}

std::optional<int64_t> MaxLoopIterationsFromEnv() {
  return WholeNumberFromEnv("PARITY_MAX_LOOP_ITERATIONS", 0, "a non-negative whole number");
}

}  // namespace parity

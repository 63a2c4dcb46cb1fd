// Integers read from the campaign's own JSON files (state.json, finding.json), which a user, a
// script or a half-copied shard may have changed: nlohmann's get<int64_t>() converts a float or
// an out-of-range unsigned with a cast whose result is undefined for 1e308, so every integer field
// is read through here, and anything but an int64 is a clear error naming the file and field.
#ifndef PARITY_FUZZ_JSON_FIELDS_H_
#define PARITY_FUZZ_JSON_FIELDS_H_

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "core/proto/error.h"

namespace parity::fuzz {

// `j` as an int64; kInvalidNet naming `what` (e.g. "state.json: cursor") otherwise.
inline int64_t JsonInt64(const nlohmann::json& j, const std::string& what) {
  const bool fits = j.is_number_integer() &&
                    (!j.is_number_unsigned() ||
                     j.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
  PARITY_ENFORCE(fits, ErrorKind::kInvalidNet, what, " is ", Printable(j.dump()),
                 ", not an integer of 64 bits");
  return j.get<int64_t>();
}

// `j`[key] as an int64, or `fallback` when `j` has no such key.
inline int64_t JsonInt64Or(const nlohmann::json& j, const char* key, int64_t fallback,
                           const std::string& what) {
  if (!j.is_object() || !j.contains(key)) return fallback;
  return JsonInt64(j.at(key), what + " " + key);
}

// `j` as a uint64 (a seed); kInvalidNet naming `what` otherwise.
inline uint64_t JsonUint64(const nlohmann::json& j, const std::string& what) {
  PARITY_ENFORCE(j.is_number_unsigned() || (j.is_number_integer() && j.get<int64_t>() >= 0),
                 ErrorKind::kInvalidNet, what, " is ", Printable(j.dump()),
                 ", not an unsigned integer of 64 bits");
  return j.get<uint64_t>();
}

}  // namespace parity::fuzz

#endif  // PARITY_FUZZ_JSON_FIELDS_H_

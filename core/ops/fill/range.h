// Range's length rule (range.cc), shared with its CUDA kernel (gpu/ops/misc.cc) so both devices
// size the output, and refuse a range, alike.
#ifndef PARITY_CORE_OPS_FILL_RANGE_H_
#define PARITY_CORE_OPS_FILL_RANGE_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "core/operator.h"
#include "core/proto/error.h"

namespace parity {

// Range's dtypes: float, double, int32, int64.
bool IsRangeType(DataType dtype);

// Each input holds one element of one Range dtype, all alike (kShapeMismatch naming the input).
// Metadata only: the inputs may be on any device.
void CheckRangeInputs(const Operator& op);

// max(ceil((stop - start) / step), 0), exact for integers: kBadArgument for a zero step, an int64
// overflow of stop - start or a float range without a finite length; kResourceLimit for a range
// no tensor can hold.
template <typename T>
int64_t RangeLength(const std::string& label, T start, T stop, T step) {
  PARITY_ENFORCE(step != T(0), ErrorKind::kBadArgument, label, ": step must not be 0");
  int64_t length = 0;
  if constexpr (std::is_integral_v<T>) {
    int64_t diff = 0;
    PARITY_ENFORCE(
        !__builtin_sub_overflow(static_cast<int64_t>(stop), static_cast<int64_t>(start), &diff),
        ErrorKind::kBadArgument, label, ": stop - start overflows int64 (start ", start, ", stop ",
        stop, ")");
    // diff / -1 overflows only for INT64_MIN, a length no tensor can hold anyway.
    PARITY_ENFORCE(!(step == T(-1) && diff == std::numeric_limits<int64_t>::min()),
                   ErrorKind::kResourceLimit, label, ": the range is too long");
    length = diff / static_cast<int64_t>(step);
    if (diff % step != 0 && (diff < 0) == (step < 0)) ++length;
  } else {
    const double steps = std::ceil((static_cast<double>(stop) - static_cast<double>(start)) /
                                   static_cast<double>(step));
    PARITY_ENFORCE(std::isfinite(steps) && steps < 9e15, ErrorKind::kBadArgument, label,
                   ": the range [", start, ", ", stop, ") in steps of ", step,
                   " has no finite length");
    length = static_cast<int64_t>(steps);
  }
  if (length < 0) length = 0;
  return length;
}

}  // namespace parity

#endif  // PARITY_CORE_OPS_FILL_RANGE_H_

// Implementation details of core/types.h (templates).
#ifndef PARITY_CORE_TYPES_INL_H_
#define PARITY_CORE_TYPES_INL_H_

#include "core/proto/error.h"

namespace parity {

template <typename Fn>
void DispatchNumeric(DataType dtype, const std::string& what, Fn&& fn) {
  switch (dtype) {
    case DataType::kFloat: fn(float{}); return;
    case DataType::kDouble: fn(double{}); return;
    case DataType::kInt32: fn(int32_t{}); return;
    case DataType::kInt64: fn(int64_t{}); return;
    case DataType::kBool: fn(bool{}); return;
    case DataType::kUint8: fn(uint8_t{}); return;
    case DataType::kInt8: fn(int8_t{}); return;
    case DataType::kInt16: fn(int16_t{}); return;
    case DataType::kUint16: fn(uint16_t{}); return;
    default:
      throw MakeError(ErrorKind::kShapeMismatch, what, ": unsupported dtype ", DataTypeName(dtype));
  }
}

}  // namespace parity

#endif  // PARITY_CORE_TYPES_INL_H_

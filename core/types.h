// Element types of tensors: the TensorProto.DataType values, their sizes, names and C++ types.
#ifndef PARITY_CORE_TYPES_H_
#define PARITY_CORE_TYPES_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace parity {

// Values are TensorProto.DataType's, so a dtype converts to and from the proto by a cast.
enum class DataType : int {
  kUndefined = 0,
  kFloat = 1,
  kInt32 = 2,
  kByte = 3,
  kString = 4,
  kBool = 5,
  kUint8 = 6,
  kInt8 = 7,
  kUint16 = 8,
  kInt16 = 9,
  kInt64 = 10,
  kFloat16 = 12,
  kDouble = 13,
};

// IEEE half precision kept as raw bits: parity stores fp16 tensors but does not compute in fp16.
struct Half {
  uint16_t bits = 0;
};

// Size in bytes of one element; 0 for kUndefined and kString (not storable in a Tensor).
size_t DataTypeSize(DataType dtype);
// "float", "int32", ... as written in messages and in `parity ops`.
const char* DataTypeName(DataType dtype);
// True for dtypes a Tensor can hold (every numeric type, bool and fp16 bits).
bool IsStorableDataType(DataType dtype);
bool IsFloatingDataType(DataType dtype);  // float, double, float16
// Parses a DataType from its proto value; returns false for values parity does not know.
bool DataTypeFromProtoValue(int64_t value, DataType* dtype);

template <typename T>
struct DataTypeOf;
#define PARITY_DATATYPE_OF(T, VALUE) \
  template <>                        \
  struct DataTypeOf<T> {             \
    static constexpr DataType value = VALUE; \
  };
PARITY_DATATYPE_OF(float, DataType::kFloat)
PARITY_DATATYPE_OF(double, DataType::kDouble)
PARITY_DATATYPE_OF(int32_t, DataType::kInt32)
PARITY_DATATYPE_OF(int64_t, DataType::kInt64)
PARITY_DATATYPE_OF(bool, DataType::kBool)
PARITY_DATATYPE_OF(uint8_t, DataType::kUint8)
PARITY_DATATYPE_OF(int8_t, DataType::kInt8)
PARITY_DATATYPE_OF(int16_t, DataType::kInt16)
PARITY_DATATYPE_OF(uint16_t, DataType::kUint16)
PARITY_DATATYPE_OF(Half, DataType::kFloat16)
#undef PARITY_DATATYPE_OF

// Calls fn(T{}) with T the C++ type of `dtype` among the numeric types (float16 excluded); throws a
// parity::Error naming `what` for any other dtype. Kernels use it to write one template per op.
template <typename Fn>
void DispatchNumeric(DataType dtype, const std::string& what, Fn&& fn);

}  // namespace parity

#include "core/types_inl.h"

#endif  // PARITY_CORE_TYPES_H_

#include "core/types.h"

namespace parity {

size_t DataTypeSize(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat: return 4;
    case DataType::kInt32: return 4;
    case DataType::kByte: return 1;
    case DataType::kBool: return 1;
    case DataType::kUint8: return 1;
    case DataType::kInt8: return 1;
    case DataType::kUint16: return 2;
    case DataType::kInt16: return 2;
    case DataType::kInt64: return 8;
    case DataType::kFloat16: return 2;
    case DataType::kDouble: return 8;
    case DataType::kUndefined:
    case DataType::kString: return 0;
  }
  return 0;
}

const char* DataTypeName(DataType dtype) {
  switch (dtype) {
    case DataType::kUndefined: return "undefined";
    case DataType::kFloat: return "float";
    case DataType::kInt32: return "int32";
    case DataType::kByte: return "byte";
    case DataType::kString: return "string";
    case DataType::kBool: return "bool";
    case DataType::kUint8: return "uint8";
    case DataType::kInt8: return "int8";
    case DataType::kUint16: return "uint16";
    case DataType::kInt16: return "int16";
    case DataType::kInt64: return "int64";
    case DataType::kFloat16: return "float16";
    case DataType::kDouble: return "double";
  }
  return "unknown";
}

bool IsStorableDataType(DataType dtype) { return DataTypeSize(dtype) != 0; }

bool IsFloatingDataType(DataType dtype) {
  return dtype == DataType::kFloat || dtype == DataType::kDouble || dtype == DataType::kFloat16;
}

bool DataTypeFromProtoValue(int64_t value, DataType* dtype) {
  switch (value) {
    case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7: case 8: case 9: case 10:
    case 12: case 13:
      *dtype = static_cast<DataType>(value);
      return true;
    default:
      return false;
  }
}

}  // namespace parity

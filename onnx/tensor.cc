#include "onnx/tensor.h"

#include <cstring>

#include "core/tensor_proto.h"

// raw_data is little-endian by the ONNX spec and is copied as is.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "ONNX raw_data needs a little-endian host");

namespace parity::onnx {
namespace {

using OnnxType = ::onnx::TensorProto::DataType;

std::string Label(const ::onnx::TensorProto& proto) {
  return proto.name().empty() ? std::string("ONNX tensor") : "ONNX tensor '" + proto.name() + "'";
}

// Copies a typed field into `tensor` as T, checking the count against the dims.
template <typename T, typename Field>
void CopyField(const ::onnx::TensorProto& proto, const Field& field, const char* field_name,
               Tensor* tensor) {
  PARITY_ENFORCE(static_cast<int64_t>(field.size()) == tensor->numel(), ErrorKind::kInvalidNet,
                 Label(proto), ": dims ", ShapeString(tensor->dims()), " need ", tensor->numel(),
                 " values but ", field_name, " has ", field.size());
  T* out = tensor->mutable_data<T>();
  for (int64_t i = 0; i < tensor->numel(); ++i) out[i] = static_cast<T>(field.Get(i));
}

}  // namespace

bool DataTypeFromOnnx(int onnx_type, DataType* dtype) {
  switch (onnx_type) {
    case ::onnx::TensorProto::FLOAT:
      *dtype = DataType::kFloat;
      return true;
    case ::onnx::TensorProto::UINT8:
      *dtype = DataType::kUint8;
      return true;
    case ::onnx::TensorProto::INT8:
      *dtype = DataType::kInt8;
      return true;
    case ::onnx::TensorProto::UINT16:
      *dtype = DataType::kUint16;
      return true;
    case ::onnx::TensorProto::INT16:
      *dtype = DataType::kInt16;
      return true;
    case ::onnx::TensorProto::INT32:
      *dtype = DataType::kInt32;
      return true;
    case ::onnx::TensorProto::INT64:
      *dtype = DataType::kInt64;
      return true;
    case ::onnx::TensorProto::BOOL:
      *dtype = DataType::kBool;
      return true;
    case ::onnx::TensorProto::FLOAT16:
      *dtype = DataType::kFloat16;
      return true;
    case ::onnx::TensorProto::DOUBLE:
      *dtype = DataType::kDouble;
      return true;
    default:
      return false;
  }
}

int OnnxDataType(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat:
      return ::onnx::TensorProto::FLOAT;
    case DataType::kUint8:
      return ::onnx::TensorProto::UINT8;
    case DataType::kInt8:
      return ::onnx::TensorProto::INT8;
    case DataType::kUint16:
      return ::onnx::TensorProto::UINT16;
    case DataType::kInt16:
      return ::onnx::TensorProto::INT16;
    case DataType::kInt32:
      return ::onnx::TensorProto::INT32;
    case DataType::kInt64:
      return ::onnx::TensorProto::INT64;
    case DataType::kBool:
      return ::onnx::TensorProto::BOOL;
    case DataType::kFloat16:
      return ::onnx::TensorProto::FLOAT16;
    case DataType::kDouble:
      return ::onnx::TensorProto::DOUBLE;
    default:
      throw MakeError(ErrorKind::kBadArgument, "dtype ", DataTypeName(dtype),
                      " has no ONNX tensor type");
  }
}

std::string OnnxDataTypeName(int onnx_type) {
  if (::onnx::TensorProto::DataType_IsValid(onnx_type)) {
    return ::onnx::TensorProto::DataType_Name(static_cast<OnnxType>(onnx_type));
  }
  return "data_type " + std::to_string(onnx_type);
}

DataType RequireDataType(int onnx_type, const std::string& what) {
  DataType dtype;
  PARITY_ENFORCE(DataTypeFromOnnx(onnx_type, &dtype), ErrorKind::kBadArgument, what,
                 " has ONNX type ", OnnxDataTypeName(onnx_type),
                 ", which parity cannot hold (it stores float, double, float16 bits, int8-64, "
                 "uint8, uint16 and bool)");
  return dtype;
}

Tensor TensorFromOnnx(const ::onnx::TensorProto& proto) {
  const DataType dtype = RequireDataType(proto.data_type(), Label(proto));
  PARITY_ENFORCE(
      proto.data_location() != ::onnx::TensorProto::EXTERNAL && proto.external_data_size() == 0,
      ErrorKind::kBadArgument, Label(proto),
      ": external data is not supported (the values must be in the file)");
  PARITY_ENFORCE(!proto.has_segment(), ErrorKind::kBadArgument, Label(proto),
                 ": segmented tensors are not supported");
  Tensor tensor(dtype, {proto.dims().begin(), proto.dims().end()});
  if (proto.has_raw_data()) {
    const std::string& raw = proto.raw_data();
    PARITY_ENFORCE(raw.size() == tensor.nbytes(), ErrorKind::kInvalidNet, Label(proto),
                   ": raw_data has ", raw.size(), " bytes, dims ", ShapeString(tensor.dims()),
                   " of ", DataTypeName(dtype), " need ", tensor.nbytes());
    if (dtype == DataType::kBool) {
      // A byte other than 0 or 1 must not become an invalid C++ bool.
      bool* out = tensor.mutable_data<bool>();
      for (size_t i = 0; i < raw.size(); ++i) out[i] = raw[i] != 0;
    } else if (!raw.empty()) {
      std::memcpy(tensor.raw_mutable_data(dtype), raw.data(), raw.size());
    } else {
      tensor.raw_mutable_data(dtype);
    }
    return tensor;
  }
  switch (dtype) {
    case DataType::kFloat:
      CopyField<float>(proto, proto.float_data(), "float_data", &tensor);
      break;
    case DataType::kDouble:
      CopyField<double>(proto, proto.double_data(), "double_data", &tensor);
      break;
    case DataType::kInt64:
      CopyField<int64_t>(proto, proto.int64_data(), "int64_data", &tensor);
      break;
    case DataType::kInt32:
      CopyField<int32_t>(proto, proto.int32_data(), "int32_data", &tensor);
      break;
    case DataType::kInt16:
      CopyField<int16_t>(proto, proto.int32_data(), "int32_data", &tensor);
      break;
    case DataType::kInt8:
      CopyField<int8_t>(proto, proto.int32_data(), "int32_data", &tensor);
      break;
    case DataType::kUint16:
      CopyField<uint16_t>(proto, proto.int32_data(), "int32_data", &tensor);
      break;
    case DataType::kUint8:
      CopyField<uint8_t>(proto, proto.int32_data(), "int32_data", &tensor);
      break;
    case DataType::kBool: {
      PARITY_ENFORCE(proto.int32_data_size() == tensor.numel(), ErrorKind::kInvalidNet,
                     Label(proto), ": dims ", ShapeString(tensor.dims()), " need ", tensor.numel(),
                     " values but int32_data has ", proto.int32_data_size());
      bool* out = tensor.mutable_data<bool>();
      for (int64_t i = 0; i < tensor.numel(); ++i) out[i] = proto.int32_data(i) != 0;
      break;
    }
    case DataType::kFloat16: {
      // ONNX keeps the 16 bits of each half in the low half of an int32_data entry.
      PARITY_ENFORCE(proto.int32_data_size() == tensor.numel(), ErrorKind::kInvalidNet,
                     Label(proto), ": dims ", ShapeString(tensor.dims()), " need ", tensor.numel(),
                     " values but int32_data has ", proto.int32_data_size());
      Half* out = tensor.mutable_data<Half>();
      for (int64_t i = 0; i < tensor.numel(); ++i) {
        out[i].bits = static_cast<uint16_t>(proto.int32_data(i));
      }
      break;
    }
    default:
      throw MakeError(ErrorKind::kInternal, Label(proto), ": dtype ", DataTypeName(dtype),
                      " has no reader");
  }
  return tensor;
}

caffe2::TensorProto Caffe2TensorFromOnnx(const ::onnx::TensorProto& proto) {
  return TensorToProto(TensorFromOnnx(proto), proto.name());
}

::onnx::TensorProto TensorToOnnx(const Tensor& tensor, const std::string& name) {
  ::onnx::TensorProto proto;
  if (!name.empty()) proto.set_name(name);
  proto.set_data_type(OnnxDataType(tensor.dtype()));
  for (int64_t d : tensor.dims()) proto.add_dims(d);
  // A bool is one byte 0/1 in both layouts, a half its 2 bits: the bytes are ONNX's raw_data.
  if (tensor.nbytes() == 0) {
    proto.set_raw_data("");
  } else {
    proto.set_raw_data(static_cast<const char*>(tensor.raw_data()), tensor.nbytes());
  }
  return proto;
}

::onnx::TensorProto OnnxTensorFromCaffe2(const caffe2::TensorProto& proto) {
  return TensorToOnnx(TensorFromProto(proto), proto.name());
}

}  // namespace parity::onnx

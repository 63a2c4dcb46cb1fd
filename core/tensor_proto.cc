#include "core/tensor_proto.h"

#include <cstring>

namespace parity {
namespace {

std::string ProtoLabel(const caffe2::TensorProto& proto) {
  return proto.name().empty() ? std::string("tensor") : "tensor '" + proto.name() + "'";
}

template <typename T, typename Field>
void CopyField(const caffe2::TensorProto& proto, const Field& field, Tensor* tensor,
               const char* field_name) {
  PARITY_ENFORCE(static_cast<int64_t>(field.size()) == tensor->numel(), ErrorKind::kInvalidNet,
                 ProtoLabel(proto), ": dims ", ShapeString(tensor->dims()), " need ",
                 tensor->numel(), " values but ", field_name, " has ", field.size());
  T* out = tensor->mutable_data<T>();
  for (int64_t i = 0; i < tensor->numel(); ++i) out[i] = static_cast<T>(field.Get(i));
}

// The name of the typed value field `proto` fills, or nullptr.
const char* TypedFieldInUse(const caffe2::TensorProto& proto) {
  if (proto.float_data_size() > 0) return "float_data";
  if (proto.double_data_size() > 0) return "double_data";
  if (proto.int32_data_size() > 0) return "int32_data";
  if (proto.int64_data_size() > 0) return "int64_data";
  if (proto.has_byte_data() && !proto.byte_data().empty()) return "byte_data";
  if (proto.string_data_size() > 0) return "string_data";
  return nullptr;
}

}  // namespace

Tensor TensorFromProto(const caffe2::TensorProto& proto) {
  DataType dtype;
  PARITY_ENFORCE(DataTypeFromProtoValue(proto.data_type(), &dtype) && IsStorableDataType(dtype),
                 ErrorKind::kInvalidNet, ProtoLabel(proto), ": unsupported data_type ",
                 static_cast<int>(proto.data_type()));
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  Tensor tensor;
  tensor.Resize(dims);
  if (proto.has_raw_data()) {
    // Two representations of one tensor: which one Caffe2 would read depends on its version, so
    // neither is taken silently.
    const char* typed = TypedFieldInUse(proto);
    PARITY_ENFORCE(typed == nullptr, ErrorKind::kInvalidNet, ProtoLabel(proto),
                   ": has both raw_data and ", typed == nullptr ? "" : typed,
                   "; a tensor holds its values in one field");
    size_t expected = static_cast<size_t>(tensor.numel()) * DataTypeSize(dtype);
    PARITY_ENFORCE(proto.raw_data().size() == expected, ErrorKind::kInvalidNet, ProtoLabel(proto),
                   ": raw_data has ", proto.raw_data().size(), " bytes, dims ",
                   ShapeString(dims), " of ", DataTypeName(dtype), " need ", expected);
    void* out = tensor.raw_mutable_data(dtype);
    if (expected > 0) std::memcpy(out, proto.raw_data().data(), expected);
    if (dtype == DataType::kBool) {
      // A bool is one byte of 0 or 1 (numpy's and Caffe2's); any other byte is not a bool, and
      // read as one it would come out of Cast as 2.0 or 255.0.
      const auto* bytes = reinterpret_cast<const unsigned char*>(proto.raw_data().data());
      for (size_t i = 0; i < expected; ++i) {
        PARITY_ENFORCE(bytes[i] <= 1, ErrorKind::kInvalidNet, ProtoLabel(proto),
                       ": bool raw_data byte ", i, " is ", static_cast<int>(bytes[i]),
                       " (a bool is 0 or 1)");
      }
    }
    return tensor;
  }
  switch (dtype) {
    case DataType::kFloat: CopyField<float>(proto, proto.float_data(), &tensor, "float_data"); break;
    case DataType::kDouble:
      CopyField<double>(proto, proto.double_data(), &tensor, "double_data");
      break;
    case DataType::kInt64:
      CopyField<int64_t>(proto, proto.int64_data(), &tensor, "int64_data");
      break;
    case DataType::kInt32:
      CopyField<int32_t>(proto, proto.int32_data(), &tensor, "int32_data");
      break;
    case DataType::kBool: CopyField<bool>(proto, proto.int32_data(), &tensor, "int32_data"); break;
    case DataType::kInt8: CopyField<int8_t>(proto, proto.int32_data(), &tensor, "int32_data"); break;
    case DataType::kInt16:
      CopyField<int16_t>(proto, proto.int32_data(), &tensor, "int32_data");
      break;
    case DataType::kUint16:
      CopyField<uint16_t>(proto, proto.int32_data(), &tensor, "int32_data");
      break;
    case DataType::kFloat16: {
      PARITY_ENFORCE(proto.int32_data_size() == tensor.numel(), ErrorKind::kInvalidNet,
                     ProtoLabel(proto), ": dims ", ShapeString(dims), " need ", tensor.numel(),
                     " fp16 values but int32_data has ", proto.int32_data_size());
      Half* out = tensor.mutable_data<Half>();
      for (int64_t i = 0; i < tensor.numel(); ++i) {
        out[i].bits = static_cast<uint16_t>(proto.int32_data(i));
      }
      break;
    }
    case DataType::kUint8:
    case DataType::kByte: {
      // Caffe2 writes uint8 to int32_data, and BYTE to byte_data; accept either.
      if (proto.has_byte_data()) {
        const std::string& bytes = proto.byte_data();
        PARITY_ENFORCE(static_cast<int64_t>(bytes.size()) == tensor.numel(),
                       ErrorKind::kInvalidNet, ProtoLabel(proto), ": dims ", ShapeString(dims),
                       " need ", tensor.numel(), " bytes but byte_data has ", bytes.size());
        uint8_t* out = tensor.mutable_data<uint8_t>();
        if (!bytes.empty()) std::memcpy(out, bytes.data(), bytes.size());
      } else {
        CopyField<uint8_t>(proto, proto.int32_data(), &tensor, "int32_data");
      }
      break;
    }
    default:
      throw MakeError(ErrorKind::kInvalidNet, ProtoLabel(proto), ": unsupported data_type ",
                      DataTypeName(dtype));
  }
  return tensor;
}

caffe2::TensorProto TensorToProto(const Tensor& tensor, const std::string& name) {
  caffe2::TensorProto proto;
  if (!name.empty()) proto.set_name(name);
  for (int64_t d : tensor.dims()) proto.add_dims(d);
  DataType dtype = tensor.dtype() == DataType::kByte ? DataType::kUint8 : tensor.dtype();
  proto.set_data_type(static_cast<caffe2::TensorProto::DataType>(dtype));
  const int64_t n = tensor.numel();
  switch (tensor.dtype()) {
    case DataType::kFloat: {
      const float* in = tensor.data<float>();
      proto.mutable_float_data()->Add(in, in + n);
      break;
    }
    case DataType::kDouble: {
      const double* in = tensor.data<double>();
      proto.mutable_double_data()->Add(in, in + n);
      break;
    }
    case DataType::kInt64: {
      const int64_t* in = tensor.data<int64_t>();
      proto.mutable_int64_data()->Add(in, in + n);
      break;
    }
    case DataType::kFloat16: {
      const Half* in = tensor.data<Half>();
      for (int64_t i = 0; i < n; ++i) proto.add_int32_data(in[i].bits);
      break;
    }
    case DataType::kUndefined:
      break;
    default:
      DispatchNumeric(tensor.dtype(), "TensorToProto", [&](auto zero) {
        using T = decltype(zero);
        const T* in = static_cast<const T*>(tensor.raw_data());
        for (int64_t i = 0; i < n; ++i) proto.add_int32_data(static_cast<int32_t>(in[i]));
      });
  }
  return proto;
}

}  // namespace parity

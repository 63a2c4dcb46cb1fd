// ONNX tensors <-> parity tensors. ONNX's TensorProto is not Caffe2's: the field numbers differ
// and so do the DataType numbers (ONNX INT64 is 7, Caffe2's is 10; ONNX 10 is FLOAT16), so every
// tensor and every dtype-valued attribute (Cast's `to`, ConstantOfShape's value) crosses here.
//
// Read: raw_data (fixed-width little-endian, bool one byte, float16 its 2-byte bits) and the typed
// fields (float_data; int32_data for int8/16, uint8/16, bool and float16 bits; int64_data;
// double_data), empty tensors (no data field at all) and 0-d scalars (no dims). Not representable
// in a parity Tensor, hence kBadArgument naming the tensor and its dtype: STRING, BFLOAT16,
// UINT32, UINT64, COMPLEX64/128, and external data.
#ifndef PARITY_ONNX_TENSOR_H_
#define PARITY_ONNX_TENSOR_H_

#include <string>

#include "core/proto/caffe2.pb.h"
#include "core/tensor.h"
#include "onnx/onnx.pb.h"

namespace parity::onnx {

// ONNX TensorProto.DataType value -> parity's; false for types a parity Tensor cannot hold.
bool DataTypeFromOnnx(int onnx_type, DataType* dtype);
// parity's -> ONNX's (kBadArgument for undefined, string and Caffe2's BYTE).
int OnnxDataType(DataType dtype);
// "FLOAT", "BFLOAT16", ... (the enum's name; "data_type 99" for unknown values).
std::string OnnxDataTypeName(int onnx_type);
// The parity dtype of ONNX type `onnx_type`, or kBadArgument saying `what` has an unsupported one.
DataType RequireDataType(int onnx_type, const std::string& what);

Tensor TensorFromOnnx(const ::onnx::TensorProto& proto);
// Caffe2's exchange format (the typed field Caffe2 uses for the dtype); the name is kept.
caffe2::TensorProto Caffe2TensorFromOnnx(const ::onnx::TensorProto& proto);

// Written as raw_data, as ONNX's own tools write tensors.
::onnx::TensorProto TensorToOnnx(const Tensor& tensor, const std::string& name = "");
::onnx::TensorProto OnnxTensorFromCaffe2(const caffe2::TensorProto& proto);

}  // namespace parity::onnx

#endif  // PARITY_ONNX_TENSOR_H_

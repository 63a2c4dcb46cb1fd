// Conversion between Tensor and caffe2::TensorProto (the exchange format of files, Cases and
// Findings).
#ifndef PARITY_CORE_TENSOR_PROTO_H_
#define PARITY_CORE_TENSOR_PROTO_H_

#include "core/proto/caffe2.pb.h"
#include "core/tensor.h"

namespace parity {

// Reads any storable dtype from its proto field (float_data, double_data, int32_data, int64_data,
// byte_data, or raw_data when set). Value counts must match dims (kInvalidNet otherwise).
Tensor TensorFromProto(const caffe2::TensorProto& proto);
// Writes `tensor` (CPU) into the proto field Caffe2 uses for its dtype; `name` is kept if non-empty.
caffe2::TensorProto TensorToProto(const Tensor& tensor, const std::string& name = "");

}  // namespace parity

#endif  // PARITY_CORE_TENSOR_PROTO_H_

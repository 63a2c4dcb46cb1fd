// core's DataType as the kernels' ElementType (gpu/kernels/dtype_body.h), for the CUDA ops of
// gpu/ops/dtype_*.cc.
#ifndef PARITY_GPU_OPS_ELEMENT_TYPE_H_
#define PARITY_GPU_OPS_ELEMENT_TYPE_H_

#include <string>

#include "core/proto/error.h"
#include "core/tensor.h"
#include "gpu/kernels/dtype_body.h"

namespace parity::gpu {

// kUnknownOp for a dtype no kernel takes (strings, float16): "run the op on the CPU", which the
// device oracle calls not applicable. The ops call it after the CPU's own dtype checks, so it
// only fires where the CPU accepts a dtype the device does not.
inline kernels::ElementType ElementTypeOf(DataType dtype, const std::string& label) {
  switch (dtype) {
    case DataType::kFloat:
      return kernels::ElementType::kFloat;
    case DataType::kDouble:
      return kernels::ElementType::kDouble;
    case DataType::kInt8:
      return kernels::ElementType::kInt8;
    case DataType::kInt16:
      return kernels::ElementType::kInt16;
    case DataType::kInt32:
      return kernels::ElementType::kInt32;
    case DataType::kInt64:
      return kernels::ElementType::kInt64;
    case DataType::kUint8:
      return kernels::ElementType::kUint8;
    case DataType::kUint16:
      return kernels::ElementType::kUint16;
    case DataType::kBool:
      return kernels::ElementType::kBool;
    default:
      break;
  }
  throw MakeError(ErrorKind::kUnknownOp, label, ": the CUDA kernel has no ", DataTypeName(dtype),
                  " version (run the op on the CPU)");
}

}  // namespace parity::gpu

#endif  // PARITY_GPU_OPS_ELEMENT_TYPE_H_

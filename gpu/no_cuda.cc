// gpu/device.h in a build without CUDA: no devices, and only host-to-host copies.
#include "gpu/device.h"

namespace parity::gpu {

bool CudaBuild() { return false; }
int DeviceCount() { return 0; }
std::string NoDeviceReason() { return "this build of parity has no CUDA (built without nvcc)"; }
void WarmUp() {}

void CopyTensor(const Tensor& src, Tensor* dst) {
  PARITY_ENFORCE(src.device().type == kCpuDeviceType && dst->device().type == kCpuDeviceType,
                 ErrorKind::kUnknownOp, "cannot copy a tensor from device type ", src.device().type,
                 " to device type ", dst->device().type, ": ", NoDeviceReason());
  dst->CopyFrom(src);
}

Tensor ToCpu(const Tensor& tensor) {
  if (tensor.device().type == kCpuDeviceType) return tensor;
  Tensor out;
  CopyTensor(tensor, &out);
  return out;
}

}  // namespace parity::gpu

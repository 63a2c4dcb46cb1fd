// The GPU half's public face, the same in every build: whether this build has CUDA, how many
// devices there are, and copies between host and device tensors. Nothing here names a CUDA type,
// so callers (the oracles, `parity run --device cuda`, tests) compile without CUDA headers; a
// build without --config=cuda links the stubs (no_cuda.cc), where there are zero devices.
#ifndef PARITY_GPU_DEVICE_H_
#define PARITY_GPU_DEVICE_H_

#include <string>

#include "core/tensor.h"

namespace parity::gpu {

// Whether gpu/ was compiled with CUDA (--config=cuda).
bool CudaBuild();

// The number of usable CUDA devices: 0 without a CUDA build, a driver or a device. Never throws
// and never aborts (cudaGetDeviceCount's errors are "no device"); asked once, then cached.
int DeviceCount();

// Why DeviceCount() is 0, for messages ("no CUDA device: ..."); "" when there are devices.
std::string NoDeviceReason();

// Creates device 0's context (stream, cuBLAS handle, allocator) now, where there is a device; a
// no-op elsewhere. A campaign's workers call it before their first case, so the driver's start-up
// (a second or more under load) is not timed as part of a case.
void WarmUp();

// Copies `src` (on any device) into `dst`, which keeps its own device: host to device, device to
// host, device to device, or host to host. kUnknownOp when a side is on a device this build or
// machine does not have. Synchronous: when it returns, dst holds the data.
void CopyTensor(const Tensor& src, Tensor* dst);

// A host copy of `tensor` (the tensor itself, shared, when it is already on the CPU).
Tensor ToCpu(const Tensor& tensor);

}  // namespace parity::gpu

#endif  // PARITY_GPU_DEVICE_H_

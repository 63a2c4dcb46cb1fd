// gpu/device.h in a CUDA build: the device count, the tensor allocator hook and copies.
#include "gpu/device.h"

#include <cuda_runtime.h>

#include <string>

#include "gpu/context.h"
#include "gpu/device_query.h"

namespace parity::gpu {
namespace {

// cudaGetDeviceCount fails without a driver ("CUDA driver version is insufficient") or a device;
// both mean zero devices here. It leaves its argument untouched on failure, hence the 0 first.
// Runs in a child process (device_query.h says why): this process stays free of CUDA until it
// runs a kernel or copies to a device.
DeviceCountAnswer AskCudaRuntime() {
  DeviceCountAnswer answer;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    answer.reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(status);
  } else if (count <= 0) {
    answer.reason = "the CUDA runtime reports no device";
  } else {
    answer.count = count;
  }
  return answer;
}

// Asked once, then cached.
const DeviceCountAnswer& Query() {
  static const DeviceCountAnswer* answer =
      new DeviceCountAnswer(QueryDeviceCountInChild(&AskCudaRuntime));
  return *answer;
}

// Tensor storage on CUDA devices (core/tensor.h's hook) comes from the device's caching allocator.
void* AllocateOnDevice(size_t bytes, int device_id) {
  return CudaContext::Get(device_id).allocator().Allocate(bytes);
}

void ReleaseOnDevice(void* ptr, int device_id) {
  CudaContext::Get(device_id).allocator().Release(ptr);
}

// After the kernels queued on the device's stream, as CopyTensor does.
void CopyDeviceToHost(void* host_dst, const void* device_src, size_t bytes, int device_id) {
  CudaContext& context = CudaContext::Get(device_id);
  DeviceGuard guard(context.device_id());
  CudaCheck(cudaMemcpyAsync(host_dst, device_src, bytes, cudaMemcpyDeviceToHost, context.stream()),
            "cudaMemcpyAsync");
  context.Synchronize();
}

void CopyOnDevice(void* dst, const void* src, size_t bytes, int device_id) {
  CudaContext& context = CudaContext::Get(device_id);
  DeviceGuard guard(context.device_id());
  // Asynchronous on the stream: the kernels that read dst later are queued behind it.
  CudaCheck(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, context.stream()),
            "cudaMemcpyAsync");
}

const bool kAllocatorRegistered = [] {
  RegisterDeviceAllocator(kCudaDeviceType, DeviceAllocator{AllocateOnDevice, ReleaseOnDevice,
                                                           CopyDeviceToHost, CopyOnDevice});
  return true;
}();

void CheckDevice(Device device) {
  PARITY_ENFORCE(device.type == kCpuDeviceType || device.type == kCudaDeviceType,
                 ErrorKind::kBadArgument, "device type ", device.type,
                 " holds no parity tensors (0 CPU, 1 CUDA)");
}

}  // namespace

bool CudaBuild() { return true; }
int DeviceCount() { return Query().count; }
std::string NoDeviceReason() { return Query().reason; }

void WarmUp() {
  if (DeviceCount() > 0) CudaContext::Get(0);
}

void CopyTensor(const Tensor& src, Tensor* dst) {
  CheckDevice(src.device());
  CheckDevice(dst->device());
  const bool src_cuda = src.device().type == kCudaDeviceType;
  const bool dst_cuda = dst->device().type == kCudaDeviceType;
  if (!src_cuda && !dst_cuda) {
    dst->CopyFrom(src);
    return;
  }
  if (&src == dst) return;
  if (!src.defined()) {
    *dst = Tensor(dst->device());
    return;
  }
  dst->Resize(src.dims());
  void* to = dst->raw_mutable_data(src.dtype());
  const void* from = src.raw_data();
  const size_t bytes = src.nbytes();
  if (bytes == 0) return;
  // The copy runs on the stream of the device side (the source's for device to device), after
  // the kernels that wrote the source; then the host waits, as the header promises.
  CudaContext& context = CudaContext::Get(src_cuda ? src.device().id : dst->device().id);
  DeviceGuard guard(context.device_id());
  if (src_cuda && dst_cuda && src.device().id != dst->device().id) {
    CudaCheck(cudaMemcpyPeerAsync(to, dst->device().id, from, src.device().id, bytes,
                                  context.stream()),
              "cudaMemcpyPeerAsync");
  } else {
    const cudaMemcpyKind kind = src_cuda ? (dst_cuda ? cudaMemcpyDeviceToDevice
                                                     : cudaMemcpyDeviceToHost)
                                         : cudaMemcpyHostToDevice;
    CudaCheck(cudaMemcpyAsync(to, from, bytes, kind, context.stream()), "cudaMemcpyAsync");
  }
  context.Synchronize();
}

Tensor ToCpu(const Tensor& tensor) {
  if (tensor.device().type == kCpuDeviceType) return tensor;
  Tensor out;
  CopyTensor(tensor, &out);
  return out;
}

}  // namespace parity::gpu

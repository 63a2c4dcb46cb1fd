// The per-device CUDA context (CUDA builds only): one stream, one cuBLAS handle bound to it, and a
// caching allocator, created on first use and kept for the life of the process (never destroyed:
// tearing CUDA down from static destructors races the runtime's own teardown).
//
// Every kernel and copy of a device runs on its one stream, in op order, so ops need no events;
// the host waits only where it reads device memory (CopyTensor to the CPU, CopyGPUToCPU).
#ifndef PARITY_GPU_CONTEXT_H_
#define PARITY_GPU_CONTEXT_H_

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <memory>

#include "gpu/caching_allocator.h"

namespace parity::gpu {

// Throws parity::Error for a failed CUDA call, naming `what` and CUDA's message: out of memory is
// kResourceLimit, anything else kInternal.
void CudaCheck(cudaError_t status, const char* what);
void CublasCheck(cublasStatus_t status, const char* what);

class CudaContext {
 public:
  // The context of `device_id`: kUnknownOp when there is no device (saying why), kBadArgument
  // when the id is not one of the DeviceCount() devices.
  static CudaContext& Get(int device_id);

  int device_id() const { return device_id_; }
  cudaStream_t stream() const { return stream_; }
  cublasHandle_t cublas() const { return cublas_; }
  CachingAllocator& allocator() { return *allocator_; }
  // Waits for everything enqueued on the stream; a kernel's asynchronous error surfaces here.
  void Synchronize();

 private:
  explicit CudaContext(int device_id);

  int device_id_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  std::unique_ptr<CachingAllocator> allocator_;
};

// Makes `device_id` current for a scope (CUDA's current device is per host thread).
class DeviceGuard {
 public:
  explicit DeviceGuard(int device_id);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace parity::gpu

#endif  // PARITY_GPU_CONTEXT_H_

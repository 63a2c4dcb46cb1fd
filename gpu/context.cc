#include "gpu/context.h"

#include <mutex>
#include <vector>

#include "core/proto/error.h"
#include "core/tensor.h"
#include "gpu/device.h"

namespace parity::gpu {

void CudaCheck(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  const ErrorKind kind =
      status == cudaErrorMemoryAllocation ? ErrorKind::kResourceLimit : ErrorKind::kInternal;
  // Clear the sticky-free error state so the next call does not report this one again.
  cudaGetLastError();
  throw MakeError(kind, what, ": CUDA error ", static_cast<int>(status), " (",
                  cudaGetErrorName(status), "): ", cudaGetErrorString(status));
}

void CublasCheck(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const ErrorKind kind =
      status == CUBLAS_STATUS_ALLOC_FAILED ? ErrorKind::kResourceLimit : ErrorKind::kInternal;
  throw MakeError(kind, what, ": cuBLAS error ", static_cast<int>(status), " (",
                  cublasGetStatusName(status), ")");
}

DeviceGuard::DeviceGuard(int device_id) {
  CudaCheck(cudaGetDevice(&previous_), "cudaGetDevice");
  if (previous_ != device_id) CudaCheck(cudaSetDevice(device_id), "cudaSetDevice");
}

DeviceGuard::~DeviceGuard() { cudaSetDevice(previous_); }

CudaContext::CudaContext(int device_id) : device_id_(device_id) {
  DeviceGuard guard(device_id);
  CudaCheck(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  CublasCheck(cublasCreate(&cublas_), "cublasCreate");
  CublasCheck(cublasSetStream(cublas_, stream_), "cublasSetStream");
  // Full f32 products (no TF32): the device oracle holds the GPU to the f32 reference's error,
  // and TF32's 10-bit mantissa would need its own tolerance class.
  CublasCheck(cublasSetMathMode(cublas_, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
  allocator_ = std::make_unique<CachingAllocator>(CachingAllocator::Backend{
      [device_id](size_t bytes) -> void* {
        DeviceGuard inner(device_id);
        void* ptr = nullptr;
        if (cudaMalloc(&ptr, bytes) != cudaSuccess) {
          cudaGetLastError();  // out of memory is reported by the allocator's null
          return nullptr;
        }
        return ptr;
      },
      [device_id](void* ptr) {
        DeviceGuard inner(device_id);
        cudaFree(ptr);
      }});
}

void CudaContext::Synchronize() { CudaCheck(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

CudaContext& CudaContext::Get(int device_id) {
  const int count = DeviceCount();
  PARITY_ENFORCE(count > 0, ErrorKind::kUnknownOp, "no CUDA device: ", NoDeviceReason());
  PARITY_ENFORCE(device_id >= 0 && device_id < count, ErrorKind::kBadArgument, "CUDA device_id ",
                 device_id, " does not exist (this machine has ", count, " CUDA device",
                 count == 1 ? "" : "s", ")");
  static std::mutex mutex;
  // Leaked on purpose (see the header): reachable from this static, so LeakSanitizer is quiet.
  static auto* contexts = new std::vector<CudaContext*>(count, nullptr);
  std::lock_guard<std::mutex> lock(mutex);
  CudaContext*& context = (*contexts)[device_id];
  if (context == nullptr) context = new CudaContext(device_id);
  return *context;
}

}  // namespace parity::gpu

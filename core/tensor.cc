#include "core/tensor.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>

#include "core/proto/env_limits.h"

namespace parity {
namespace {

// Eigen and SIMD kernels want aligned rows; 64 bytes covers AVX-512 and cache lines.
constexpr size_t kCpuAlignment = 64;

// The cap from PARITY_MAX_ALLOC_BYTES, else 4 GiB; a malformed value throws (the command line
// checks it at start-up, so it names the variable before any work).
int64_t InitialMaxAllocationBytes() { return MaxAllocBytesFromEnv().value_or(int64_t{4} << 30); }

std::atomic<int64_t>& MaxAllocation() {
  static std::atomic<int64_t> value{InitialMaxAllocationBytes()};
  return value;
}

std::mutex& AllocatorMutex() {
  static std::mutex mutex;
  return mutex;
}

std::map<int, DeviceAllocator>& Allocators() {
  static std::map<int, DeviceAllocator> allocators;
  return allocators;
}

DeviceAllocator AllocatorFor(int device_type) {
  std::lock_guard<std::mutex> lock(AllocatorMutex());
  auto it = Allocators().find(device_type);
  PARITY_ENFORCE(it != Allocators().end(), ErrorKind::kUnknownOp, "no allocator for device type ",
                 device_type, " (is this a CUDA build with a GPU present?)");
  return it->second;
}

}  // namespace

void RegisterDeviceAllocator(int device_type, DeviceAllocator allocator) {
  std::lock_guard<std::mutex> lock(AllocatorMutex());
  Allocators()[device_type] = allocator;
}

Tensor HostCopy(const Tensor& tensor) {
  if (tensor.device().type == kCpuDeviceType || !tensor.defined()) return tensor;
  const DeviceAllocator allocator = AllocatorFor(tensor.device().type);
  PARITY_ENFORCE(allocator.copy_to_host != nullptr, ErrorKind::kUnknownOp,
                 "no way to read device type ", tensor.device().type, " on the host");
  Tensor out(tensor.dtype(), tensor.dims());
  if (tensor.nbytes() > 0) {
    allocator.copy_to_host(out.raw_mutable_data(), tensor.raw_data(), tensor.nbytes(),
                           tensor.device().id);
  }
  return out;
}

void CopyBytes(Device device, void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || dst == src) return;
  if (device.type == kCpuDeviceType) {
    std::memmove(dst, src, bytes);
    return;
  }
  const DeviceAllocator allocator = AllocatorFor(device.type);
  PARITY_ENFORCE(allocator.copy_on_device != nullptr, ErrorKind::kUnknownOp,
                 "no way to copy within device type ", device.type);
  allocator.copy_on_device(dst, src, bytes, device.id);
}

int64_t MaxAllocationBytes() { return MaxAllocation().load(); }
void SetMaxAllocationBytes(int64_t bytes) { MaxAllocation().store(bytes); }

Storage::Storage(Device device, size_t capacity_bytes) : device_(device), capacity_(capacity_bytes) {
  PARITY_ENFORCE(capacity_bytes <= static_cast<uint64_t>(MaxAllocationBytes()),
                 ErrorKind::kResourceLimit, "allocation of ", capacity_bytes,
                 " bytes exceeds the cap of ", MaxAllocationBytes(),
                 " bytes (PARITY_MAX_ALLOC_BYTES)");
  size_t bytes = capacity_bytes == 0 ? 1 : capacity_bytes;
  if (device.type == kCpuDeviceType) {
    size_t rounded = (bytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
    data_ = std::aligned_alloc(kCpuAlignment, rounded);
  } else {
    data_ = AllocatorFor(device.type).allocate(bytes, device.id);
  }
  PARITY_ENFORCE(data_ != nullptr, ErrorKind::kResourceLimit, "out of memory allocating ",
                 capacity_bytes, " bytes on device type ", device.type);
}

Storage::~Storage() {
  if (device_.type == kCpuDeviceType) {
    std::free(data_);
  } else if (data_ != nullptr) {
    AllocatorFor(device_.type).release(data_, device_.id);
  }
}

int64_t CheckedNumElements(const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t d : dims) {
    PARITY_ENFORCE(d >= 0, ErrorKind::kBadArgument, "negative dimension ", d, " in dims ",
                   ShapeString(dims));
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / d) {
      // Keep scanning so a later negative dim is still reported as such.
      for (int64_t rest : dims) {
        PARITY_ENFORCE(rest >= 0, ErrorKind::kBadArgument, "negative dimension ", rest,
                       " in dims ", ShapeString(dims));
      }
      throw MakeError(ErrorKind::kResourceLimit, "the product of dims ", ShapeString(dims),
                      " overflows int64");
    }
    count *= d;
  }
  return count;
}

Tensor::Tensor(DataType dtype, std::vector<int64_t> dims, Device device) : device_(device) {
  Resize(dims);
  raw_mutable_data(dtype);
}

void Tensor::Resize(const std::vector<int64_t>& dims) {
  numel_ = CheckedNumElements(dims);
  dims_ = dims;
}

void Tensor::Reshape(const std::vector<int64_t>& dims) {
  int64_t count = CheckedNumElements(dims);
  PARITY_ENFORCE(count == numel_, ErrorKind::kShapeMismatch, "cannot reshape ",
                 ShapeString(dims_), " (", numel_, " elements) to ", ShapeString(dims), " (",
                 count, " elements)");
  dims_ = dims;
}

const void* Tensor::raw_data() const {
  PARITY_ENFORCE(storage_ != nullptr || nbytes() == 0, ErrorKind::kInternal,
                 "reading a tensor ", DebugString(), " that holds no data");
  if (storage_ == nullptr) return nullptr;
  return static_cast<const char*>(storage_->data()) + offset_bytes_;
}

void* Tensor::raw_mutable_data(DataType dtype) {
  PARITY_ENFORCE(IsStorableDataType(dtype), ErrorKind::kBadArgument, "a tensor cannot hold dtype ",
                 DataTypeName(dtype));
  size_t element_size = DataTypeSize(dtype);
  // numel_ * element_size can overflow size_t only past the int64 element count check for
  // huge element sizes; guard anyway so the cap check sees the true size.
  PARITY_ENFORCE(numel_ <= std::numeric_limits<int64_t>::max() / static_cast<int64_t>(element_size),
                 ErrorKind::kResourceLimit, "tensor ", ShapeString(dims_), " of ",
                 DataTypeName(dtype), " needs more than 2^63 bytes");
  size_t needed = static_cast<size_t>(numel_) * element_size;
  dtype_ = dtype;
  if (storage_ == nullptr || storage_->device() != device_ ||
      storage_->capacity() < offset_bytes_ + needed) {
    storage_ = std::make_shared<Storage>(device_, needed);
    offset_bytes_ = 0;
  }
  return static_cast<char*>(storage_->data()) + offset_bytes_;
}

void Tensor::ShareData(const Tensor& other) {
  dtype_ = other.dtype_;
  dims_ = other.dims_;
  numel_ = other.numel_;
  device_ = other.device_;
  storage_ = other.storage_;
  offset_bytes_ = other.offset_bytes_;
}

Tensor Tensor::View(int64_t element_offset, const std::vector<int64_t>& dims) const {
  int64_t count = CheckedNumElements(dims);
  PARITY_ENFORCE(element_offset >= 0 && element_offset + count <= numel_, ErrorKind::kShapeMismatch,
                 "view of ", ShapeString(dims), " at element ", element_offset,
                 " does not fit in tensor ", DebugString());
  Tensor view;
  view.dtype_ = dtype_;
  view.dims_ = dims;
  view.numel_ = count;
  view.device_ = device_;
  view.storage_ = storage_;
  view.offset_bytes_ = offset_bytes_ + static_cast<size_t>(element_offset) * DataTypeSize(dtype_);
  return view;
}

void Tensor::CopyFrom(const Tensor& other) {
  if (this == &other) return;
  PARITY_ENFORCE(other.device_ == device_ || !defined(), ErrorKind::kInternal,
                 "Tensor::CopyFrom across devices; use the device copy ops");
  device_ = other.device_;
  Resize(other.dims_);
  if (!other.defined()) {
    dtype_ = DataType::kUndefined;
    return;
  }
  void* dst = raw_mutable_data(other.dtype_);
  if (other.nbytes() > 0 && dst != other.raw_data()) {
    CopyBytes(device_, dst, other.raw_data(), other.nbytes());
  }
}

bool Tensor::SharesStorageWith(const Tensor& other) const {
  return storage_ != nullptr && storage_ == other.storage_;
}

int Tensor::CanonicalAxis(int64_t axis) const {
  int64_t rank = ndim();
  PARITY_ENFORCE(axis >= -rank && axis < rank, ErrorKind::kBadArgument, "axis ", axis,
                 " is out of range for a tensor of rank ", rank, " ", ShapeString(dims_));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::string Tensor::DebugString() const {
  return std::string(DataTypeName(dtype_)) + " " + ShapeString(dims_);
}

void Tensor::CheckDataType(DataType expected) const {
  PARITY_ENFORCE(dtype_ == expected, ErrorKind::kShapeMismatch, "expected a tensor of ",
                 DataTypeName(expected), ", got ", DebugString());
}

}  // namespace parity

// A dense tensor: dtype, int64 dims, device, and shared storage with a byte offset, so views and
// aliases (Alias, RNN links, offset aliases) share memory as Caffe2's ShareExternalPointer does.
#ifndef PARITY_CORE_TENSOR_H_
#define PARITY_CORE_TENSOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/proto/error.h"
#include "core/types.h"

namespace parity {

// DeviceTypeProto values: only CPU (0) and CUDA (1) hold parity tensors.
struct Device {
  int type = 0;
  int id = 0;
  bool operator==(const Device& other) const { return type == other.type && id == other.id; }
  bool operator!=(const Device& other) const { return !(*this == other); }
};
constexpr int kCpuDeviceType = 0;
constexpr int kCudaDeviceType = 1;
// DeviceTypeProto values run from 0 to PROTO_COMPILE_TIME_MAX_DEVICE_TYPES - 1.
constexpr int kDeviceTypeCount = 11;

// Memory for tensor data. Allocation goes through the device's allocator and the size cap.
class Storage {
 public:
  Storage(Device device, size_t capacity_bytes);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() { return data_; }
  size_t capacity() const { return capacity_; }
  Device device() const { return device_; }

 private:
  Device device_;
  void* data_ = nullptr;
  size_t capacity_ = 0;
};

// Hooks for non-CPU memory (the GPU library installs CUDA's); CPU is built in.
struct DeviceAllocator {
  void* (*allocate)(size_t bytes, int device_id) = nullptr;
  void (*release)(void* ptr, int device_id) = nullptr;
  // Copies `bytes` of device memory to the host after the device's pending work on it (what the
  // engine itself must read on the host: a control op's condition).
  void (*copy_to_host)(void* host_dst, const void* device_src, size_t bytes,
                       int device_id) = nullptr;
  // Copies `bytes` within one device's memory, in order with its pending work (the engine's own
  // moves of device data: RecurrentNetwork's initial states and settled links, CopyFrom).
  void (*copy_on_device)(void* dst, const void* src, size_t bytes, int device_id) = nullptr;
};
void RegisterDeviceAllocator(int device_type, DeviceAllocator allocator);

class Tensor;
// A host copy of `tensor` (the tensor itself, shared, when it is on the CPU already) through its
// device's copy_to_host hook: for the few values core reads on the host wherever they live, such
// as the bool condition of If and While. kUnknownOp when no hook serves the tensor's device.
Tensor HostCopy(const Tensor& tensor);
// Copies `bytes` from `src` to `dst`, both in `device`'s memory: memmove on the CPU, the device's
// copy_on_device hook elsewhere (kUnknownOp without one).
void CopyBytes(Device device, void* dst, const void* src, size_t bytes);

// The largest single allocation parity will make (default 4 GiB, or PARITY_MAX_ALLOC_BYTES).
// Larger requests fail with ErrorKind::kResourceLimit instead of an OOM kill.
int64_t MaxAllocationBytes();
void SetMaxAllocationBytes(int64_t bytes);

// Number of elements of `dims`: a negative dim is kBadArgument, an int64 overflow kResourceLimit.
int64_t CheckedNumElements(const std::vector<int64_t>& dims);

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Device device) : device_(device) {}
  Tensor(DataType dtype, std::vector<int64_t> dims, Device device = {});

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t dim(int axis) const { return dims_[CanonicalAxis(axis)]; }
  int ndim() const { return static_cast<int>(dims_.size()); }
  int64_t numel() const { return numel_; }
  size_t nbytes() const { return static_cast<size_t>(numel_) * DataTypeSize(dtype_); }
  Device device() const { return device_; }
  bool defined() const { return dtype_ != DataType::kUndefined; }
  // Whether the data of the current dims is there to read: a kernel that failed between Resize and
  // mutable_data leaves dims without a buffer behind.
  bool has_data() const {
    return nbytes() == 0 ||
           (storage_ != nullptr && storage_->capacity() >= offset_bytes_ + nbytes());
  }

  // Sets dims (validated); memory is (re)allocated lazily by mutable_data, and an existing buffer
  // is reused whenever it is large enough, so kernels that run repeatedly do not allocate.
  void Resize(const std::vector<int64_t>& dims);
  void ResizeLike(const Tensor& other) { Resize(other.dims()); }
  // Changes dims without touching data; the element count must stay the same.
  void Reshape(const std::vector<int64_t>& dims);

  // Typed access: data<T>() checks the dtype; mutable_data<T>() sets it and ensures capacity.
  template <typename T>
  const T* data() const {
    CheckDataType(DataTypeOf<T>::value);
    return static_cast<const T*>(raw_data());
  }
  template <typename T>
  T* mutable_data() {
    return static_cast<T*>(raw_mutable_data(DataTypeOf<T>::value));
  }
  const void* raw_data() const;
  void* raw_mutable_data(DataType dtype);
  void* raw_mutable_data() { return raw_mutable_data(dtype_); }

  // Makes this tensor an alias of `other`: same storage, offset, dims and dtype.
  void ShareData(const Tensor& other);
  // A tensor sharing this one's storage, starting `element_offset` elements in, with `dims`.
  Tensor View(int64_t element_offset, const std::vector<int64_t>& dims) const;
  // Deep copy of dims, dtype and data (same device only, through CopyBytes; cross-device copies
  // live in gpu/).
  void CopyFrom(const Tensor& other);
  bool SharesStorageWith(const Tensor& other) const;

  // Axis in [0, ndim) from one in [-ndim, ndim); kBadArgument otherwise.
  int CanonicalAxis(int64_t axis) const;
  std::string DebugString() const;  // "float [2, 3]"

  void CheckDataType(DataType expected) const;

 private:
  DataType dtype_ = DataType::kUndefined;
  // A new tensor has dims [] (a scalar), so its element count is 1: keeping the two consistent
  // lets kernels skip Resize when the dims are already right, rank 0 included.
  std::vector<int64_t> dims_;
  int64_t numel_ = 1;
  Device device_;
  std::shared_ptr<Storage> storage_;
  size_t offset_bytes_ = 0;
};

}  // namespace parity

#endif  // PARITY_CORE_TENSOR_H_

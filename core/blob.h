// A named slot of a workspace: holds a Tensor, or an opaque object (workspace stacks, RNN scratch
// workspaces) shared by pointer.
#ifndef PARITY_CORE_BLOB_H_
#define PARITY_CORE_BLOB_H_

#include <memory>
#include <string>
#include <typeindex>

#include "core/proto/error.h"
#include "core/tensor.h"

namespace parity {

class Blob {
 public:
  explicit Blob(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  bool IsTensor() const { return holds_tensor_; }
  bool IsEmpty() const { return !holds_tensor_ && object_ == nullptr; }

  // The tensor in this blob; kShapeMismatch if the blob holds an object.
  const Tensor& GetTensor() const {
    PARITY_ENFORCE(holds_tensor_, ErrorKind::kShapeMismatch, "blob '", name_, "' holds ",
                   Describe(), ", not a tensor");
    return tensor_;
  }
  // Makes the blob hold a tensor (dropping any object) and returns it for writing.
  Tensor* GetMutableTensor(Device device = {}) {
    if (!holds_tensor_) {
      object_.reset();
      tensor_ = Tensor(device);
      holds_tensor_ = true;
    }
    return &tensor_;
  }

  template <typename T>
  bool Holds() const {
    return object_ != nullptr && object_type_ == std::type_index(typeid(T));
  }
  template <typename T>
  T* GetObject() const {
    PARITY_ENFORCE(Holds<T>(), ErrorKind::kShapeMismatch, "blob '", name_, "' holds ", Describe(),
                   ", not the expected object");
    return static_cast<T*>(object_.get());
  }
  template <typename T>
  T* ResetObject(std::shared_ptr<T> object) {
    holds_tensor_ = false;
    tensor_ = Tensor();
    object_type_ = std::type_index(typeid(T));
    object_ = object;
    return object.get();
  }

  std::string Describe() const {
    if (holds_tensor_) return "a tensor " + tensor_.DebugString();
    if (object_ != nullptr) return std::string("an object of type ") + object_type_.name();
    return "nothing";
  }

 private:
  std::string name_;
  bool holds_tensor_ = false;
  Tensor tensor_;
  std::shared_ptr<void> object_;
  std::type_index object_type_ = std::type_index(typeid(void));
};

}  // namespace parity

#endif  // PARITY_CORE_BLOB_H_

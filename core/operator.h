// Operators: created from an OperatorDef in a workspace, registered by (type, device, engine).
//
// Construction validates the def against the op's schema (arity, argument types, in-place rules),
// resolves every input and output to a Blob pointer once (so Run does no name lookups), and fails
// with kMissingBlob when an input does not exist yet — as Caffe2 does. A kernel:
//
//   class ReluOp final : public Operator {
//    public:
//     using Operator::Operator;
//     void Run() override { ... Input(0) ... Output(0) ... }
//   };
//   PARITY_REGISTER_CPU_OPERATOR(Relu, ReluOp);
//
// `engine` selects alternative kernels (as in Caffe2); an unknown engine falls back to the default
// one. A default kernel may carry a name too (PARITY_REGISTER_CPU_OPERATOR_DEFAULT_ENGINE: Conv's
// default is "DNNL", its im2col kernel "IM2COL"). Tests register deliberately wrong kernels under
// test-only engines (mutants).
#ifndef PARITY_CORE_OPERATOR_H_
#define PARITY_CORE_OPERATOR_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/proto/caffe2.pb.h"
#include "core/schema.h"
#include "core/tensor.h"
#include "core/workspace.h"

namespace parity {

class Operator {
 public:
  Operator(const caffe2::OperatorDef& def, Workspace* ws);
  virtual ~Operator() = default;
  Operator(const Operator&) = delete;
  Operator& operator=(const Operator&) = delete;

  // Runs the kernel; user-caused failures throw parity::Error (the net adds the op's position).
  virtual void Run() = 0;

  // After Run: an op listing one blob at several output positions wrote each later position into
  // a private blob of its own, so that a kernel never writes two outputs through one tensor (a
  // statistics output resized under the data output's pointer). Moves them into the blob in
  // position order: the last write wins, as in Caffe2. The nets call it after every Run.
  void CommitAliasedOutputs();

  int InputSize() const { return static_cast<int>(inputs_.size()); }
  int OutputSize() const { return static_cast<int>(outputs_.size()); }
  // The tensor in input blob i (kShapeMismatch naming the blob if it holds no tensor).
  const Tensor& Input(int i) const { return inputs_[i]->GetTensor(); }
  // The tensor in output blob i, on this op's device, ready to Resize and write.
  Tensor* Output(int i) { return outputs_[i]->GetMutableTensor(device_); }
  Blob* InputBlob(int i) const { return inputs_[i]; }
  Blob* OutputBlob(int i) const { return outputs_[i]; }
  const std::string& InputName(int i) const { return def_.input(i); }
  const std::string& OutputName(int i) const { return def_.output(i); }

  const caffe2::OperatorDef& def() const { return def_; }
  const OpSchema& schema() const { return *schema_; }
  const ArgumentHelper& args() const { return args_; }
  Workspace* workspace() const { return ws_; }
  Device device() const { return device_; }
  const std::string& type() const { return def_.type(); }
  // "op Add 'sum1'" for messages.
  const std::string& label() const { return args_.op_label(); }

 protected:
  // Shorthand for kernels: the argument with the schema's default.
  template <typename T>
  T Arg(const std::string& name) const {
    return args_.template Get<T>(name);
  }
  template <typename T>
  std::vector<T> Args(const std::string& name) const {
    return args_.template GetVector<T>(name);
  }

 private:
  caffe2::OperatorDef def_;
  const OpSchema* schema_;
  ArgumentHelper args_;
  Workspace* ws_;
  Device device_;
  std::vector<Blob*> inputs_;
  std::vector<Blob*> outputs_;
  // Output positions repeating an earlier position's blob: the private blob the kernel writes,
  // and the workspace blob it is moved into after Run.
  std::vector<std::pair<std::unique_ptr<Blob>, Blob*>> aliased_outputs_;
};

using OperatorFactory =
    std::function<std::unique_ptr<Operator>(const caffe2::OperatorDef&, Workspace*)>;

class OperatorRegistry {
 public:
  static bool Register(const std::string& type, int device_type, const std::string& engine,
                       OperatorFactory factory);
  // Registers `factory` under `engine` and as the default engine "" of (type, device), so that a
  // default kernel with a name (Conv's "DNNL") is both what runs by default and selectable, and
  // `parity ops` can say which named engine the default is.
  static bool RegisterDefault(const std::string& type, int device_type, const std::string& engine,
                              OperatorFactory factory);
  // The engine the default kernel of (type, device) was registered under with RegisterDefault;
  // "" when it has no other name.
  static std::string DefaultEngine(const std::string& type, int device_type);
  // Exact (type, device, engine) or the default engine "" of that device; null if neither.
  static const OperatorFactory* Find(const std::string& type, int device_type,
                                     const std::string& engine);
  static bool HasKernel(const std::string& type, int device_type);
  // Registered engines for (type, device), "" being the default.
  static std::vector<std::string> Engines(const std::string& type, int device_type);
  static std::vector<std::string> Types(int device_type);
};

// Validates `def` against its schema and builds its kernel in `ws`. Errors: kUnknownOp (no schema
// or no kernel for the device), kBadArgument (arity, arguments, in-place), kMissingBlob (inputs).
std::unique_ptr<Operator> CreateOperator(const caffe2::OperatorDef& def, Workspace* ws);

// "op #3 (Add 'sum1')": how messages name an op of a net.
std::string OpContext(int index, const caffe2::OperatorDef& def);

}  // namespace parity

#define PARITY_OPERATOR_CONCAT_INNER(a, b) a##b
#define PARITY_OPERATOR_CONCAT(a, b) PARITY_OPERATOR_CONCAT_INNER(a, b)
#define PARITY_REGISTER_OPERATOR(type, device_type, engine, ...)                 \
  static const bool PARITY_OPERATOR_CONCAT(parity_registered_op_, __COUNTER__) = \
      ::parity::OperatorRegistry::Register(                                      \
          #type, device_type, engine,                                            \
          [](const ::caffe2::OperatorDef& def,                                   \
             ::parity::Workspace* ws) -> std::unique_ptr<::parity::Operator> {   \
            return std::make_unique<__VA_ARGS__>(def, ws);                       \
          })
// The default CPU kernel of `type`, also registered under engine `engine` (RegisterDefault).
#define PARITY_REGISTER_CPU_OPERATOR_DEFAULT_ENGINE(type, engine, ...)          \
  static const bool PARITY_OPERATOR_CONCAT(parity_registered_op_, __COUNTER__) = \
      ::parity::OperatorRegistry::RegisterDefault(                               \
          #type, ::parity::kCpuDeviceType, engine,                               \
          [](const ::caffe2::OperatorDef& def,                                   \
             ::parity::Workspace* ws) -> std::unique_ptr<::parity::Operator> {   \
            return std::make_unique<__VA_ARGS__>(def, ws);                       \
          })
#define PARITY_REGISTER_CPU_OPERATOR(type, ...) \
  PARITY_REGISTER_OPERATOR(type, ::parity::kCpuDeviceType, "", __VA_ARGS__)
#define PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(type, engine, ...) \
  PARITY_REGISTER_OPERATOR(type, ::parity::kCpuDeviceType, engine, __VA_ARGS__)

#endif  // PARITY_CORE_OPERATOR_H_

// OpSchema: everything parity knows about an op type apart from its kernels — arity, named
// arguments with types and defaults, in-place rules, shape and dtype inference, which inputs are
// differentiable, documentation. One per op type, declared next to the kernel:
//
//   PARITY_OP_SCHEMA(Relu)
//       .NumInputs(1).NumOutputs(1)
//       .AllowInplace({{0, 0}})
//       .ShapeInference(IdentityShape)
//       .Doc("Y = max(X, 0)");
#ifndef PARITY_CORE_SCHEMA_H_
#define PARITY_CORE_SCHEMA_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "core/types.h"

namespace parity {

class ArgumentHelper;

// kDataType: a TensorProto.DataType as its number (field i) or its name (field s, any case), as
// Caffe2's cast::GetCastDataType reads Cast's `to`.
enum class ArgType {
  kFloat,
  kInt,
  kString,
  kFloats,
  kInts,
  kStrings,
  kNet,
  kNets,
  kTensor,
  kTensors,
  kDataType
};
const char* ArgTypeName(ArgType type);

// A typed default: none (the argument is optional and its absence means something), a number, a
// string, or a list. Floats are kept as double so a default prints exactly.
using ArgValue = std::variant<std::monostate, double, int64_t, std::string, std::vector<double>,
                              std::vector<int64_t>, std::vector<std::string>>;
std::string ArgValueString(const ArgValue& value);

struct ArgSpec {
  std::string name;
  ArgType type;
  bool required = false;
  ArgValue default_value;
  std::string doc;
};

// The static type of a blob as shape inference sees it. `known` is false where it depends on data
// (Reshape by a shape input, Slice by index inputs, ...).
struct TensorType {
  DataType dtype = DataType::kFloat;
  std::vector<int64_t> dims;
  bool known = true;
};
std::string TensorTypeString(const TensorType& type);  // "float [2, 3]" or "unknown"

using ShapeFunction = std::function<std::vector<TensorType>(
    const caffe2::OperatorDef& def, const ArgumentHelper& args, const std::vector<TensorType>& in)>;

class OpSchema {
 public:
  OpSchema() = default;
  OpSchema(std::string type, std::string file, int line);

  // Arity: an exact count, a range, or any count matching a predicate.
  OpSchema& NumInputs(int n) { return NumInputs(n, n); }
  OpSchema& NumInputs(int min, int max);
  OpSchema& NumOutputs(int n) { return NumOutputs(n, n); }
  OpSchema& NumOutputs(int min, int max);
  OpSchema& NumInputsOutputs(std::function<bool(int inputs, int outputs)> check,
                             std::string description);

  // In-place: pairs (input index, output index) that may (Allow) or must (Enforce) share a name.
  // Anything else reading and writing one name is rejected.
  OpSchema& AllowInplace(std::vector<std::pair<int, int>> pairs);
  OpSchema& AllowInplace(std::function<bool(int input, int output)> rule);
  OpSchema& EnforceInplace(std::vector<std::pair<int, int>> pairs);
  OpSchema& AllowAnyInplace();

  OpSchema& Arg(const std::string& name, ArgType type, ArgValue default_value,
                const std::string& doc);
  OpSchema& RequiredArg(const std::string& name, ArgType type, const std::string& doc);

  OpSchema& ShapeInference(ShapeFunction fn);
  // Inputs for which gradients exist; by default every input of a float dtype is.
  OpSchema& DifferentiableInputs(std::vector<int> inputs);
  OpSchema& NotDifferentiable();
  // Outputs that carry no gradient (statistics such as LayerNorm's mean/std, SoftmaxWithLoss's
  // probabilities): the backward pass never reads their gradients, so a loss must not depend on
  // them (Caffe2's outputs_with_grads).
  OpSchema& NonDifferentiableOutputs(std::vector<int> outputs);
  OpSchema& Doc(std::string doc);
  // Outputs that are not a function of the inputs and arguments alone (a random stream, a fresh
  // workspace stack), and why: graph transforms never merge or fold such an op.
  OpSchema& Impure(std::string reason);
  // Applies a shared piece of schema (e.g. the arguments every filler takes): .Apply(FillerArgs).
  template <typename Fn>
  OpSchema& Apply(Fn&& fn) {
    fn(*this);
    return *this;
  }
  OpSchema& InputDoc(int index, std::string name, std::string doc);
  OpSchema& OutputDoc(int index, std::string name, std::string doc);

  // Checks arity, argument types and in-place rules of `def`; throws parity::Error (kBadArgument)
  // naming the op and the offending input/output/argument.
  void Verify(const caffe2::OperatorDef& def) const;
  // The arity part of Verify (input and output counts), which InferShapes also enforces: shape
  // functions index their inputs by the schema's arity.
  void CheckArity(const caffe2::OperatorDef& def) const;
  // Runs shape inference; returns unknown types where the op has no inference function.
  std::vector<TensorType> InferShapes(const caffe2::OperatorDef& def,
                                      const std::vector<TensorType>& inputs) const;

  const std::string& type() const { return type_; }
  int min_inputs() const { return min_inputs_; }
  int max_inputs() const { return max_inputs_; }
  int min_outputs() const { return min_outputs_; }
  int max_outputs() const { return max_outputs_; }
  const std::vector<ArgSpec>& args() const { return args_; }
  const ArgSpec* FindArg(const std::string& name) const;
  bool has_shape_inference() const { return static_cast<bool>(shape_fn_); }
  const ShapeFunction& shape_function() const { return shape_fn_; }
  bool IsDifferentiable(int input) const;
  bool IsOutputDifferentiable(int output) const;
  bool differentiable() const { return differentiable_; }
  bool IsInplaceAllowed(int input, int output) const;
  bool IsInplaceEnforced(int input, int output) const;
  const std::string& doc() const { return doc_; }
  bool impure() const { return !impure_reason_.empty(); }
  const std::string& impure_reason() const { return impure_reason_; }
  const std::map<int, std::pair<std::string, std::string>>& input_docs() const {
    return input_docs_;
  }
  const std::map<int, std::pair<std::string, std::string>>& output_docs() const {
    return output_docs_;
  }
  const std::string& file() const { return file_; }
  int line() const { return line_; }

 private:
  std::string type_;
  std::string file_;
  int line_ = 0;
  int min_inputs_ = 0;
  int max_inputs_ = std::numeric_limits<int>::max();
  int min_outputs_ = 0;
  int max_outputs_ = std::numeric_limits<int>::max();
  std::function<bool(int, int)> arity_check_;
  std::string arity_description_;
  std::function<bool(int, int)> inplace_allowed_;
  std::vector<std::pair<int, int>> inplace_enforced_;
  std::vector<ArgSpec> args_;
  ShapeFunction shape_fn_;
  bool differentiable_ = true;
  bool has_differentiable_list_ = false;
  std::vector<int> differentiable_inputs_;
  std::vector<int> non_differentiable_outputs_;
  std::string doc_;
  std::string impure_reason_;
  std::map<int, std::pair<std::string, std::string>> input_docs_;
  std::map<int, std::pair<std::string, std::string>> output_docs_;
};

class OpSchemaRegistry {
 public:
  // Registers a new schema; registering a type twice is a programming error (aborts at startup).
  static OpSchema& NewSchema(const std::string& type, const char* file, int line);
  static const OpSchema* Find(const std::string& type);
  // kUnknownOp naming the type when absent.
  static const OpSchema& Get(const std::string& type);
  static std::vector<std::string> Types();  // sorted
  // Puts `schema` in place of the registered schema of `type` and returns the one it replaces
  // (kUnknownOp when there is none). A fault-injection seam: the mutant catalogue
  // (tests/mutants) plants bugs in validation and shape inference this way, and restores the
  // original after. Not for use while another thread reads the registry.
  static OpSchema Replace(const std::string& type, OpSchema schema);
};

// Shape functions most ops share.
std::vector<TensorType> IdentityShape(const caffe2::OperatorDef& def, const ArgumentHelper& args,
                                      const std::vector<TensorType>& in);

}  // namespace parity

#define PARITY_SCHEMA_CONCAT_INNER(a, b) a##b
#define PARITY_SCHEMA_CONCAT(a, b) PARITY_SCHEMA_CONCAT_INNER(a, b)
#define PARITY_OP_SCHEMA(type)                                                      \
  static ::parity::OpSchema& PARITY_SCHEMA_CONCAT(parity_schema_##type, __LINE__) = \
      ::parity::OpSchemaRegistry::NewSchema(#type, __FILE__, __LINE__)

#endif  // PARITY_CORE_SCHEMA_H_

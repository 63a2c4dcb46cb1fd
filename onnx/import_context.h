// The importer's state while it translates one ONNX graph (onnx/importer.h is the public API):
// what is known about every value (dtype, static dims, import-time constant value), the net being
// written, and the node being translated. The translation rules (onnx/rules_*.cc) see only this.
#ifndef PARITY_ONNX_IMPORT_CONTEXT_H_
#define PARITY_ONNX_IMPORT_CONTEXT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "core/proto/error.h"
#include "core/schema.h"
#include "core/tensor.h"
#include "onnx/onnx.pb.h"

namespace parity::onnx {

// Something the importer does not translate: a node (by index, name and op type) and why — the op,
// one of its attributes, or a form of it.
struct UnsupportedNode {
  int node_index = -1;  // -1: not a node (an initializer)
  std::string node_name;
  std::string op_type;
  std::string reason;
  // "node #3 'resize1' (Resize): no translation: parity has no op for it"
  std::string ToString() const;
};

// One ONNX node as the rules read it: its inputs and outputs ("" where an optional one is left
// out), its attributes, and the opset of its domain that the model imports.
class Node {
 public:
  Node(const ::onnx::NodeProto& proto, int index, int opset);

  const ::onnx::NodeProto& proto() const { return *proto_; }
  const std::string& type() const { return proto_->op_type(); }
  int index() const { return index_; }
  int opset() const { return opset_; }

  int num_inputs() const { return proto_->input_size(); }
  int num_outputs() const { return proto_->output_size(); }
  // Input / output i, or "" when absent (past the end or left empty).
  std::string In(int i) const;
  std::string Out(int i) const;
  bool HasIn(int i) const { return !In(i).empty(); }
  bool HasOut(int i) const { return !Out(i).empty(); }
  // The present inputs, in order.
  std::vector<std::string> Inputs() const;

  const ::onnx::AttributeProto* Attr(const std::string& name) const;
  bool HasAttr(const std::string& name) const { return Attr(name) != nullptr; }
  int64_t Int(const std::string& name, int64_t fallback) const;
  float Float(const std::string& name, float fallback) const;
  std::string String(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> Ints(const std::string& name) const;  // empty when absent
  std::vector<float> Floats(const std::string& name) const;
  // Attributes a rule requires: kBadArgument naming the node when missing.
  int64_t RequiredInt(const std::string& name) const;
  std::vector<int64_t> RequiredInts(const std::string& name) const;

 private:
  const ::onnx::AttributeProto* Typed(const std::string& name, int type) const;

  const ::onnx::NodeProto* proto_;
  int index_;
  int opset_;
};

// Sets arguments on an emitted op: ctx.Emit("Conv", {x, w}, {y}).Ints("kernels", k).Int(...).
class OpBuilder {
 public:
  explicit OpBuilder(caffe2::OperatorDef* def) : def_(def) {}
  OpBuilder& Int(const std::string& name, int64_t value);
  OpBuilder& Float(const std::string& name, double value);
  OpBuilder& String(const std::string& name, const std::string& value);
  OpBuilder& Ints(const std::string& name, const std::vector<int64_t>& values);
  OpBuilder& Floats(const std::string& name, const std::vector<double>& values);
  OpBuilder& Net(const std::string& name, const caffe2::NetDef& net);
  caffe2::OperatorDef* def() { return def_; }

 private:
  caffe2::Argument* Add(const std::string& name);
  caffe2::OperatorDef* def_;
};

class ImportContext {
 public:
  // `names`: every value name of the model (temporaries never take one of them); `opsets`: the
  // model's opset per domain ("" for ai.onnx).
  ImportContext(std::set<std::string> names, std::map<std::string, int> opsets)
      : names_(std::move(names)), opsets_(std::move(opsets)) {}

  // The model's opset of `domain` ("" and "ai.onnx" are the default domain); 0 if not imported.
  int Opset(const std::string& domain) const;

  // --- What is known about values.
  // ONNX's declared type (dtype, dims where static); non-tensor or unholdable types are recorded
  // as the reason they cannot be imported.
  void Declare(const std::string& name, const ::onnx::TypeProto& type);
  void SetType(const std::string& name, const TensorType& type);
  void SetConstant(const std::string& name, const Tensor& value);
  // What `name` is when parity cannot hold it ("a STRING tensor", "a sequence"), or "".
  std::string Unholdable(const std::string& name) const;

  bool HasDtype(const std::string& name) const;
  DataType Dtype(const std::string& name) const;  // kBadArgument when unknown
  bool HasDims(const std::string& name) const;
  // Static dims; kBadArgument ("the shape of 'x' is not known at import time") otherwise.
  std::vector<int64_t> Dims(const std::string& name) const;
  int Rank(const std::string& name) const;
  const Tensor* Constant(const std::string& name) const;  // nullptr when not known
  // A constant's values as int64 (int32/int64 tensors); `what` names it in the error when the
  // value is not known at import time ("Slice's starts (input 1)").
  std::vector<int64_t> ConstantInts(const std::string& name, const std::string& what) const;
  double ConstantScalar(const std::string& name, const std::string& what) const;

  // --- Writing the net.
  caffe2::NetDef* net() { return net_; }
  void set_net(caffe2::NetDef* net) { net_ = net; }
  OpBuilder Emit(const std::string& type, const std::vector<std::string>& inputs,
                 const std::vector<std::string>& outputs);
  // A fresh blob name derived from `base`.
  std::string Temp(const std::string& base);
  // Emits a GivenTensor*Fill of `value` writing `name` (kBadArgument for float16).
  void EmitFill(const std::string& name, const Tensor& value);
  // A 0-d constant of `like`'s dtype (Add(x, 0.5) for HardSigmoid).
  std::string ScalarLike(double value, const std::string& like);

  // Runs the schemas' shape inference over ops [first, end) of the net, recording the types of
  // what they write (values ONNX already declared keep the declared type). Throws kBadArgument
  // for an op of an arity its schema does not take.
  void InferTypes(int first_op);

  // Translation notes ("Softmax on axis 1 of 3: Transpose around it"), kept once each.
  void Note(const std::string& note) { notes_.insert(note); }
  const std::set<std::string>& notes() const { return notes_; }

 private:
  struct Value {
    std::optional<DataType> dtype;
    std::optional<std::vector<int64_t>> dims;
    std::string unholdable;
    bool declared = false;
  };
  const Value* Find(const std::string& name) const;

  std::set<std::string> names_;
  std::map<std::string, int> opsets_;
  std::map<std::string, Value> values_;
  std::map<std::string, Tensor> constants_;
  caffe2::NetDef* net_ = nullptr;
  int temp_counter_ = 0;
  std::set<std::string> notes_;
};

// Helpers the rules share.
// Axis in [0, rank) from one in [-rank, rank); kBadArgument naming `what` otherwise.
int64_t NormalizeAxis(int64_t axis, int64_t rank, const std::string& what);
std::vector<int64_t> NormalizeAxes(const std::vector<int64_t>& axes, int64_t rank,
                                   const std::string& what);

}  // namespace parity::onnx

#endif  // PARITY_ONNX_IMPORT_CONTEXT_H_

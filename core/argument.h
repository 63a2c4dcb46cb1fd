// Typed access to an OperatorDef's arguments, with defaults from the op's schema.
//
// Get<T>(name) returns the argument if the op sets it, else the schema's default, else fails with
// kBadArgument (a required argument is missing). A value of the wrong kind (a float where an int is
// declared, a list where a scalar is) fails with kBadArgument naming the op and the argument.
// Ints are accepted where floats are expected (Python's MakeArgument stores 1 as an int).
#ifndef PARITY_CORE_ARGUMENT_H_
#define PARITY_CORE_ARGUMENT_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "core/schema.h"

namespace parity {

class ArgumentHelper {
 public:
  // `schema` may be null (then only the op's own arguments are known, with no defaults).
  ArgumentHelper(const caffe2::OperatorDef& def, const OpSchema* schema);
  explicit ArgumentHelper(const caffe2::NetDef& net);  // NetDef.arg, no schema

  bool Has(const std::string& name) const { return args_.count(name) > 0; }
  const caffe2::Argument* Find(const std::string& name) const;

  // T: float, double, int, int64_t, bool, std::string.
  template <typename T>
  T Get(const std::string& name) const;
  template <typename T>
  T Get(const std::string& name, const T& fallback) const;  // fallback overrides the schema
  // T: float, double, int, int64_t, std::string. A missing list with no default is empty.
  template <typename T>
  std::vector<T> GetVector(const std::string& name) const;
  // A NetDef argument: field n, or the net in protobuf text format in field s (Caffe2's
  // recurrent_net passes step nets as text); kBadArgument when the text does not parse.
  caffe2::NetDef GetNet(const std::string& name) const;
  std::vector<caffe2::NetDef> GetNets(const std::string& name) const;
  const caffe2::TensorProto& GetTensorProto(const std::string& name) const;

  // "op Add 'sum1'" for messages.
  const std::string& op_label() const { return label_; }

 private:
  const ArgSpec* Spec(const std::string& name) const;

  std::unordered_map<std::string, const caffe2::Argument*> args_;
  const OpSchema* schema_ = nullptr;
  std::string label_;
};

// A kDataType argument (Cast's `to`) as its TensorProto.DataType number: field i as is, field s
// parsed by name in any case ("float", "INT32"); kBadArgument for an unknown name.
int64_t DataTypeArgument(const ArgumentHelper& args, const std::string& name);

// "op Add 'sum1'" (name only when set).
std::string OpLabel(const caffe2::OperatorDef& def);

}  // namespace parity

#endif  // PARITY_CORE_ARGUMENT_H_

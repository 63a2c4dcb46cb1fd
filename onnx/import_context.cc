#include "onnx/import_context.h"

#include "onnx/tensor.h"

namespace parity::onnx {

std::string UnsupportedNode::ToString() const {
  std::string out = node_index < 0 ? std::string("model") : "node #" + std::to_string(node_index);
  if (!node_name.empty()) out += " '" + node_name + "'";
  if (!op_type.empty()) out += " (" + op_type + ")";
  return out + ": " + reason;
}

// ---------------------------------------------------------------------------------------------
// Node

Node::Node(const ::onnx::NodeProto& proto, int index, int opset)
    : proto_(&proto), index_(index), opset_(opset) {}

std::string Node::In(int i) const { return i < proto_->input_size() ? proto_->input(i) : ""; }
std::string Node::Out(int i) const { return i < proto_->output_size() ? proto_->output(i) : ""; }

std::vector<std::string> Node::Inputs() const {
  std::vector<std::string> inputs;
  for (const auto& name : proto_->input()) {
    if (!name.empty()) inputs.push_back(name);
  }
  return inputs;
}

const ::onnx::AttributeProto* Node::Attr(const std::string& name) const {
  for (const auto& attr : proto_->attribute()) {
    if (attr.name() == name) return &attr;
  }
  return nullptr;
}

// The attribute if present; kBadArgument when it has another type. Attributes written before IR 2
// carry no type: the field that is set decides.
const ::onnx::AttributeProto* Node::Typed(const std::string& name, int type) const {
  const ::onnx::AttributeProto* attr = Attr(name);
  if (attr == nullptr) return nullptr;
  if (attr->type() != ::onnx::AttributeProto::UNDEFINED) {
    PARITY_ENFORCE(attr->type() == type, ErrorKind::kBadArgument, "attribute '", name,
                   "' has type ", ::onnx::AttributeProto::AttributeType_Name(attr->type()),
                   ", expected ",
                   ::onnx::AttributeProto::AttributeType_Name(
                       static_cast<::onnx::AttributeProto::AttributeType>(type)));
  }
  return attr;
}

int64_t Node::Int(const std::string& name, int64_t fallback) const {
  const auto* attr = Typed(name, ::onnx::AttributeProto::INT);
  return attr ? attr->i() : fallback;
}

float Node::Float(const std::string& name, float fallback) const {
  const auto* attr = Typed(name, ::onnx::AttributeProto::FLOAT);
  return attr ? attr->f() : fallback;
}

std::string Node::String(const std::string& name, const std::string& fallback) const {
  const auto* attr = Typed(name, ::onnx::AttributeProto::STRING);
  return attr ? attr->s() : fallback;
}

std::vector<int64_t> Node::Ints(const std::string& name) const {
  const auto* attr = Typed(name, ::onnx::AttributeProto::INTS);
  if (attr == nullptr) return {};
  return {attr->ints().begin(), attr->ints().end()};
}

std::vector<float> Node::Floats(const std::string& name) const {
  const auto* attr = Typed(name, ::onnx::AttributeProto::FLOATS);
  if (attr == nullptr) return {};
  return {attr->floats().begin(), attr->floats().end()};
}

int64_t Node::RequiredInt(const std::string& name) const {
  PARITY_ENFORCE(HasAttr(name), ErrorKind::kBadArgument, "required attribute '", name,
                 "' is missing");
  return Int(name, 0);
}

std::vector<int64_t> Node::RequiredInts(const std::string& name) const {
  PARITY_ENFORCE(HasAttr(name), ErrorKind::kBadArgument, "required attribute '", name,
                 "' is missing");
  return Ints(name);
}

// ---------------------------------------------------------------------------------------------
// OpBuilder

caffe2::Argument* OpBuilder::Add(const std::string& name) {
  caffe2::Argument* arg = def_->add_arg();
  arg->set_name(name);
  return arg;
}

OpBuilder& OpBuilder::Int(const std::string& name, int64_t value) {
  Add(name)->set_i(value);
  return *this;
}

OpBuilder& OpBuilder::Float(const std::string& name, double value) {
  Add(name)->set_f(static_cast<float>(value));
  return *this;
}

OpBuilder& OpBuilder::String(const std::string& name, const std::string& value) {
  Add(name)->set_s(value);
  return *this;
}

OpBuilder& OpBuilder::Ints(const std::string& name, const std::vector<int64_t>& values) {
  caffe2::Argument* arg = Add(name);
  for (int64_t v : values) arg->add_ints(v);
  return *this;
}

OpBuilder& OpBuilder::Floats(const std::string& name, const std::vector<double>& values) {
  caffe2::Argument* arg = Add(name);
  for (double v : values) arg->add_floats(static_cast<float>(v));
  return *this;
}

OpBuilder& OpBuilder::Net(const std::string& name, const caffe2::NetDef& net) {
  *Add(name)->mutable_n() = net;
  return *this;
}

// ---------------------------------------------------------------------------------------------
// ImportContext

int ImportContext::Opset(const std::string& domain) const {
  auto it = opsets_.find(domain == "ai.onnx" ? "" : domain);
  return it == opsets_.end() ? 0 : it->second;
}

void ImportContext::Declare(const std::string& name, const ::onnx::TypeProto& type) {
  Value& value = values_[name];
  value.declared = true;
  switch (type.value_case()) {
    case ::onnx::TypeProto::kTensorType:
      break;
    case ::onnx::TypeProto::kSequenceType:
      value.unholdable = "a sequence";
      return;
    case ::onnx::TypeProto::kOptionalType:
      value.unholdable = "an optional";
      return;
    case ::onnx::TypeProto::kMapType:
      value.unholdable = "a map";
      return;
    case ::onnx::TypeProto::kSparseTensorType:
      value.unholdable = "a sparse tensor";
      return;
    default:
      return;  // no type given: known from the ops that write it, if at all
  }
  const auto& tensor = type.tensor_type();
  if (tensor.elem_type() != ::onnx::TensorProto::UNDEFINED) {
    DataType dtype;
    if (DataTypeFromOnnx(tensor.elem_type(), &dtype)) {
      value.dtype = dtype;
    } else {
      value.unholdable = "a " + OnnxDataTypeName(tensor.elem_type()) + " tensor";
    }
  }
  if (!tensor.has_shape()) return;
  std::vector<int64_t> dims;
  for (const auto& dim : tensor.shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() < 0) return;  // symbolic: not static
    dims.push_back(dim.dim_value());
  }
  value.dims = dims;
}

void ImportContext::SetType(const std::string& name, const TensorType& type) {
  Value& value = values_[name];
  if (!value.dtype) value.dtype = type.dtype;
  if (!value.dims && type.known) value.dims = type.dims;
}

void ImportContext::SetConstant(const std::string& name, const Tensor& value) {
  Tensor copy;
  copy.CopyFrom(value);
  constants_[name] = copy;
  Value& info = values_[name];
  info.dtype = value.dtype();
  info.dims = value.dims();
}

const ImportContext::Value* ImportContext::Find(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

std::string ImportContext::Unholdable(const std::string& name) const {
  const Value* value = Find(name);
  return value ? value->unholdable : "";
}

bool ImportContext::HasDtype(const std::string& name) const {
  const Value* value = Find(name);
  return value && value->dtype;
}

DataType ImportContext::Dtype(const std::string& name) const {
  PARITY_ENFORCE(HasDtype(name), ErrorKind::kBadArgument, "the dtype of '", name,
                 "' is not known at import time");
  return *Find(name)->dtype;
}

bool ImportContext::HasDims(const std::string& name) const {
  const Value* value = Find(name);
  return value && value->dims;
}

std::vector<int64_t> ImportContext::Dims(const std::string& name) const {
  PARITY_ENFORCE(HasDims(name), ErrorKind::kBadArgument, "the shape of '", name,
                 "' is not known at import time");
  return *Find(name)->dims;
}

int ImportContext::Rank(const std::string& name) const {
  return static_cast<int>(Dims(name).size());
}

const Tensor* ImportContext::Constant(const std::string& name) const {
  auto it = constants_.find(name);
  return it == constants_.end() ? nullptr : &it->second;
}

std::vector<int64_t> ImportContext::ConstantInts(const std::string& name,
                                                 const std::string& what) const {
  const Tensor* value = Constant(name);
  PARITY_ENFORCE(value != nullptr, ErrorKind::kBadArgument, what, " '", name,
                 "' is not a constant at import time (an initializer, a Constant or a bound "
                 "input)");
  std::vector<int64_t> out;
  if (value->dtype() == DataType::kInt64) {
    out.assign(value->data<int64_t>(), value->data<int64_t>() + value->numel());
  } else if (value->dtype() == DataType::kInt32) {
    out.assign(value->data<int32_t>(), value->data<int32_t>() + value->numel());
  } else {
    throw MakeError(ErrorKind::kBadArgument, what, " '", name, "' has dtype ",
                    DataTypeName(value->dtype()), ", expected int32 or int64");
  }
  return out;
}

double ConstantAsDouble(const Tensor& value, int64_t i) {
  double out = 0;
  DispatchNumeric(value.dtype(), "constant", [&](auto zero) {
    using T = decltype(zero);
    out = static_cast<double>(static_cast<const T*>(value.raw_data())[i]);
  });
  return out;
}

double ImportContext::ConstantScalar(const std::string& name, const std::string& what) const {
  const Tensor* value = Constant(name);
  PARITY_ENFORCE(value != nullptr, ErrorKind::kBadArgument, what, " '", name,
                 "' is not a constant at import time (an initializer, a Constant or a bound "
                 "input)");
  PARITY_ENFORCE(value->numel() == 1, ErrorKind::kBadArgument, what, " '", name, "' has shape ",
                 ShapeString(value->dims()), ", expected one value");
  return ConstantAsDouble(*value, 0);
}

OpBuilder ImportContext::Emit(const std::string& type, const std::vector<std::string>& inputs,
                              const std::vector<std::string>& outputs) {
  caffe2::OperatorDef* def = net_->add_op();
  def->set_type(type);
  for (const auto& name : inputs) def->add_input(name);
  for (const auto& name : outputs) def->add_output(name);
  return OpBuilder(def);
}

std::string ImportContext::Temp(const std::string& base) {
  std::string name;
  do {
    name = base + "__onnx" + std::to_string(++temp_counter_);
  } while (names_.count(name) > 0);
  names_.insert(name);
  return name;
}

void ImportContext::EmitFill(const std::string& name, const Tensor& value) {
  const int64_t n = value.numel();
  const std::vector<int64_t> shape = value.dims();
  switch (value.dtype()) {
    case DataType::kFloat: {
      const float* data = value.data<float>();
      Emit("GivenTensorFill", {}, {name}).Ints("shape", shape).Floats("values", {data, data + n});
      return;
    }
    case DataType::kDouble: {
      // Argument.floats is float: a double constant keeps f32 precision (Caffe2's own limit).
      const double* data = value.data<double>();
      Emit("GivenTensorDoubleFill", {}, {name})
          .Ints("shape", shape)
          .Floats("values", {data, data + n});
      return;
    }
    case DataType::kInt64: {
      const int64_t* data = value.data<int64_t>();
      Emit("GivenTensorInt64Fill", {}, {name})
          .Ints("shape", shape)
          .Ints("values", {data, data + n});
      return;
    }
    case DataType::kInt32: {
      const int32_t* data = value.data<int32_t>();
      Emit("GivenTensorIntFill", {}, {name}).Ints("shape", shape).Ints("values", {data, data + n});
      return;
    }
    case DataType::kBool: {
      const bool* data = value.data<bool>();
      Emit("GivenTensorBoolFill", {}, {name}).Ints("shape", shape).Ints("values", {data, data + n});
      return;
    }
    case DataType::kUint8:
    case DataType::kInt8:
    case DataType::kUint16:
    case DataType::kInt16: {
      // GivenTensorFill's `dtype` makes the other integer types from `values` as ints.
      std::vector<int64_t> values;
      for (int64_t i = 0; i < n; ++i)
        values.push_back(static_cast<int64_t>(ConstantAsDouble(value, i)));
      Emit("GivenTensorFill", {}, {name})
          .Ints("shape", shape)
          .Ints("values", values)
          .Int("dtype", static_cast<int>(value.dtype()));
      return;
    }
    default:
      throw MakeError(ErrorKind::kBadArgument, "constant '", name, "' of dtype ",
                      DataTypeName(value.dtype()), ": no fill op makes it");
  }
}

std::string ImportContext::ScalarLike(double value, const std::string& like) {
  const DataType dtype = Dtype(like);
  Tensor scalar(dtype, {});
  DispatchNumeric(dtype, "constant like '" + like + "'", [&](auto zero) {
    using T = decltype(zero);
    *scalar.mutable_data<T>() = static_cast<T>(value);
  });
  const std::string name = Temp("const");
  EmitFill(name, scalar);
  SetConstant(name, scalar);
  return name;
}

void ImportContext::InferTypes(int first_op) {
  for (int i = first_op; i < net_->op_size(); ++i) {
    const caffe2::OperatorDef& op = net_->op(i);
    const OpSchema* schema = OpSchemaRegistry::Find(op.type());
    if (schema == nullptr) continue;
    // A node missing an input ONNX requires (a Conv without W) gives an op of the wrong arity:
    // the node is refused now, naming parity's op and the count it takes.
    schema->CheckArity(op);
    std::vector<TensorType> in;
    bool all_known = true;
    for (const auto& name : op.input()) {
      TensorType type;
      if (HasDtype(name) && HasDims(name)) {
        type.dtype = Dtype(name);
        type.dims = Dims(name);
      } else {
        type.known = false;
        all_known = false;
      }
      in.push_back(type);
    }
    if (!all_known) continue;
    std::vector<TensorType> out;
    try {
      out = schema->InferShapes(op, in);
    } catch (const Error&) {
      continue;  // the run reports it, with the engine's message
    }
    for (int j = 0; j < op.output_size() && j < static_cast<int>(out.size()); ++j) {
      if (out[j].known) SetType(op.output(j), out[j]);
    }
  }
}

int64_t NormalizeAxis(int64_t axis, int64_t rank, const std::string& what) {
  PARITY_ENFORCE(axis >= -rank && axis < rank, ErrorKind::kBadArgument, what, " ", axis,
                 " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> NormalizeAxes(const std::vector<int64_t>& axes, int64_t rank,
                                   const std::string& what) {
  std::vector<int64_t> out;
  for (int64_t axis : axes) out.push_back(NormalizeAxis(axis, rank, what));
  return out;
}

}  // namespace parity::onnx

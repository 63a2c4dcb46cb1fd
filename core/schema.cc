#include "core/schema.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <sstream>
#include <unordered_map>

#include "core/argument.h"
#include "core/proto/error.h"

namespace parity {
namespace {

std::unordered_map<std::string, std::unique_ptr<OpSchema>>& Schemas() {
  static auto* schemas = new std::unordered_map<std::string, std::unique_ptr<OpSchema>>();
  return *schemas;
}

// Whether an Argument's set fields match the declared type (ints are fine where floats are).
bool MatchesType(const caffe2::Argument& arg, ArgType type) {
  bool scalar_number = arg.has_f() || arg.has_i();
  switch (type) {
    case ArgType::kFloat:
      return scalar_number;
    case ArgType::kInt:
      return arg.has_i();
    case ArgType::kString:
      return arg.has_s();
    // An empty repeated field is a valid empty list.
    case ArgType::kFloats:
      return !scalar_number && !arg.has_s() && arg.strings_size() == 0;
    case ArgType::kInts:
      return !scalar_number && !arg.has_s() && arg.floats_size() == 0 && arg.strings_size() == 0;
    case ArgType::kStrings:
      return !scalar_number && !arg.has_s() && arg.floats_size() == 0 && arg.ints_size() == 0;
    case ArgType::kNet:
      return arg.has_n() || arg.has_s();  // Caffe2 accepts a net as text too.
    case ArgType::kNets:
      return !scalar_number && arg.floats_size() == 0 && arg.ints_size() == 0;
    case ArgType::kTensor:
      return arg.has_t();
    case ArgType::kTensors:
      return !scalar_number && arg.floats_size() == 0 && arg.ints_size() == 0;
    case ArgType::kDataType:
      return arg.has_i() || arg.has_s();
  }
  return false;
}

}  // namespace

const char* ArgTypeName(ArgType type) {
  switch (type) {
    case ArgType::kFloat:
      return "float";
    case ArgType::kInt:
      return "int";
    case ArgType::kString:
      return "string";
    case ArgType::kFloats:
      return "floats";
    case ArgType::kInts:
      return "ints";
    case ArgType::kStrings:
      return "strings";
    case ArgType::kNet:
      return "net";
    case ArgType::kNets:
      return "nets";
    case ArgType::kTensor:
      return "tensor";
    case ArgType::kTensors:
      return "tensors";
    case ArgType::kDataType:
      return "int or dtype name";
  }
  return "unknown";
}

template <typename V>
void PrintList(std::ostringstream& out, const V& values) {
  out << "[";
  for (size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
  out << "]";
}

std::string ArgValueString(const ArgValue& value) {
  std::ostringstream out;
  out.precision(9);
  if (std::holds_alternative<std::monostate>(value)) out << "(none)";
  if (auto* d = std::get_if<double>(&value)) out << *d;
  if (auto* i = std::get_if<int64_t>(&value)) out << *i;
  if (auto* s = std::get_if<std::string>(&value)) out << '"' << *s << '"';
  if (auto* v = std::get_if<std::vector<double>>(&value)) PrintList(out, *v);
  if (auto* v = std::get_if<std::vector<int64_t>>(&value)) PrintList(out, *v);
  if (auto* v = std::get_if<std::vector<std::string>>(&value)) PrintList(out, *v);
  return out.str();
}

std::string TensorTypeString(const TensorType& type) {
  if (!type.known) return "unknown";
  return std::string(DataTypeName(type.dtype)) + " " + ShapeString(type.dims);
}

OpSchema::OpSchema(std::string type, std::string file, int line)
    : type_(std::move(type)), file_(std::move(file)), line_(line) {}

OpSchema& OpSchema::NumInputs(int min, int max) {
  min_inputs_ = min;
  max_inputs_ = max;
  return *this;
}

OpSchema& OpSchema::NumOutputs(int min, int max) {
  min_outputs_ = min;
  max_outputs_ = max;
  return *this;
}

OpSchema& OpSchema::NumInputsOutputs(std::function<bool(int, int)> check, std::string description) {
  arity_check_ = std::move(check);
  arity_description_ = std::move(description);
  return *this;
}

OpSchema& OpSchema::AllowInplace(std::vector<std::pair<int, int>> pairs) {
  inplace_allowed_ = [pairs](int in, int out) {
    return std::find(pairs.begin(), pairs.end(), std::make_pair(in, out)) != pairs.end();
  };
  return *this;
}

OpSchema& OpSchema::AllowInplace(std::function<bool(int, int)> rule) {
  inplace_allowed_ = std::move(rule);
  return *this;
}

OpSchema& OpSchema::EnforceInplace(std::vector<std::pair<int, int>> pairs) {
  inplace_enforced_ = std::move(pairs);
  return *this;
}

OpSchema& OpSchema::AllowAnyInplace() {
  inplace_allowed_ = [](int, int) { return true; };
  return *this;
}

OpSchema& OpSchema::Arg(const std::string& name, ArgType type, ArgValue default_value,
                        const std::string& doc) {
  args_.push_back(ArgSpec{name, type, false, std::move(default_value), doc});
  return *this;
}

OpSchema& OpSchema::RequiredArg(const std::string& name, ArgType type, const std::string& doc) {
  args_.push_back(ArgSpec{name, type, true, std::monostate{}, doc});
  return *this;
}

OpSchema& OpSchema::ShapeInference(ShapeFunction fn) {
  shape_fn_ = std::move(fn);
  return *this;
}

OpSchema& OpSchema::DifferentiableInputs(std::vector<int> inputs) {
  has_differentiable_list_ = true;
  differentiable_inputs_ = std::move(inputs);
  return *this;
}

OpSchema& OpSchema::NotDifferentiable() {
  differentiable_ = false;
  return *this;
}

OpSchema& OpSchema::NonDifferentiableOutputs(std::vector<int> outputs) {
  non_differentiable_outputs_ = std::move(outputs);
  return *this;
}

bool OpSchema::IsOutputDifferentiable(int output) const {
  return differentiable_ &&
         std::find(non_differentiable_outputs_.begin(), non_differentiable_outputs_.end(),
                   output) == non_differentiable_outputs_.end();
}

OpSchema& OpSchema::Doc(std::string doc) {
  doc_ = std::move(doc);
  return *this;
}

OpSchema& OpSchema::Impure(std::string reason) {
  impure_reason_ = std::move(reason);
  return *this;
}

OpSchema& OpSchema::InputDoc(int index, std::string name, std::string doc) {
  input_docs_[index] = {std::move(name), std::move(doc)};
  return *this;
}

OpSchema& OpSchema::OutputDoc(int index, std::string name, std::string doc) {
  output_docs_[index] = {std::move(name), std::move(doc)};
  return *this;
}

const ArgSpec* OpSchema::FindArg(const std::string& name) const {
  for (const ArgSpec& spec : args_) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

bool OpSchema::IsDifferentiable(int input) const {
  if (!differentiable_) return false;
  if (!has_differentiable_list_) return true;
  return std::find(differentiable_inputs_.begin(), differentiable_inputs_.end(), input) !=
         differentiable_inputs_.end();
}

bool OpSchema::IsInplaceAllowed(int input, int output) const {
  return IsInplaceEnforced(input, output) || (inplace_allowed_ && inplace_allowed_(input, output));
}

bool OpSchema::IsInplaceEnforced(int input, int output) const {
  return std::find(inplace_enforced_.begin(), inplace_enforced_.end(),
                   std::make_pair(input, output)) != inplace_enforced_.end();
}

void OpSchema::CheckArity(const caffe2::OperatorDef& def) const {
  // The label is built only for a message: InferShapes calls this for every op a generator draws.
  const int inputs = def.input_size();
  const int outputs = def.output_size();
  auto range = [](int lo, int hi) {
    if (lo == hi) return std::to_string(lo);
    if (hi == std::numeric_limits<int>::max()) return "at least " + std::to_string(lo);
    return std::to_string(lo) + " to " + std::to_string(hi);
  };
  PARITY_ENFORCE(inputs >= min_inputs_ && inputs <= max_inputs_, ErrorKind::kBadArgument,
                 OpLabel(def), ": takes ", range(min_inputs_, max_inputs_), " inputs, got ",
                 inputs);
  PARITY_ENFORCE(outputs >= min_outputs_ && outputs <= max_outputs_, ErrorKind::kBadArgument,
                 OpLabel(def), ": produces ", range(min_outputs_, max_outputs_), " outputs, got ",
                 outputs);
  PARITY_ENFORCE(!arity_check_ || arity_check_(inputs, outputs), ErrorKind::kBadArgument,
                 OpLabel(def), ": ", inputs, " inputs and ", outputs,
                 " outputs do not fit: ", arity_description_);
}

void OpSchema::Verify(const caffe2::OperatorDef& def) const {
  const std::string label = OpLabel(def);
  const int inputs = def.input_size();
  const int outputs = def.output_size();
  CheckArity(def);
  std::set<std::string> seen;
  for (const auto& arg : def.arg()) {
    // Caffe2's ArgumentHelper(const OperatorDef&) enforces "Duplicated argument name [...]".
    PARITY_ENFORCE(seen.insert(arg.name()).second, ErrorKind::kBadArgument, label, ": argument '",
                   arg.name(), "' given twice");
    const ArgSpec* spec = FindArg(arg.name());
    // Unknown arguments are ignored, as Caffe2 does (real nets carry engine hints and the like).
    if (spec == nullptr) continue;
    PARITY_ENFORCE(MatchesType(arg, spec->type), ErrorKind::kBadArgument, label, ": argument '",
                   arg.name(), "' should be of type ", ArgTypeName(spec->type));
  }
  for (const ArgSpec& spec : args_) {
    if (!spec.required) continue;
    bool present = std::any_of(def.arg().begin(), def.arg().end(),
                               [&](const caffe2::Argument& a) { return a.name() == spec.name; });
    PARITY_ENFORCE(present, ErrorKind::kBadArgument, label, ": required argument '", spec.name,
                   "' is missing");
  }

  for (int in = 0; in < inputs; ++in) {
    for (int out = 0; out < outputs; ++out) {
      bool same = def.input(in) == def.output(out);
      PARITY_ENFORCE(!same || IsInplaceAllowed(in, out), ErrorKind::kBadArgument, label, ": input ",
                     in, " and output ", out, " are both '", def.input(in),
                     "', but this op cannot run in place on them");
    }
  }
  for (const auto& [in, out] : inplace_enforced_) {
    if (in >= inputs || out >= outputs) continue;
    PARITY_ENFORCE(def.input(in) == def.output(out), ErrorKind::kBadArgument, label, ": output ",
                   out, " ('", def.output(out), "') must be the same blob as input ", in, " ('",
                   def.input(in), "')");
  }
}

std::vector<TensorType> OpSchema::InferShapes(const caffe2::OperatorDef& def,
                                              const std::vector<TensorType>& inputs) const {
  bool all_known =
      std::all_of(inputs.begin(), inputs.end(), [](const TensorType& t) { return t.known; });
  if (!shape_fn_ || !all_known) {
    std::vector<TensorType> unknown(def.output_size());
    for (auto& t : unknown) t.known = false;
    return unknown;
  }
  // Shape functions index their inputs by the schema's arity: an op of another arity (an
  // importer's, a transform's, a user's net not verified yet) is refused here, not read past.
  PARITY_ENFORCE(static_cast<int>(inputs.size()) == def.input_size(), ErrorKind::kInternal,
                 OpLabel(def), ": shape inference given ", inputs.size(), " input types for ",
                 def.input_size(), " inputs");
  CheckArity(def);
  ArgumentHelper args(def, this);
  std::vector<TensorType> out = shape_fn_(def, args, inputs);
  PARITY_ENFORCE(static_cast<int>(out.size()) == def.output_size(), ErrorKind::kInternal,
                 OpLabel(def), ": shape inference returned ", out.size(), " types for ",
                 def.output_size(), " outputs");
  return out;
}

OpSchema& OpSchemaRegistry::NewSchema(const std::string& type, const char* file, int line) {
  auto& slot = Schemas()[type];
  if (slot != nullptr) {
    std::fprintf(stderr, "parity: op schema %s registered twice (%s:%d and %s:%d)\n", type.c_str(),
                 slot->file().c_str(), slot->line(), file, line);
    std::abort();
  }
  slot = std::make_unique<OpSchema>(type, file, line);
  return *slot;
}

const OpSchema* OpSchemaRegistry::Find(const std::string& type) {
  auto it = Schemas().find(type);
  return it == Schemas().end() ? nullptr : it->second.get();
}

const OpSchema& OpSchemaRegistry::Get(const std::string& type) {
  const OpSchema* schema = Find(type);
  PARITY_ENFORCE(schema != nullptr, ErrorKind::kUnknownOp, "unknown op type '", type, "'");
  return *schema;
}

OpSchema OpSchemaRegistry::Replace(const std::string& type, OpSchema schema) {
  auto it = Schemas().find(type);
  PARITY_ENFORCE(it != Schemas().end(), ErrorKind::kUnknownOp, "unknown op type '", type, "'");
  OpSchema old = std::move(*it->second);
  *it->second = std::move(schema);
  return old;
}

std::vector<std::string> OpSchemaRegistry::Types() {
  std::vector<std::string> types;
  for (const auto& [type, schema] : Schemas()) types.push_back(type);
  std::sort(types.begin(), types.end());
  return types;
}

std::vector<TensorType> IdentityShape(const caffe2::OperatorDef& def, const ArgumentHelper&,
                                      const std::vector<TensorType>& in) {
  return std::vector<TensorType>(def.output_size(), in.at(0));
}

}  // namespace parity

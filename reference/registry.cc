// The op table, argument reading, and the public listing functions of interpreter.h.
#include <google/protobuf/text_format.h>

#include "core/proto/nesting.h"

#include <algorithm>
#include <cmath>

#include "reference/kernel.h"

namespace parity::reference {

// ---- Args ----

Args::Args(const caffe2::OperatorDef& def, const ArgTable& table) : table_(table) {
  for (const auto& arg : def.arg()) {
    // Caffe2's ArgumentHelper rejects an op that names an argument twice.
    PARITY_ENFORCE(by_name_.emplace(arg.name(), &arg).second, ErrorKind::kBadArgument, "argument '",
                   arg.name(), "' given twice");
  }
}

const std::string& Args::Default(const std::string& name) const {
  for (const auto& entry : table_) {
    if (entry.first == name) return entry.second;
  }
  throw MakeError(ErrorKind::kInternal, "reference kernel reads argument '", name,
                  "' that is missing from its argument table");
}

bool Args::Has(const std::string& name) const {
  Default(name);
  return by_name_.count(name) > 0;
}

const caffe2::Argument* Args::Raw(const std::string& name) const {
  Default(name);
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::string Args::Renamed(const std::string& blob) const {
  auto it = by_name_.find(blob + ".rename");
  return it != by_name_.end() && it->second->has_s() ? it->second->s() : blob;
}

int64_t Args::Int(const std::string& name) const {
  const std::string& def = Default(name);
  if (const caffe2::Argument* a = Raw(name)) {
    PARITY_ENFORCE(a->has_i(), ErrorKind::kBadArgument, "argument '", name,
                   "' must be an integer (field i)");
    return a->i();
  }
  PARITY_ENFORCE(!def.empty(), ErrorKind::kBadArgument, "required argument '", name, "' missing");
  return std::stoll(def);
}

double Args::Float(const std::string& name) const {
  const std::string& def = Default(name);
  if (const caffe2::Argument* a = Raw(name)) {
    if (a->has_f()) return a->f();
    // An integer-valued float argument written in the i field is accepted (exactly converted).
    PARITY_ENFORCE(a->has_i(), ErrorKind::kBadArgument, "argument '", name,
                   "' must be a float (field f)");
    return static_cast<double>(a->i());
  }
  PARITY_ENFORCE(!def.empty(), ErrorKind::kBadArgument, "required argument '", name, "' missing");
  return std::stod(def);
}

std::string Args::Str(const std::string& name) const {
  const std::string& def = Default(name);
  if (const caffe2::Argument* a = Raw(name)) {
    PARITY_ENFORCE(a->has_s(), ErrorKind::kBadArgument, "argument '", name,
                   "' must be a string (field s)");
    return a->s();
  }
  return def;
}

// A list argument holds only its repeated field: a scalar (i, f, s, n) or a list of another kind
// in its place is a type error, as Caffe2's ArgumentHelper::GetRepeatedArgument reads only the
// list field and the schema check rejects the rest (an empty list is a valid empty list).
namespace {
void EnforceListOnly(const caffe2::Argument& a, const char* field, bool other_lists) {
  const bool scalar = a.has_i() || a.has_f() || a.has_s() || a.has_n() || a.has_t();
  PARITY_ENFORCE(!scalar && !other_lists, ErrorKind::kBadArgument, "argument '", a.name(),
                 "' must be a list (field ", field, ")");
}
}  // namespace

std::vector<int64_t> Args::Ints(const std::string& name) const {
  const caffe2::Argument* a = Raw(name);
  if (!a) return {};
  EnforceListOnly(*a, "ints", a->floats_size() > 0 || a->strings_size() > 0);
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::vector<double> Args::Floats(const std::string& name) const {
  const caffe2::Argument* a = Raw(name);
  if (!a) return {};
  EnforceListOnly(*a, "floats", a->strings_size() > 0);
  // Integers written in the ints field of a float list are taken exactly, as for scalars.
  std::vector<double> out(a->floats().begin(), a->floats().end());
  for (int64_t i : a->ints()) out.push_back(static_cast<double>(i));
  return out;
}

std::vector<std::string> Args::Strs(const std::string& name) const {
  const caffe2::Argument* a = Raw(name);
  if (!a) return {};
  EnforceListOnly(*a, "strings", a->floats_size() > 0 || a->ints_size() > 0);
  return std::vector<std::string>(a->strings().begin(), a->strings().end());
}

caffe2::NetDef Args::Net(const std::string& name) const {
  const caffe2::Argument* a = Raw(name);
  PARITY_ENFORCE(a != nullptr, ErrorKind::kBadArgument, "required net argument '", name,
                 "' missing");
  if (a->has_n()) return a->n();
  caffe2::NetDef net;
  PARITY_ENFORCE(a->has_s() && ParseNetText(a->s(), &net),
                 ErrorKind::kBadArgument, "argument '", name,
                 "' is neither a NetDef nor a text-format NetDef");
  return net;
}

// ---- Registry ----

OpSchema& Registry::Add(OpSchema schema) {
  const std::string type = schema.type;
  PARITY_ENFORCE(ops_.count(type) == 0, ErrorKind::kInternal, "reference op '", type,
                 "' is registered by two families");
  OpSchema& stored = ops_[type];
  stored = std::move(schema);
  return stored;
}

const OpSchema* Registry::Find(const std::string& type) const {
  auto it = ops_.find(type);
  return it == ops_.end() ? nullptr : &it->second;
}

namespace {
std::vector<FamilyRegistrar>& Families() {
  static auto* families = new std::vector<FamilyRegistrar>();
  return *families;
}
}  // namespace

bool AddFamily(FamilyRegistrar registrar) {
  Families().push_back(registrar);
  return true;
}

const Registry& Registry::Get() {
  static const Registry* registry = [] {
    auto* r = new Registry();
    for (FamilyRegistrar registrar : Families()) registrar(r);
    return r;
  }();
  return *registry;
}

// ---- Public listings ----

std::vector<std::string> SupportedOps() {
  std::vector<std::string> out;
  for (const auto& entry : Registry::Get().all()) out.push_back(entry.first);
  return out;
}

std::map<std::string, std::string> FiniteDifferenceOnlyOps() {
  return {
      {"RecurrentNetworkGradient",
       "composite: its meaning is the backward pass of the unrolled step net over links, aliases "
       "and per-step workspaces, which is exactly the machinery under test; the reference checks "
       "it by central finite differences of RecurrentNetwork (unrolled) instead"},
  };
}

std::map<std::string, std::vector<std::pair<std::string, std::string>>> ArgumentTable() {
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> out;
  for (const auto& entry : Registry::Get().all()) out[entry.first] = entry.second.args;
  return out;
}

std::vector<int> Arity(const std::string& op_type) {
  const OpSchema* s = Registry::Get().Find(op_type);
  PARITY_ENFORCE(s != nullptr, ErrorKind::kUnknownOp, "reference has no op '", op_type, "'");
  return {s->min_inputs, s->max_inputs, s->min_outputs, s->max_outputs};
}

std::map<std::string, InplaceRules> InplaceTable() {
  std::map<std::string, InplaceRules> out;
  for (const auto& [type, schema] : Registry::Get().all()) {
    out[type] = {schema.inplace, schema.enforce_inplace, schema.any_inplace};
  }
  return out;
}

}  // namespace parity::reference

#include "core/argument.h"

#include <google/protobuf/text_format.h>

#include "core/proto/nesting.h"

#include <cctype>
#include <cmath>
#include <limits>

#include "core/proto/error.h"

namespace parity {
namespace {

const char* KindOf(const caffe2::Argument& arg) {
  if (arg.has_f()) return "float";
  if (arg.has_i()) return "int";
  if (arg.has_s()) return "string";
  if (arg.has_n()) return "net";
  if (arg.has_t()) return "tensor";
  if (arg.floats_size() > 0) return "list of floats";
  if (arg.ints_size() > 0) return "list of ints";
  if (arg.strings_size() > 0) return "list of strings";
  if (arg.nets_size() > 0) return "list of nets";
  if (arg.tensors_size() > 0) return "list of tensors";
  return "empty value";
}

[[noreturn]] void WrongKind(const std::string& label, const caffe2::Argument& arg,
                            const char* expected) {
  throw MakeError(ErrorKind::kBadArgument, label, ": argument '", arg.name(), "' should be ",
                  expected, ", got ", KindOf(arg));
}

[[noreturn]] void Missing(const std::string& label, const std::string& name) {
  throw MakeError(ErrorKind::kBadArgument, label, ": required argument '", name, "' is missing");
}

template <typename T>
T IntegerFrom(const std::string& label, const std::string& name, int64_t value) {
  PARITY_ENFORCE(value >= std::numeric_limits<T>::min() && value <= std::numeric_limits<T>::max(),
                 ErrorKind::kBadArgument, label, ": argument '", name, "' = ", value,
                 " is out of range");
  return static_cast<T>(value);
}

// Reads one scalar of type T from an Argument, or returns false when the field is absent.
template <typename T>
T ScalarFromArg(const std::string& label, const caffe2::Argument& arg);

template <>
double ScalarFromArg<double>(const std::string& label, const caffe2::Argument& arg) {
  if (arg.has_f()) return arg.f();
  if (arg.has_i()) return static_cast<double>(arg.i());
  WrongKind(label, arg, "a float");
}
template <>
float ScalarFromArg<float>(const std::string& label, const caffe2::Argument& arg) {
  return static_cast<float>(ScalarFromArg<double>(label, arg));
}
template <>
int64_t ScalarFromArg<int64_t>(const std::string& label, const caffe2::Argument& arg) {
  if (arg.has_i()) return arg.i();
  WrongKind(label, arg, "an int");
}
template <>
int ScalarFromArg<int>(const std::string& label, const caffe2::Argument& arg) {
  return IntegerFrom<int>(label, arg.name(), ScalarFromArg<int64_t>(label, arg));
}
template <>
bool ScalarFromArg<bool>(const std::string& label, const caffe2::Argument& arg) {
  return ScalarFromArg<int64_t>(label, arg) != 0;
}
template <>
std::string ScalarFromArg<std::string>(const std::string& label, const caffe2::Argument& arg) {
  if (arg.has_s()) return arg.s();
  WrongKind(label, arg, "a string");
}

template <typename T>
T ScalarFromDefault(const std::string& label, const std::string& name, const ArgValue& value) {
  if constexpr (std::is_same_v<T, std::string>) {
    if (auto* s = std::get_if<std::string>(&value)) return *s;
  } else {
    if (auto* d = std::get_if<double>(&value)) return static_cast<T>(*d);
    if (auto* i = std::get_if<int64_t>(&value)) return static_cast<T>(*i);
  }
  if (std::holds_alternative<std::monostate>(value)) Missing(label, name);
  throw MakeError(ErrorKind::kInternal, label, ": schema default of '", name,
                  "' has the wrong type");
}

template <typename T>
std::vector<T> VectorFromArg(const std::string& label, const caffe2::Argument& arg) {
  std::vector<T> out;
  if constexpr (std::is_same_v<T, std::string>) {
    if (arg.has_f() || arg.has_i() || arg.floats_size() || arg.ints_size()) {
      WrongKind(label, arg, "a list of strings");
    }
    out.assign(arg.strings().begin(), arg.strings().end());
  } else if constexpr (std::is_floating_point_v<T>) {
    if (arg.has_f() || arg.has_i() || arg.has_s() || arg.strings_size()) {
      WrongKind(label, arg, "a list of floats");
    }
    for (float f : arg.floats()) out.push_back(static_cast<T>(f));
    for (int64_t i : arg.ints()) out.push_back(static_cast<T>(i));
  } else {
    if (arg.has_f() || arg.has_i() || arg.has_s() || arg.floats_size() || arg.strings_size()) {
      WrongKind(label, arg, "a list of ints");
    }
    for (int64_t i : arg.ints()) out.push_back(IntegerFrom<T>(label, arg.name(), i));
  }
  return out;
}

template <typename T>
std::vector<T> VectorFromDefault(const ArgValue& value) {
  std::vector<T> out;
  if constexpr (std::is_same_v<T, std::string>) {
    if (auto* v = std::get_if<std::vector<std::string>>(&value)) out = *v;
  } else {
    if (auto* v = std::get_if<std::vector<double>>(&value)) {
      for (double d : *v) out.push_back(static_cast<T>(d));
    }
    if (auto* v = std::get_if<std::vector<int64_t>>(&value)) {
      for (int64_t i : *v) out.push_back(static_cast<T>(i));
    }
  }
  return out;
}

}  // namespace

std::string OpLabel(const caffe2::OperatorDef& def) {
  std::string label = "op " + def.type();
  if (!def.name().empty()) label += " '" + def.name() + "'";
  return label;
}

ArgumentHelper::ArgumentHelper(const caffe2::OperatorDef& def, const OpSchema* schema)
    : schema_(schema), label_(OpLabel(def)) {
  for (const auto& arg : def.arg()) args_[arg.name()] = &arg;
}

ArgumentHelper::ArgumentHelper(const caffe2::NetDef& net) : label_("net '" + net.name() + "'") {
  for (const auto& arg : net.arg()) args_[arg.name()] = &arg;
}

const caffe2::Argument* ArgumentHelper::Find(const std::string& name) const {
  auto it = args_.find(name);
  return it == args_.end() ? nullptr : it->second;
}

const ArgSpec* ArgumentHelper::Spec(const std::string& name) const {
  return schema_ == nullptr ? nullptr : schema_->FindArg(name);
}

template <typename T>
T ArgumentHelper::Get(const std::string& name) const {
  if (const caffe2::Argument* arg = Find(name)) return ScalarFromArg<T>(label_, *arg);
  const ArgSpec* spec = Spec(name);
  if (spec == nullptr) Missing(label_, name);
  return ScalarFromDefault<T>(label_, name, spec->default_value);
}

template <typename T>
T ArgumentHelper::Get(const std::string& name, const T& fallback) const {
  if (const caffe2::Argument* arg = Find(name)) return ScalarFromArg<T>(label_, *arg);
  return fallback;
}

template <typename T>
std::vector<T> ArgumentHelper::GetVector(const std::string& name) const {
  if (const caffe2::Argument* arg = Find(name)) return VectorFromArg<T>(label_, *arg);
  const ArgSpec* spec = Spec(name);
  if (spec != nullptr && spec->required) Missing(label_, name);
  return spec == nullptr ? std::vector<T>{} : VectorFromDefault<T>(spec->default_value);
}

caffe2::NetDef ArgumentHelper::GetNet(const std::string& name) const {
  const caffe2::Argument* arg = Find(name);
  if (arg == nullptr) Missing(label_, name);
  if (arg->has_n()) return arg->n();
  if (!arg->has_s()) WrongKind(label_, *arg, "a net");
  caffe2::NetDef net;
  PARITY_ENFORCE(ParseNetText(arg->s(), &net),
                 ErrorKind::kBadArgument, label_, ": argument '", name,
                 "' is a string that does not parse as a NetDef in text format");
  return net;
}

std::vector<caffe2::NetDef> ArgumentHelper::GetNets(const std::string& name) const {
  const caffe2::Argument* arg = Find(name);
  if (arg == nullptr) return {};
  return {arg->nets().begin(), arg->nets().end()};
}

const caffe2::TensorProto& ArgumentHelper::GetTensorProto(const std::string& name) const {
  const caffe2::Argument* arg = Find(name);
  if (arg == nullptr) Missing(label_, name);
  if (!arg->has_t()) WrongKind(label_, *arg, "a tensor");
  return arg->t();
}

#define PARITY_INSTANTIATE_SCALAR(T)                           \
  template T ArgumentHelper::Get<T>(const std::string&) const; \
  template T ArgumentHelper::Get<T>(const std::string&, const T&) const;
PARITY_INSTANTIATE_SCALAR(float)
PARITY_INSTANTIATE_SCALAR(double)
PARITY_INSTANTIATE_SCALAR(int)
PARITY_INSTANTIATE_SCALAR(int64_t)
PARITY_INSTANTIATE_SCALAR(bool)
PARITY_INSTANTIATE_SCALAR(std::string)
#undef PARITY_INSTANTIATE_SCALAR

template std::vector<float> ArgumentHelper::GetVector<float>(const std::string&) const;
template std::vector<double> ArgumentHelper::GetVector<double>(const std::string&) const;
template std::vector<int> ArgumentHelper::GetVector<int>(const std::string&) const;
template std::vector<int64_t> ArgumentHelper::GetVector<int64_t>(const std::string&) const;
template std::vector<std::string> ArgumentHelper::GetVector<std::string>(const std::string&) const;

int64_t DataTypeArgument(const ArgumentHelper& args, const std::string& name) {
  const caffe2::Argument* arg = args.Find(name);
  if (arg == nullptr || !arg->has_s()) return args.Get<int64_t>(name);
  std::string upper = arg->s();
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  caffe2::TensorProto::DataType parsed;
  PARITY_ENFORCE(caffe2::TensorProto::DataType_Parse(upper, &parsed), ErrorKind::kBadArgument,
                 args.op_label(), ": argument '", name, "' = '", arg->s(),
                 "' is not a TensorProto.DataType name");
  return parsed;
}

}  // namespace parity

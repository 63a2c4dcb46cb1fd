#include "core/grad/gradient.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include "core/argument.h"
#include "core/proto/error.h"

namespace parity {
namespace {

std::map<std::string, GradientEntry>& Entries() {
  static auto* entries = new std::map<std::string, GradientEntry>();
  return *entries;
}

std::mutex& EntriesMutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}

}  // namespace

GradientContext::GradientContext(const caffe2::OperatorDef& def,
                                 const std::vector<std::string>& g_output)
    : def_(def), g_output_(g_output), g_input_(def.input_size()), zero_filled_(def.output_size()) {}

const std::string& GradientContext::I(int i) const {
  PARITY_ENFORCE(i >= 0 && i < def_.input_size(), ErrorKind::kBadArgument, OpLabel(def_),
                 ": its gradient needs input ", i, " but the op has ", def_.input_size(),
                 " inputs");
  // A gradient op reading input i gets the op's output instead when the op ran in place on it:
  // refuse rather than compute a wrong gradient (Caffe2 silently does the latter).
  for (const auto& out : def_.output()) {
    PARITY_ENFORCE(out != def_.input(i), ErrorKind::kBadArgument, OpLabel(def_),
                   ": its gradient needs input ", i, " ('", def_.input(i),
                   "'), which the op overwrote in place; run it out of place to differentiate");
  }
  return def_.input(i);
}

const std::string& GradientContext::O(int i) const {
  PARITY_ENFORCE(i >= 0 && i < def_.output_size(), ErrorKind::kBadArgument, OpLabel(def_),
                 ": its gradient needs output ", i, " but the op has ", def_.output_size(),
                 " outputs");
  return def_.output(i);
}

bool GradientContext::HasGO(int i) const {
  return i >= 0 && i < static_cast<int>(g_output_.size()) && !g_output_[i].empty();
}

const std::string& GradientContext::GO(int i) {
  if (HasGO(i)) return g_output_[i];
  const std::string& output = O(i);  // checks i
  if (zero_filled_[i].empty()) zero_filled_[i] = output + "_zero_grad";
  return zero_filled_[i];
}

Ops GradientContext::ZeroFilledOutputGradients() const {
  Ops ops;
  for (size_t i = 0; i < zero_filled_.size(); ++i) {
    if (zero_filled_[i].empty()) continue;
    ops.push_back(ZeroFillLike(def_.output(i), zero_filled_[i]));
    if (def_.has_device_option()) *ops.back().mutable_device_option() = def_.device_option();
  }
  return ops;
}

caffe2::OperatorDef ZeroFillLike(const std::string& like, const std::string& output) {
  caffe2::OperatorDef fill;
  fill.set_type("ConstantFill");
  fill.add_input(like);
  fill.add_output(output);
  caffe2::Argument* value = fill.add_arg();
  value->set_name("value");
  value->set_f(0.0f);
  return fill;
}

std::string GradientContext::GI(int i) {
  PARITY_ENFORCE(i >= 0 && i < def_.input_size(), ErrorKind::kBadArgument, OpLabel(def_),
                 ": no input ", i);
  std::string name = def_.input(i) + "_grad";
  g_input_[i] = name;
  return name;
}

void GradientContext::SetGI(int i, const std::string& name) {
  PARITY_ENFORCE(i >= 0 && i < def_.input_size(), ErrorKind::kBadArgument, OpLabel(def_),
                 ": no input ", i);
  g_input_[i] = name;
}

caffe2::OperatorDef GradientContext::Op(const std::string& type,
                                        const std::vector<std::string>& inputs,
                                        const std::vector<std::string>& outputs,
                                        const std::vector<caffe2::Argument>& args) const {
  caffe2::OperatorDef op;
  op.set_type(type);
  for (const auto& in : inputs) op.add_input(in);
  for (const auto& out : outputs) op.add_output(out);
  for (const auto& arg : args) *op.add_arg() = arg;
  return op;
}

caffe2::Argument IntArg(const std::string& name, int64_t value) {
  caffe2::Argument arg;
  arg.set_name(name);
  arg.set_i(value);
  return arg;
}

caffe2::Argument FloatArg(const std::string& name, float value) {
  caffe2::Argument arg;
  arg.set_name(name);
  arg.set_f(value);
  return arg;
}

caffe2::Argument IntsArg(const std::string& name, const std::vector<int64_t>& values) {
  caffe2::Argument arg;
  arg.set_name(name);
  for (int64_t v : values) arg.add_ints(v);
  return arg;
}

bool GradientRegistry::Register(const std::string& type, GradientEntry entry) {
  std::lock_guard<std::mutex> lock(EntriesMutex());
  auto [it, inserted] = Entries().emplace(type, entry);
  if (!inserted) {
    std::fprintf(stderr, "parity: gradient of %s registered twice (%s:%d and %s:%d)\n",
                 type.c_str(), it->second.file.c_str(), it->second.line, entry.file.c_str(),
                 entry.line);
    std::abort();
  }
  return true;
}

GradientEntry GradientRegistry::Replace(const std::string& type, GradientEntry entry) {
  std::lock_guard<std::mutex> lock(EntriesMutex());
  auto it = Entries().find(type);
  PARITY_ENFORCE(it != Entries().end(), ErrorKind::kUnknownOp, "no gradient registered for '", type,
                 "'");
  GradientEntry old = std::move(it->second);
  it->second = std::move(entry);
  return old;
}

const GradientEntry* GradientRegistry::Find(const std::string& type) {
  std::lock_guard<std::mutex> lock(EntriesMutex());
  auto it = Entries().find(type);
  return it == Entries().end() ? nullptr : &it->second;
}

std::vector<std::string> GradientRegistry::Types() {
  std::lock_guard<std::mutex> lock(EntriesMutex());
  std::vector<std::string> types;
  for (const auto& [type, entry] : Entries()) types.push_back(type);
  return types;
}

GradientOpsMeta GetGradientForOp(const caffe2::OperatorDef& def,
                                 const std::vector<std::string>& g_output) {
  const GradientEntry* entry = GradientRegistry::Find(def.type());
  PARITY_ENFORCE(entry != nullptr, ErrorKind::kUnknownOp, OpLabel(def),
                 ": no gradient is registered for this op type");
  switch (entry->kind) {
    case GradientKind::kNoGradient:
      return {{}, std::vector<std::string>(def.input_size())};
    case GradientKind::kShouldNotDo:
      throw MakeError(ErrorKind::kBadArgument, OpLabel(def),
                      ": one should not ask for the gradient of this op");
    case GradientKind::kNotImplemented:
      throw MakeError(ErrorKind::kBadArgument, OpLabel(def),
                      ": this op is differentiable but parity has no gradient for it");
    case GradientKind::kMaker:
      break;
  }
  std::vector<std::string> g_out = g_output;
  g_out.resize(def.output_size());
  GradientContext context(def, g_out);
  GradientOpsMeta meta{entry->maker(context), context.g_input()};
  const Ops zero_fills = context.ZeroFilledOutputGradients();
  for (caffe2::OperatorDef& op : meta.ops) {
    if (entry->options.copy_device_option && def.has_device_option()) {
      *op.mutable_device_option() = def.device_option();
    }
    if (entry->options.copy_engine && def.has_engine()) op.set_engine(def.engine());
    if (entry->options.copy_arguments) {
      for (const auto& arg : def.arg()) *op.add_arg() = arg;
    }
    op.set_is_gradient_op(true);
  }
  // The zero gradients are not the maker's: they keep no copied arguments.
  meta.ops.insert(meta.ops.begin(), zero_fills.begin(), zero_fills.end());
  return meta;
}

int64_t GradientArgOr(const caffe2::OperatorDef& def, const char* name, int64_t fallback) {
  return ArgumentHelper(def, nullptr).Get<int64_t>(name, fallback);
}

}  // namespace parity

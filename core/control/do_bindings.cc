#include "core/control/do_bindings.h"

#include <set>

#include "core/argument.h"
#include "core/proto/error.h"

namespace parity {

DoBindings ReadDoBindings(const caffe2::OperatorDef& def) {
  const std::string label = OpLabel(def);
  PARITY_ENFORCE(def.input_size() >= 1 && def.output_size() >= 1, ErrorKind::kBadArgument, label,
                 ": Do needs the workspace stack as its last input and its last output");
  DoBindings b;
  b.scope = def.input(def.input_size() - 1);
  PARITY_ENFORCE(def.output(def.output_size() - 1) == b.scope, ErrorKind::kBadArgument, label,
                 ": the last input '", b.scope, "' and the last output '",
                 def.output(def.output_size() - 1), "' must be the same workspace stack blob");
  b.inputs.assign(def.input().begin(), def.input().end() - 1);
  b.outputs.assign(def.output().begin(), def.output().end() - 1);
  for (const auto* names : {&b.inputs, &b.outputs}) {
    std::set<std::string> seen;
    for (const std::string& name : *names) {
      PARITY_ENFORCE(seen.insert(name).second, ErrorKind::kBadArgument, label, ": blob '", name,
                     "' is listed twice among the ", names == &b.inputs ? "inputs" : "outputs");
    }
  }
  std::vector<std::string> outer = b.inputs;
  outer.insert(outer.end(), b.outputs.begin(), b.outputs.end());

  std::vector<std::string> inner;
  std::vector<int64_t> index;
  for (const auto& arg : def.arg()) {
    if (arg.name() == "inner_blobs") inner.assign(arg.strings().begin(), arg.strings().end());
    if (arg.name() == "outer_blobs_idx") index.assign(arg.ints().begin(), arg.ints().end());
  }
  PARITY_ENFORCE(inner.size() == index.size(), ErrorKind::kBadArgument, label, ": ", inner.size(),
                 " inner_blobs but ", index.size(), " outer_blobs_idx");
  for (size_t k = 0; k < inner.size(); ++k) {
    PARITY_ENFORCE(!b.inner_to_outer.count(inner[k]), ErrorKind::kBadArgument, label,
                   ": inner blob '", inner[k], "' is bound twice");
    PARITY_ENFORCE(index[k] >= 0 && index[k] < static_cast<int64_t>(outer.size()),
                   ErrorKind::kBadArgument, label, ": outer_blobs_idx[", k, "] = ", index[k],
                   " (inner blob '", inner[k], "') is outside [0, ", outer.size(), ")");
    const std::string& name = outer[index[k]];
    PARITY_ENFORCE(!b.outer_to_inner.count(name), ErrorKind::kBadArgument, label, ": outer blob '",
                   name, "' is bound twice (to '", b.outer_to_inner[name], "' and '", inner[k],
                   "')");
    b.inner_to_outer[inner[k]] = name;
    b.outer_to_inner[name] = inner[k];
  }
  for (const std::string& name : outer) {
    PARITY_ENFORCE(b.outer_to_inner.count(name), ErrorKind::kBadArgument, label, ": outer blob '",
                   name, "' is not bound by inner_blobs/outer_blobs_idx (every one must be)");
  }
  return b;
}

}  // namespace parity

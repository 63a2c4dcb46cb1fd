#include "core/transforms/pass.h"

#include <mutex>

#include "core/proto/error.h"
#include "core/transforms/constants.h"
#include "core/transforms/verify.h"

namespace parity::transforms {
namespace {

std::map<std::string, PassInfo>& Passes() {
  static auto* passes = new std::map<std::string, PassInfo>();
  return *passes;
}

// Renamings compose: a blob renamed by two passes maps from its first name to its last.
std::map<std::string, std::string> Composed(const std::map<std::string, std::string>& earlier,
                                            std::map<std::string, std::string> later) {
  std::map<std::string, std::string> composed;
  for (const auto& [first, now] : earlier) {
    auto again = later.find(now);
    if (again == later.end()) {
      composed[first] = now;
    } else {
      composed[first] = again->second;
      later.erase(again);
    }
  }
  for (const auto& [from, to] : later) composed.emplace(from, to);
  return composed;
}

}  // namespace

bool PassRegistry::Register(PassInfo pass) {
  const std::string name = pass.name;
  PARITY_ENFORCE(Passes().emplace(name, std::move(pass)).second, ErrorKind::kInternal, "pass '",
                 name, "' registered twice");
  return true;
}

const PassInfo* PassRegistry::Find(const std::string& name) {
  auto it = Passes().find(name);
  return it == Passes().end() ? nullptr : &it->second;
}

PassInfo PassRegistry::Replace(const std::string& name, PassInfo pass) {
  auto it = Passes().find(name);
  PARITY_ENFORCE(it != Passes().end(), ErrorKind::kInternal, "no pass '", name, "' to replace");
  PassInfo old = std::move(it->second);
  it->second = std::move(pass);
  return old;
}

std::map<std::string, std::vector<std::string>> PassRegistry::Rewrites() {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [name, pass] : Passes()) {
    for (const auto& [producer, consumer] : pass.rewrites) out[producer].push_back(consumer);
  }
  return out;
}

std::vector<std::string> SettingsReadBy(const PassInfo& pass) {
  std::vector<std::string> names = pass.settings;
  if (pass.uses_constants) names.push_back(kFedInputsSetting);
  return names;
}

std::vector<std::string> PassRegistry::Names() {
  std::vector<std::string> names;
  for (const auto& [name, pass] : Passes()) names.push_back(name);
  return names;
}

TransformedNet ApplyPasses(const TransformedNet& net, const std::vector<std::string>& passes) {
  TransformedNet current = net;
  for (const std::string& name : passes) {
    const PassInfo* pass = PassRegistry::Find(name);
    if (pass == nullptr) {
      std::string known;
      for (const auto& n : PassRegistry::Names()) known += (known.empty() ? "" : ", ") + n;
      PARITY_ENFORCE(false, ErrorKind::kBadArgument, "unknown pass '", name, "' (passes: ", known,
                     ")");
    }
    TransformedNet next = current;
    next.renamed_inputs.clear();  // this pass's own renaming
    next.renamed_outputs.clear();
    pass->run(&next);
    VerifyTransform(name, current, next);
    next.renamed_inputs = Composed(current.renamed_inputs, next.renamed_inputs);
    next.renamed_outputs = Composed(current.renamed_outputs, next.renamed_outputs);
    current = std::move(next);
  }
  return current;
}

}  // namespace parity::transforms

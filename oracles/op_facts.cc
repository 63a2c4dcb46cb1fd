#include "oracles/op_facts.h"

#include "oracles/tolerance.h"

namespace parity::oracles {
namespace {

OpFactsLookup& Lookup() {
  static auto* lookup = new OpFactsLookup();
  return *lookup;
}

}  // namespace

bool SetOpFactsLookup(OpFactsLookup lookup) {
  Lookup() = std::move(lookup);
  return true;
}

std::optional<OpTestFacts> FindOpFacts(const std::string& op_type) {
  if (!Lookup()) return std::nullopt;
  return Lookup()(op_type);
}

std::string ToleranceForNet(const caffe2::NetDef& net) {
  std::vector<std::string> names;
  for (const auto& op : net.op()) {
    std::optional<OpTestFacts> facts = FindOpFacts(op.type());
    names.push_back(facts ? facts->tolerance : "default");
  }
  return Loosest(names).name;
}

std::string SkipReason(const caffe2::NetDef& net, const std::string& oracle) {
  for (const auto& op : net.op()) {
    std::optional<OpTestFacts> facts = FindOpFacts(op.type());
    if (!facts) continue;
    for (const auto& [skipped, reason] : facts->skipped_oracles) {
      if (skipped == oracle) return op.type() + ": " + reason;
    }
  }
  return "";
}

}  // namespace parity::oracles

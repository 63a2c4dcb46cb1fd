#include "oracles/op_facts.h"

#include <google/protobuf/text_format.h>

#include "core/proto/nesting.h"

#include <functional>

#include "oracles/tolerance.h"

namespace parity::oracles {
namespace {

OpFactsLookup& Lookup() {
  static auto* lookup = new OpFactsLookup();
  return *lookup;
}

}  // namespace

void ForEachOp(const caffe2::NetDef& net,
               const std::function<void(const caffe2::OperatorDef&)>& fn,
               bool backward_step_nets) {
  for (const auto& op : net.op()) {
    fn(op);
    for (const auto& arg : op.arg()) {
      if (!backward_step_nets && arg.name() == "backward_step_net") continue;
      if (arg.has_n()) ForEachOp(arg.n(), fn, backward_step_nets);
      for (const auto& nested : arg.nets()) ForEachOp(nested, fn, backward_step_nets);
      // A step net given as text, as Caffe2's Python writes it (one that does not parse is the
      // op's own error when it runs).
      caffe2::NetDef parsed;
      if (arg.has_s() && (arg.name() == "step_net" || arg.name() == "backward_step_net") &&
          ParseNetText(arg.s(), &parsed)) {
        ForEachOp(parsed, fn, backward_step_nets);
      }
    }
  }
}

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
  ForEachOp(net, [&names](const caffe2::OperatorDef& op) {
    std::optional<OpTestFacts> facts = FindOpFacts(op.type());
    names.push_back(facts ? facts->tolerance : "default");
  });
  return Loosest(names).name;
}

std::string SkipReason(const caffe2::NetDef& net, const std::string& oracle) {
  // Top-level ops only: a skip describes the op's own case (LE has no gradient), not a control op
  // that runs it in a condition net. Control specs keep ops with skips out of their nets.
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

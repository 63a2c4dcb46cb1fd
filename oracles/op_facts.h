// What the op test specs (fuzz/specs/) say about an op that the oracles must respect: its
// tolerance class and the oracles that do not apply to it, with the reason. The specs live above
// the oracles (fuzz -> oracles), so the spec registry installs this lookup at static-init time;
// without one (a binary that links no specs) every op is "default" and skips nothing.
#ifndef PARITY_ORACLES_OP_FACTS_H_
#define PARITY_ORACLES_OP_FACTS_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/proto/caffe2.pb.h"

namespace parity::oracles {

struct OpTestFacts {
  std::string tolerance = "default";  // a class of oracles/tolerance.h
  std::vector<std::pair<std::string, std::string>> skipped_oracles;  // oracle, reason
};

using OpFactsLookup = std::function<std::optional<OpTestFacts>(const std::string& op_type)>;

// Installs the lookup (the spec registry does). Returns true, for static registration.
bool SetOpFactsLookup(OpFactsLookup lookup);
std::optional<OpTestFacts> FindOpFacts(const std::string& op_type);

// Every op of `net` and of the nets nested in its ops' arguments (control ops' bodies, step nets
// as NetDefs or as text), parents before their nested ops. Without `backward_step_nets`, the nets
// a forward run never runs (RecurrentNetwork's backward_step_net, run by its gradient op) are left
// out.
void ForEachOp(const caffe2::NetDef& net,
               const std::function<void(const caffe2::OperatorDef&)>& fn,
               bool backward_step_nets = true);

// The loosest tolerance class among the net's ops ("default" for ops without facts).
std::string ToleranceForNet(const caffe2::NetDef& net);
// Why `oracle` does not apply to this net ("Op: reason" of the first op that skips it), or "".
std::string SkipReason(const caffe2::NetDef& net, const std::string& oracle);

}  // namespace parity::oracles

#endif  // PARITY_ORACLES_OP_FACTS_H_

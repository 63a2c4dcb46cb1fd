// remove_reshape_for_fc (the seed's identify_reshape_sub_graph and remove_reshape_for_fc):
// PyTorch's nn.Linear takes 2-D inputs, so exported nets flatten with x.view(N, -1) — a Reshape
// whose shape is computed from the data (Shape, Slice, Concat, ...) — before FC; Caffe2's FC
// flattens 4-D inputs itself, so each isolated Reshape sub-graph read only by FCs goes, and the FCs
// read the data. Like the seed, the pass does not check the shape's value: it keeps the outputs
// only when the Reshape flattened to [dims[0], -1] (as the export writes it), so the transform
// oracle does not hold it to the same outputs.
#include "core/transforms/reshape_for_fc.h"

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include "core/transforms/net_edits.h"
#include "core/transforms/pass.h"
#include "core/transforms/rename.h"
#include "core/transforms/ssa.h"

namespace parity::transforms {

std::vector<int> GetDependencyChain(const Ssa& ssa, const VersionedBlob& target,
                                    const VersionedBlob& source) {
  const int n = static_cast<int>(ssa.ops.size());
  // Forward from the source: ops reading it, or reading what such an op wrote.
  std::set<VersionedBlob> reached = {source};
  std::vector<bool> downstream(n, false);
  for (int i = 0; i < n; ++i) {
    for (const auto& blob : ssa.ops[i].inputs) downstream[i] = downstream[i] || reached.count(blob);
    if (downstream[i]) reached.insert(ssa.ops[i].outputs.begin(), ssa.ops[i].outputs.end());
  }
  // Backward from the target: ops writing it, or writing what such an op read.
  std::set<VersionedBlob> needed = {target};
  std::vector<int> chain;
  for (int i = n - 1; i >= 0; --i) {
    bool upstream = false;
    for (const auto& blob : ssa.ops[i].outputs) upstream = upstream || needed.count(blob);
    if (!upstream) continue;
    needed.insert(ssa.ops[i].inputs.begin(), ssa.ops[i].inputs.end());
    if (downstream[i]) chain.push_back(i);
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

std::vector<std::vector<int>> IdentifyReshapeSubGraph(const caffe2::NetDef& net) {
  const Ssa ssa = GetSsa(net);
  std::vector<std::vector<int>> sub_graphs;
  for (int i = 0; i < net.op_size(); ++i) {
    // The seed asserts two inputs; a Reshape given its shape as an argument has no shape sub-graph.
    if (net.op(i).type() != "Reshape" || net.op(i).input_size() != 2) continue;
    std::vector<int> ops = GetDependencyChain(ssa, ssa.ops[i].inputs[1], ssa.ops[i].inputs[0]);
    ops.push_back(i);
    sub_graphs.push_back(ops);
  }
  return sub_graphs;
}

namespace {

// The first sub-graph the seed removes: its Reshape's output read by FCs only (at axis 1 here,
// where FC flattens as the Reshape did), one non-parameter input and one output.
std::optional<std::vector<int>> Removable(const caffe2::NetDef& net) {
  const Ssa ssa = GetSsa(net);
  for (const auto& sub_graph : IdentifyReshapeSubGraph(net)) {
    const int reshape = sub_graph.back();
    const VersionedBlob& output = ssa.ops[reshape].outputs[0];
    bool only_fc = true;
    for (int i = 0; i < net.op_size(); ++i) {
      const auto& inputs = ssa.ops[i].inputs;
      if (std::find(inputs.begin(), inputs.end(), output) == inputs.end()) continue;
      int64_t axis = 1;
      for (const auto& arg : net.op(i).arg()) {
        if (arg.name() == "axis") axis = arg.i();
      }
      only_fc = only_fc && net.op(i).type() == "FC" && axis == 1;
    }
    if (!only_fc) continue;
    const SubGraphBoundary boundary = GetSubGraphExternalInputOutput(net, sub_graph);
    const auto non_params = std::count_if(boundary.inputs.begin(), boundary.inputs.end(),
                                          [](const VersionedBlob& b) { return b.second != 0; });
    if (non_params == 1 && boundary.outputs.size() == 1) return sub_graph;
  }
  return std::nullopt;
}

void RemoveParameter(TransformedNet* t, const std::string& name) {
  std::set<int> fills;
  for (int i = 0; i < t->init.op_size(); ++i) {
    const auto& outputs = t->init.op(i).output();
    if (std::find(outputs.begin(), outputs.end(), name) != outputs.end()) fills.insert(i);
  }
  RemoveOps(&t->init, fills);
  for (auto* names : {t->init.mutable_external_output(), t->predict.mutable_external_input()}) {
    names->erase(std::remove(names->begin(), names->end(), name), names->end());
  }
}

void RemoveReshapeForFc(TransformedNet* t) {
  RefuseSubNets(t->predict, "remove_reshape_for_fc", "they may read the shape blobs");
  while (auto sub_graph = Removable(t->predict)) {
    const int reshape = sub_graph->back();
    // The Reshape's output takes its input's name: the sub-graph is then an identity in place.
    RenameOpOutput(&t->predict, reshape, 0, t->predict.op(reshape).input(0));
    const SubGraphBoundary boundary = GetSubGraphExternalInputOutput(t->predict, *sub_graph);
    RemoveOps(&t->predict, std::set<int>(sub_graph->begin(), sub_graph->end()));
    // Parameters only the sub-graph read leave the init net (the seed drops every one; one that
    // another op reads stays).
    const Ssa after = GetSsa(t->predict);
    const std::set<std::string> still_read = GetUndefinedBlobs(after);
    for (const auto& [name, version] : boundary.inputs) {
      if (version == 0 && !still_read.count(name)) RemoveParameter(t, name);
    }
  }
}

PARITY_REGISTER_PASS(PassInfo{
    "remove_reshape_for_fc",
    "Requires nothing; refuses nets with sub-nets. Removes each Reshape whose shape is computed "
    "from its data (with the ops computing it) when only FCs at axis 1 read its output and the "
    "sub-graph has one non-parameter input and one output; the FCs read the data, and parameters "
    "only the sub-graph read leave the init net (the seed's remove_reshape_for_fc). The same "
    "outputs only when each Reshape flattened to [dims[0], -1]: like the seed, the pass does not "
    "check the shape's value.",
    /*preserves_outputs=*/false, RemoveReshapeForFc, /*uses_constants=*/false,
    /*rewrites=*/{{"Reshape", "FC"}}});

}  // namespace
}  // namespace parity::transforms

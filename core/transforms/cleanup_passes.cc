// Passes that remove or rename without changing what is computed: dead-end removal and the two
// SSA renaming schemes of Caffe2's ONNX frontend (the seed's _ssa_rewrite, in both versions).
#include <functional>
#include <map>
#include <regex>
#include <set>

#include "core/proto/error.h"
#include "core/schema.h"
#include "core/transforms/net_edits.h"
#include "core/transforms/pass.h"
#include "core/transforms/ssa.h"

namespace parity::transforms {
namespace {

// The seed's remove_dead_end_ops: walking back from the last op, an op is removed when every
// output is a dead end: not the final version of an external output, and read by no op or only
// by removed ones.
void RemoveDeadEndOps(TransformedNet* t) {
  caffe2::NetDef& net = t->predict;
  const Ssa ssa = GetSsa(net);
  std::set<VersionedBlob> external_outputs;
  for (const auto& name : net.external_output())
    external_outputs.insert({name, ssa.versions.Get(name)});
  const auto consumers = GetConsumerMap(ssa);
  std::set<int> removed;
  auto dead_end = [&](const VersionedBlob& blob) {
    if (external_outputs.count(blob)) return false;
    auto readers = consumers.find(blob);
    if (readers == consumers.end()) return true;
    for (const auto& [op, position] : readers->second) {
      if (!removed.count(op)) return false;
    }
    return true;
  };
  // An op with sub-nets may read, by name, any blob written before it, and write blobs it does
  // not declare: it stays, and so does every op before it.
  const int last_with_sub_nets = [&net] {
    for (int i = net.op_size() - 1; i >= 0; --i) {
      if (HasSubNets(net.op(i))) return i;
    }
    return -1;
  }();
  for (int i = net.op_size() - 1; i > last_with_sub_nets; --i) {
    bool all_dead = true;
    for (const auto& blob : ssa.ops[i].outputs) all_dead = all_dead && dead_end(blob);
    if (all_dead) removed.insert(i);
  }
  RemoveOps(&net, removed);
}

using NameOf = std::function<std::string(const std::string& blob, int64_t version)>;

// kIllegalTransform when `name_of` gives a blob at some version another blob's name: every op
// input and output, the external inputs and the init net's outputs (both at version 0).
void RefuseTakenNames(const TransformedNet& t, const Ssa& ssa, const std::string& pass,
                      const NameOf& name_of) {
  const std::set<std::string> taken = NamesIn(t);
  auto check = [&](const std::string& blob, int64_t version) {
    const std::string name = name_of(blob, version);
    PARITY_ENFORCE(name == blob || !taken.count(name), ErrorKind::kIllegalTransform, pass,
                   ": the name '", name, "' for version ", version, " of '", blob,
                   "' is taken by another blob");
  };
  for (const OpSsa& op : ssa.ops) {
    for (const auto* blobs : {&op.inputs, &op.outputs}) {
      for (const auto& [blob, version] : *blobs) check(blob, version);
    }
  }
  for (const auto& blob : t.predict.external_input()) check(blob, 0);
  for (const auto& op : t.init.op()) check(op.output(0), 0);
}

std::string Suffixed(const std::string& name, int64_t version) {
  return name + "_" + std::to_string(version);
}

// Every op input and output named by `name_of(blob, version)` from its SSA entry.
void RenameBySsa(caffe2::NetDef* net, const Ssa& ssa, const NameOf& name_of) {
  for (int i = 0; i < net->op_size(); ++i) {
    caffe2::OperatorDef* op = net->mutable_op(i);
    for (int j = 0; j < op->input_size(); ++j) {
      op->set_input(j, name_of(ssa.ops[i].inputs[j].first, ssa.ops[i].inputs[j].second));
    }
    for (int j = 0; j < op->output_size(); ++j) {
      op->set_output(j, name_of(ssa.ops[i].outputs[j].first, ssa.ops[i].outputs[j].second));
    }
  }
}

// Both schemes rename inputs and outputs apart, so neither applies where an op must write in
// place, or where sub-nets read blobs by name.
void RefuseUnrenamable(const caffe2::NetDef& net, const std::string& pass) {
  RefuseSubNets(net, pass, "renaming outer blobs would not reach them");
  for (int i = 0; i < net.op_size(); ++i) {
    const caffe2::OperatorDef& op = net.op(i);
    const OpSchema* schema = OpSchemaRegistry::Find(op.type());
    if (schema == nullptr) continue;
    for (int in = 0; in < op.input_size(); ++in) {
      for (int out = 0; out < op.output_size(); ++out) {
        PARITY_ENFORCE(!schema->IsInplaceEnforced(in, out), ErrorKind::kIllegalTransform, pass,
                       ": op #", i, " (", op.type(), ") must write input ", in,
                       " in place as output ", out, "; SSA names would separate them");
      }
    }
  }
}

void RefuseNonFillInit(const caffe2::NetDef& init) {
  static const std::regex kGivenTensorFill("GivenTensor.*Fill");
  for (const auto& op : init.op()) {
    PARITY_ENFORCE(std::regex_match(op.type(), kGivenTensorFill) && op.output_size() == 1,
                   ErrorKind::kIllegalTransform, "type is ", op.type(), ", \n", op.DebugString());
  }
}

// Every blob at every version gets its version as a suffix (X -> X_0, X_1, ...); the init net's
// fills write version 0.
void SsaRewrite(TransformedNet* t) {
  caffe2::NetDef& net = t->predict;
  RefuseUnrenamable(net, "ssa_rewrite");
  RefuseNonFillInit(t->init);
  // One SSA view serves before and after the external inputs are renamed: an op reading X at
  // version 0 reads it at 0 whether X or X_0 is declared.
  const Ssa ssa = GetSsa(net);
  RefuseTakenNames(*t, ssa, "ssa_rewrite", Suffixed);
  for (auto& op : *t->init.mutable_op()) op.set_output(0, Suffixed(op.output(0), 0));
  for (auto& name : *t->init.mutable_external_input()) name = Suffixed(name, 0);
  for (auto& name : *t->init.mutable_external_output()) name = Suffixed(name, 0);
  // Blobs read before written (the external inputs and undeclared feeds) are renamed for callers.
  for (const auto& name : GetUndefinedBlobs(ssa)) t->renamed_inputs[name] = Suffixed(name, 0);
  for (auto& name : *net.mutable_external_input()) {
    t->renamed_inputs[name] = Suffixed(name, 0);
    name = Suffixed(name, 0);
  }
  RenameBySsa(&net, ssa, Suffixed);
  for (auto& name : *net.mutable_external_output()) {
    const std::string renamed = Suffixed(name, ssa.versions.Get(name));
    t->renamed_outputs[name] = renamed;
    name = renamed;
  }
}

// Only blobs with more than one version get suffixes, and version 0 keeps its name: the names
// users gave stay where they can.
void SsaRewriteMinimal(TransformedNet* t) {
  caffe2::NetDef& net = t->predict;
  RefuseUnrenamable(net, "ssa_rewrite_minimal");
  RefuseNonFillInit(t->init);
  const Ssa ssa = GetSsa(net);
  std::map<std::string, std::set<int64_t>> versions_seen;
  for (const OpSsa& op : ssa.ops) {
    for (const auto& [name, version] : op.inputs) versions_seen[name].insert(version);
    for (const auto& [name, version] : op.outputs) versions_seen[name].insert(version);
  }
  auto ssa_name = [&](const std::string& name, int64_t version) {
    if (version == 0) return name;
    auto seen = versions_seen.find(name);
    if (seen == versions_seen.end() || seen->second.size() <= 1) return name;
    return Suffixed(name, version);
  };
  RefuseTakenNames(*t, ssa, "ssa_rewrite_minimal", ssa_name);
  RenameBySsa(&net, ssa, ssa_name);
  for (auto& name : *net.mutable_external_output()) {
    const std::string renamed = ssa_name(name, ssa.versions.Get(name));
    if (renamed != name) t->renamed_outputs[name] = renamed;
    name = renamed;
  }
}

constexpr char kDeadEndContract[] =
    "Requires nothing. Removes, walking back from the last op, every op whose outputs are all "
    "dead ends: not the final version of an external output, and read by no op that stays "
    "(Caffe2's remove_dead_end_ops); an op with sub-nets, which reads and writes blobs by name, "
    "stays with every op before it. Guarantees the external outputs are computed as before.";

PARITY_REGISTER_PASS(PassInfo{"remove_dead_end_ops", kDeadEndContract, true, RemoveDeadEndOps});
PARITY_REGISTER_PASS(PassInfo{
    "dce",
    std::string("Dead code elimination; the same pass as remove_dead_end_ops. ") + kDeadEndContract,
    true, RemoveDeadEndOps});
PARITY_REGISTER_PASS(PassInfo{
    "ssa_rewrite",
    "Requires no op with sub-nets or an enforced in-place pair, and an init net of "
    "GivenTensor*Fill ops only. Renames every blob X at version v to X_v (Caffe2's ONNX "
    "frontend): external inputs and the init net's outputs become X_0, each external output its "
    "last version. Guarantees the same values under the new names, and no blob written twice.",
    true, SsaRewrite});
PARITY_REGISTER_PASS(PassInfo{
    "ssa_rewrite_minimal",
    "Requires what ssa_rewrite requires. Renames X at version v > 0 to X_v only where X has more "
    "than one version in the net (the frontend's later scheme); external inputs keep their names. "
    "Guarantees the same values under the new names.",
    true, SsaRewriteMinimal});

}  // namespace
}  // namespace parity::transforms

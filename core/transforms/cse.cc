// Common subexpression elimination (Caffe2's CommonSubexpressionElimination transform): an op
// with the same type, engine, device option, arguments and versioned inputs as an earlier one
// computes the same outputs, so its readers read the earlier op's outputs and it goes.
#include <map>
#include <set>

#include "core/schema.h"
#include "core/transforms/net_edits.h"
#include "core/transforms/pass.h"
#include "core/transforms/ssa.h"

namespace parity::transforms {
namespace {

std::string Key(const caffe2::OperatorDef& op, const OpSsa& ssa) {
  caffe2::OperatorDef shape = op;
  shape.clear_input();
  shape.clear_output();
  shape.clear_name();
  shape.clear_debug_info();
  std::string key = shape.SerializeAsString();
  for (const auto& [name, version] : ssa.inputs) {
    key += '\0' + name + '\0' + std::to_string(version);
  }
  return key;
}

// Whether op `i` may merge into the earlier identical op `j`: every output of `i` can be replaced
// by `j`'s at each of its readers (nothing writes `j`'s output in between but `i` itself), and
// none is the last version of an external output unless both ops write it under one name.
bool CanMerge(const caffe2::NetDef& net, const Ssa& ssa,
              const std::map<VersionedBlob, std::vector<OpSlot>>& consumers,
              const std::set<VersionedBlob>& external_outputs, bool sub_nets, int j, int i) {
  const caffe2::OperatorDef& op = net.op(i);
  if (op.output_size() != net.op(j).output_size() || op.output_size() == 0) return false;
  for (int k = 0; k < op.output_size(); ++k) {
    const VersionedBlob& mine = ssa.ops[i].outputs[k];
    const VersionedBlob& theirs = ssa.ops[j].outputs[k];
    const bool same_name = mine.first == theirs.first;
    // Sub-nets may read any name undeclared: only a merge that renames nothing is safe there.
    if (sub_nets && !same_name) return false;
    if (!same_name && external_outputs.count(mine)) return false;
    int last_reader = i;
    auto readers = consumers.find(mine);
    if (readers != consumers.end()) {
      for (const auto& [reader, position] : readers->second) {
        last_reader = std::max(last_reader, reader);
        // A reader writing the blob in place would be split from its output by the rename; one
        // writing the earlier op's blob would become in place (or clobber it for later readers).
        for (const auto& written : net.op(reader).output()) {
          if (!same_name && (written == mine.first || written == theirs.first)) return false;
        }
      }
    }
    if (same_name && external_outputs.count(mine)) last_reader = net.op_size();
    for (int between = j + 1; between < last_reader; ++between) {
      if (between == i) continue;
      for (const auto& written : ssa.ops[between].outputs) {
        if (written.first == theirs.first) return false;
      }
    }
  }
  return true;
}

// One merge, or false when there is none left.
bool MergeOnce(caffe2::NetDef* net) {
  const Ssa ssa = GetSsa(*net);
  const auto consumers = GetConsumerMap(ssa);
  std::set<VersionedBlob> external_outputs;
  for (const auto& name : net->external_output())
    external_outputs.insert({name, ssa.versions.Get(name)});
  const bool sub_nets = FirstOpWithSubNets(*net) >= 0;
  std::map<std::string, int> first_with_key;
  for (int i = 0; i < net->op_size(); ++i) {
    const caffe2::OperatorDef& op = net->op(i);
    const OpSchema* schema = OpSchemaRegistry::Find(op.type());
    if (schema == nullptr || schema->impure() || HasSubNets(op)) continue;
    bool in_place = false;
    for (const auto& out : op.output()) {
      for (const auto& in : op.input()) in_place = in_place || in == out;
    }
    if (in_place) continue;
    const std::string key = Key(op, ssa.ops[i]);
    auto [first, inserted] = first_with_key.emplace(key, i);
    if (inserted) continue;
    const int j = first->second;
    if (!CanMerge(*net, ssa, consumers, external_outputs, sub_nets, j, i)) continue;
    for (int k = 0; k < op.output_size(); ++k) {
      auto readers = consumers.find(ssa.ops[i].outputs[k]);
      if (readers == consumers.end()) continue;
      for (const auto& [reader, position] : readers->second) {
        net->mutable_op(reader)->set_input(position, net->op(j).output(k));
      }
    }
    RemoveOps(net, {i});
    return true;
  }
  return false;
}

void CommonSubexpressionElimination(TransformedNet* t) {
  while (MergeOnce(&t->predict)) {
  }
}

PARITY_REGISTER_PASS(PassInfo{
    "cse",
    "Requires nothing. Merges an op into an earlier one of the same type, engine, device option "
    "and arguments reading the same versions of the same blobs, when the earlier op's outputs "
    "still hold where the later one's are read; impure ops (random fills, CreateScope), ops with "
    "sub-nets and in-place ops are never merged, and in a net with sub-nets only merges that "
    "rename nothing are made. Repeats until nothing merges. Guarantees the same external outputs.",
    true, CommonSubexpressionElimination});

}  // namespace
}  // namespace parity::transforms

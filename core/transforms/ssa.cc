#include "core/transforms/ssa.h"

#include <algorithm>

namespace parity::transforms {

int64_t BlobVersions::Get(const std::string& blob) const {
  auto it = version_.find(blob);
  return it == version_.end() ? 0 : it->second;
}

void BlobVersions::Set(const std::string& blob, int64_t version) {
  auto [it, inserted] = version_.emplace(blob, version);
  if (inserted) {
    order_.push_back(blob);
  } else {
    it->second = version;
  }
}

Ssa GetSsa(const caffe2::NetDef& net, BlobVersions versions) {
  Ssa ssa;
  ssa.versions = std::move(versions);
  BlobVersions& v = ssa.versions;
  for (const auto& name : net.external_input()) {
    if (!v.Contains(name)) v.Set(name, 0);
  }
  const bool no_external_inputs = net.external_input_size() == 0;
  ssa.ops.reserve(net.op_size());
  for (const auto& op : net.op()) {
    OpSsa entry;
    for (const auto& name : op.input()) {
      if (no_external_inputs && !v.Contains(name)) v.Set(name, 0);
      entry.inputs.emplace_back(name, v.Get(name));
    }
    // Every output is bumped before any is recorded: an op writing X twice shows X's final
    // version at both positions, as Caffe2's does.
    for (const auto& name : op.output()) v.Set(name, v.Get(name) + 1);
    for (const auto& name : op.output()) entry.outputs.emplace_back(name, v.Get(name));
    ssa.ops.push_back(std::move(entry));
  }
  return ssa;
}

std::set<std::string> GetUndefinedBlobs(const Ssa& ssa) {
  std::set<std::string> undefined;
  for (const OpSsa& op : ssa.ops) {
    for (const auto& [name, version] : op.inputs) {
      if (version == 0) undefined.insert(name);
    }
  }
  return undefined;
}

std::map<VersionedBlob, OpSlot> GetProducerMap(const Ssa& ssa) {
  std::map<VersionedBlob, OpSlot> producers;
  for (int i = 0; i < static_cast<int>(ssa.ops.size()); ++i) {
    const auto& outputs = ssa.ops[i].outputs;
    for (int j = 0; j < static_cast<int>(outputs.size()); ++j) producers[outputs[j]] = {i, j};
  }
  return producers;
}

std::map<VersionedBlob, std::vector<OpSlot>> GetConsumerMap(const Ssa& ssa) {
  std::map<VersionedBlob, std::vector<OpSlot>> consumers;
  for (int i = 0; i < static_cast<int>(ssa.ops.size()); ++i) {
    const auto& inputs = ssa.ops[i].inputs;
    for (int j = 0; j < static_cast<int>(inputs.size()); ++j)
      consumers[inputs[j]].push_back({i, j});
  }
  return consumers;
}

std::vector<int> GetOpIdsInPath(const Ssa& ssa, const std::vector<std::string>& inputs,
                                const std::vector<std::string>& outputs) {
  std::set<VersionedBlob> given;
  for (const auto& name : inputs) given.insert({name, ssa.versions.Get(name)});
  const std::map<VersionedBlob, OpSlot> producers = GetProducerMap(ssa);
  std::vector<VersionedBlob> queue;
  for (const auto& name : outputs) queue.push_back({name, ssa.versions.Get(name)});
  std::set<int> used;
  while (!queue.empty()) {
    const VersionedBlob blob = queue.back();
    queue.pop_back();
    if (given.count(blob)) continue;
    auto producer = producers.find(blob);
    if (producer == producers.end()) continue;
    const int op = producer->second.first;
    if (!used.insert(op).second) continue;
    const auto& op_inputs = ssa.ops[op].inputs;
    queue.insert(queue.end(), op_inputs.begin(), op_inputs.end());
  }
  return {used.begin(), used.end()};
}

SubGraphBoundary GetSubGraphExternalInputOutput(const caffe2::NetDef& net,
                                                const std::vector<int>& op_indices) {
  const Ssa ssa = GetSsa(net);
  std::vector<VersionedBlob> all_inputs, all_outputs;
  for (int op : op_indices) {
    for (const auto& blob : ssa.ops.at(op).inputs) {
      if (std::find(all_inputs.begin(), all_inputs.end(), blob) == all_inputs.end()) {
        all_inputs.push_back(blob);
      }
    }
    for (const auto& blob : ssa.ops.at(op).outputs) all_outputs.push_back(blob);
  }
  SubGraphBoundary boundary;
  const std::set<VersionedBlob> written(all_outputs.begin(), all_outputs.end());
  for (const auto& blob : all_inputs) {
    if (!written.count(blob)) boundary.inputs.push_back(blob);
  }
  const std::set<int> inside(op_indices.begin(), op_indices.end());
  std::set<VersionedBlob> read_outside;
  for (const auto& name : net.external_output())
    read_outside.insert({name, ssa.versions.Get(name)});
  for (int i = 0; i < static_cast<int>(ssa.ops.size()); ++i) {
    if (inside.count(i)) continue;
    read_outside.insert(ssa.ops[i].inputs.begin(), ssa.ops[i].inputs.end());
  }
  for (const auto& blob : all_outputs) {
    if (read_outside.count(blob)) boundary.outputs.push_back(blob);
  }
  return boundary;
}

std::string VersionedName(const VersionedBlob& blob) {
  return blob.first + "@" + std::to_string(blob.second);
}

}  // namespace parity::transforms

#include "core/transforms/memonger.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "core/transforms/net_edits.h"

namespace parity::transforms {
namespace {

// Arguments RecurrentNetwork and its gradient read through `<blob>.rename`
// (core/rnn/recurrent_network_op.cc, recurrent_network_gradient_op.cc): the blobs they name may
// be renamed.
bool FollowsRename(const caffe2::OperatorDef& op, const std::string& arg) {
  if (op.type() == "RecurrentNetwork") return arg == "link_internal" || arg == "link_external";
  return op.type() == "RecurrentNetworkGradient" &&
         (arg == "link_internal" || arg == "link_external" || arg == "backward_link_internal" ||
          arg == "backward_link_external" || arg == "param_grads");
}

bool IsRecurrentNetwork(const caffe2::OperatorDef& op) {
  return op.type().rfind("RecurrentNetwork", 0) == 0;
}

// Every name `net` and its sub-nets use: blobs, external names, and the string arguments of ops
// with sub-nets.
void AddNamesUsed(const caffe2::NetDef& net, std::set<std::string>* names) {
  names->insert(net.external_input().begin(), net.external_input().end());
  names->insert(net.external_output().begin(), net.external_output().end());
  for (const auto& op : net.op()) {
    names->insert(op.input().begin(), op.input().end());
    names->insert(op.output().begin(), op.output().end());
    if (!HasSubNets(op)) continue;
    for (const auto& sub : SubNetsOf(op)) AddNamesUsed(sub, names);
    for (const auto& arg : op.arg()) {
      if (FollowsRename(op, arg.name())) continue;
      if (arg.has_s()) names->insert(arg.s());
      names->insert(arg.strings().begin(), arg.strings().end());
    }
  }
}

std::vector<std::vector<int>> LastWriters(const caffe2::NetDef& net) {
  std::vector<std::vector<int>> parents(net.op_size());
  std::map<std::string, int> owner;
  for (int i = 0; i < net.op_size(); ++i) {
    for (const auto& blob : net.op(i).input()) {
      auto found = owner.find(blob);
      if (found != owner.end()) parents[i].push_back(found->second);
    }
    for (const auto& blob : net.op(i).output()) owner[blob] = i;
  }
  return parents;
}

std::string Listed(const std::vector<int>& values) {
  std::string out;
  for (int v : values) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return "[" + out + "]";
}

std::vector<std::pair<int, int>> InplacePairs(const caffe2::OperatorDef& op) {
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < op.input_size(); ++i) {
    for (int j = 0; j < op.output_size(); ++j) {
      if (op.input(i) == op.output(j)) pairs.emplace_back(i, j);
    }
  }
  return pairs;
}

}  // namespace

std::set<std::string> PinnedBlobs(const caffe2::NetDef& net) {
  std::set<std::string> pinned(net.external_input().begin(), net.external_input().end());
  pinned.insert(net.external_output().begin(), net.external_output().end());
  std::set<std::string> written;
  for (const auto& op : net.op()) {
    for (const auto& blob : op.input()) {
      if (!written.count(blob)) pinned.insert(blob);
    }
    written.insert(op.output().begin(), op.output().end());
    if (op.type() == "Alias") {
      pinned.insert(op.input().begin(), op.input().end());
      pinned.insert(op.output().begin(), op.output().end());
    }
    if (!HasSubNets(op)) continue;
    for (const auto& sub : SubNetsOf(op)) AddNamesUsed(sub, &pinned);
    for (const auto& arg : op.arg()) {
      if (FollowsRename(op, arg.name())) continue;
      if (arg.has_s()) pinned.insert(arg.s());
      pinned.insert(arg.strings().begin(), arg.strings().end());
    }
    // The step workspaces: a shared name would hand one op's step nets to another.
    if (op.type() == "RecurrentNetwork" && op.output_size() > 0) {
      pinned.insert(op.output(op.output_size() - 1));
    }
    if (op.type() == "RecurrentNetworkGradient" && op.input_size() > 0) {
      pinned.insert(op.input(op.input_size() - 1));
      // Initial-state gradients are views of the op's own state gradients (as the forward op's
      // aliases, pinned by name, are views of its states): a blob later written under their
      // name would be written into that storage, at whatever alignment the view has.
      int params = 0;
      for (const auto& arg : op.arg()) {
        if (arg.name() == "param") params = arg.ints_size();
      }
      for (int o = 1 + params; o < op.output_size(); ++o) pinned.insert(op.output(o));
    }
  }
  return pinned;
}

std::map<std::string, LiveRange> ComputeLiveRanges(
    const caffe2::NetDef& net, const std::function<bool(const std::string&)>& shareable) {
  const std::set<std::string> pinned = PinnedBlobs(net);
  std::map<std::string, LiveRange> ranges;
  for (int i = 0; i < net.op_size(); ++i) {
    const caffe2::OperatorDef& op = net.op(i);
    for (const auto* blobs : {&op.input(), &op.output()}) {
      for (const auto& blob : *blobs) {
        if (pinned.count(blob) || !shareable(blob)) continue;
        LiveRange& range = ranges[blob];
        if (range.defined < 0) range.defined = i;  // pinned blobs aside, a write comes first
        range.last_used = i;
      }
    }
  }
  return ranges;
}

std::map<std::string, std::string> ComputeBlobRecycling(
    const caffe2::NetDef& net, const std::map<std::string, LiveRange>& ranges,
    const std::string& namescope, const std::set<std::string>& taken) {
  std::map<std::string, std::string> head;  // blob -> the first blob of its group
  std::map<std::string, int> group_size;
  std::vector<std::string> heads_in_order;
  std::vector<std::string> free_heads;  // most recently freed last
  for (int i = 0; i < net.op_size(); ++i) {
    const caffe2::OperatorDef& op = net.op(i);
    for (const auto& blob : op.output()) {
      auto range = ranges.find(blob);
      if (range == ranges.end() || range->second.defined != i || head.count(blob)) continue;
      if (free_heads.empty()) {
        head[blob] = blob;
        heads_in_order.push_back(blob);
      } else {
        head[blob] = free_heads.back();
        free_heads.pop_back();
      }
      ++group_size[head[blob]];
    }
    std::set<std::string> freed;
    for (const auto* blobs : {&op.input(), &op.output()}) {
      for (const auto& blob : *blobs) {
        auto range = ranges.find(blob);
        if (range == ranges.end() || range->second.last_used != i || !head.count(blob)) continue;
        if (freed.insert(blob).second) free_heads.push_back(head[blob]);
      }
    }
  }
  std::map<std::string, std::string> shared_name;
  std::set<std::string> used = taken;
  int k = 0;
  for (const auto& h : heads_in_order) {
    if (group_size[h] < 2) continue;
    std::string name;
    do {
      name = namescope + "__m" + std::to_string(k++) + "_shared";
    } while (used.count(name));
    used.insert(name);
    shared_name[h] = name;
  }
  std::map<std::string, std::string> assignments;
  for (const auto& [blob, h] : head) {
    auto name = shared_name.find(h);
    if (name != shared_name.end()) assignments[blob] = name->second;
  }
  return assignments;
}

SharingStatistics ComputeSharingStatistics(
    const std::map<std::string, std::string>& assignments,
    const std::function<int64_t(const std::string&)>& bytes_of) {
  SharingStatistics stats;
  std::map<std::string, int64_t> largest;
  for (const auto& [blob, shared] : assignments) {
    const int64_t bytes = bytes_of(blob);
    stats.before_bytes += bytes;
    largest[shared] = std::max(largest[shared], bytes);
  }
  for (const auto& [shared, bytes] : largest) stats.after_bytes += bytes;
  return stats;
}

void ApplyAssignments(const std::map<std::string, std::string>& assignments, caffe2::NetDef* net) {
  auto renamed = [&assignments](std::string* blob) {
    auto found = assignments.find(*blob);
    if (found == assignments.end()) return false;
    *blob = found->second;
    return true;
  };
  for (auto& op : *net->mutable_op()) {
    std::vector<std::pair<std::string, std::string>> renames;
    for (auto* blobs : {op.mutable_input(), op.mutable_output()}) {
      for (auto& blob : *blobs) {
        const std::string old = blob;
        if (renamed(&blob)) renames.emplace_back(old, blob);
      }
    }
    if (!IsRecurrentNetwork(op)) continue;
    std::set<std::string> has_rename;
    for (const auto& arg : op.arg()) has_rename.insert(arg.name());
    for (const auto& [old, now] : renames) {
      if (!has_rename.insert(old + ".rename").second) continue;
      caffe2::Argument* arg = op.add_arg();
      arg->set_name(old + ".rename");
      arg->set_s(now);
    }
  }
}

std::string GraphEqualityDifference(const caffe2::NetDef& a, const caffe2::NetDef& b) {
  if (a.op_size() != b.op_size()) {
    return std::to_string(a.op_size()) + " ops before, " + std::to_string(b.op_size()) + " after";
  }
  for (int i = 0; i < a.op_size(); ++i) {
    const caffe2::OperatorDef &x = a.op(i), &y = b.op(i);
    if (x.type() != y.type() || x.engine() != y.engine() ||
        x.device_option().SerializeAsString() != y.device_option().SerializeAsString()) {
      return "op #" + std::to_string(i) + " is " + x.type() + " before, " + y.type() +
             " after (or its engine or device option changed)";
    }
  }
  const auto before = LastWriters(a), after = LastWriters(b);
  for (int i = 0; i < a.op_size(); ++i) {
    if (before[i] != after[i]) {
      return "op #" + std::to_string(i) + " (" + a.op(i).type() + ") reads what ops " +
             Listed(before[i]) + " wrote before, what ops " + Listed(after[i]) + " wrote after";
    }
  }
  return "";
}

std::string InplaceBlobsDifference(const caffe2::NetDef& a, const caffe2::NetDef& b) {
  for (int i = 0; i < std::min(a.op_size(), b.op_size()); ++i) {
    if (InplacePairs(a.op(i)) != InplacePairs(b.op(i))) {
      return "op #" + std::to_string(i) + " (" + a.op(i).type() +
             ") writes in place other inputs than before";
    }
  }
  return "";
}

}  // namespace parity::transforms

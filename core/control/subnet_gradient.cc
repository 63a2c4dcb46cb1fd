#include "core/control/subnet_gradient.h"

namespace parity {

void CollectReadsAndWrites(const Ops& ops, std::set<std::string>* reads,
                           std::set<std::string>* writes) {
  for (const auto& op : ops) {
    for (const auto& in : op.input()) {
      if (!writes->count(in)) reads->insert(in);
    }
    for (const auto& out : op.output()) writes->insert(out);
  }
}

SubnetGradient MakeSubnetGradient(const caffe2::NetDef& subnet, const GradientSeeds& seeds) {
  std::set<std::string> touched;
  for (const auto& op : subnet.op()) {
    touched.insert(op.input().begin(), op.input().end());
    touched.insert(op.output().begin(), op.output().end());
  }
  GradientSeeds reached;
  SubnetGradient result;
  for (const auto& [blob, grad] : seeds) {
    if (touched.count(blob)) {
      reached.emplace_back(blob, grad);
    } else {
      // Untouched by the subnet: the gradient passes through.
      result.gradient_of[blob] = grad;
      result.input_gradient_of[blob] = grad;
    }
  }
  Ops ops;
  if (!reached.empty()) {
    BackwardPass pass = GetBackwardPass({subnet.op().begin(), subnet.op().end()}, reached);
    ops = std::move(pass.ops);
    for (const auto& [blob, grad] : pass.gradient_of) result.gradient_of[blob] = grad;
    for (const auto& [blob, grad] : pass.input_gradient_of) result.input_gradient_of[blob] = grad;
  }
  result.net = subnet;
  if (!result.net.name().empty()) result.net.set_name(subnet.name() + "_grad");
  result.net.clear_op();
  result.net.clear_external_input();
  result.net.clear_external_output();
  for (auto& op : ops) *result.net.add_op() = std::move(op);
  CollectReadsAndWrites({result.net.op().begin(), result.net.op().end()}, &result.inputs,
                        &result.outputs);
  return result;
}

Ops DedupeOutputGradients(const caffe2::OperatorDef& def, std::vector<std::string>* g_output) {
  Ops copies;
  std::map<std::string, std::string> by_output;
  std::set<std::string> used;
  for (int j = 0; j < def.output_size() && j < static_cast<int>(g_output->size()); ++j) {
    std::string& grad = (*g_output)[j];
    if (grad.empty()) continue;
    const std::string& output = def.output(j);
    auto seen = by_output.find(output);
    if (seen != by_output.end()) {
      grad = seen->second;
    } else if (used.insert(grad).second) {
      by_output[output] = grad;
    } else {
      const std::string deduped = output + "_" + grad + "_DEDUP";
      copies.push_back(CopyOp(grad, deduped));
      used.insert(deduped);
      by_output[output] = deduped;
      grad = deduped;
    }
  }
  return copies;
}

std::vector<std::string> OutputGradients(const GradientContext& g) {
  std::vector<std::string> out;
  for (int j = 0; j < g.num_outputs(); ++j) out.push_back(g.ProvidedGO(j));
  return out;
}

caffe2::OperatorDef CopyOp(const std::string& from, const std::string& to) {
  caffe2::OperatorDef copy;
  copy.set_type("Copy");
  copy.add_input(from);
  copy.add_output(to);
  return copy;
}

caffe2::OperatorDef GradientControlOp(const caffe2::OperatorDef& def) {
  caffe2::OperatorDef op = def;
  if (!def.name().empty()) op.set_name(def.name() + "_grad");
  op.clear_input();
  op.clear_output();
  op.clear_arg();
  op.clear_control_input();
  op.set_is_gradient_op(true);
  return op;
}

GradientSeeds OutputSeeds(const caffe2::OperatorDef& def,
                          const std::vector<std::string>& g_output) {
  GradientSeeds seeds;
  std::set<std::string> seeded;
  for (int j = 0; j < def.output_size() && j < static_cast<int>(g_output.size()); ++j) {
    if (g_output[j].empty() || !seeded.insert(def.output(j)).second) continue;
    seeds.emplace_back(def.output(j), g_output[j]);
  }
  return seeds;
}

}  // namespace parity

#include "core/transforms/net_edits.h"

#include <google/protobuf/text_format.h>

#include "core/proto/nesting.h"

#include "core/proto/error.h"

namespace parity::transforms {
namespace {

// RecurrentNetwork's step nets may come as NetDef text in a string argument (Caffe2 writes them
// so).
bool IsStepNetText(const caffe2::Argument& arg) {
  return arg.has_s() && (arg.name() == "step_net" || arg.name() == "backward_step_net");
}

}  // namespace

void RemoveOps(caffe2::NetDef* net, const std::set<int>& indices) {
  if (indices.empty()) return;
  google::protobuf::RepeatedPtrField<caffe2::OperatorDef> kept;
  for (int i = 0; i < net->op_size(); ++i) {
    if (!indices.count(i)) *kept.Add() = std::move(*net->mutable_op(i));
  }
  net->mutable_op()->Swap(&kept);
}

bool HasSubNets(const caffe2::OperatorDef& op) {
  for (const auto& arg : op.arg()) {
    if (arg.has_n() || arg.nets_size() > 0 || IsStepNetText(arg)) return true;
  }
  return false;
}

std::vector<caffe2::NetDef> SubNetsOf(const caffe2::OperatorDef& op) {
  std::vector<caffe2::NetDef> nets;
  for (const auto& arg : op.arg()) {
    if (arg.has_n()) nets.push_back(arg.n());
    nets.insert(nets.end(), arg.nets().begin(), arg.nets().end());
    if (IsStepNetText(arg)) {
      caffe2::NetDef net;
      PARITY_ENFORCE(ParseNetText(arg.s(), &net),
                     ErrorKind::kBadArgument, op.type(), ": argument '", arg.name(),
                     "' is a string that does not parse as a NetDef in text format");
      nets.push_back(std::move(net));
    }
  }
  return nets;
}

int FirstOpWithSubNets(const caffe2::NetDef& net) {
  for (int i = 0; i < net.op_size(); ++i) {
    if (HasSubNets(net.op(i))) return i;
  }
  return -1;
}

void RefuseSubNets(const caffe2::NetDef& net, const std::string& pass, const std::string& why) {
  const int op = FirstOpWithSubNets(net);
  PARITY_ENFORCE(op < 0, ErrorKind::kIllegalTransform, pass, ": op #", op, " (", net.op(op).type(),
                 ") has sub-nets, which read blobs by name: ", why);
}

std::set<std::string> NamesIn(const TransformedNet& t) {
  std::set<std::string> names;
  for (const caffe2::NetDef* net : {&t.predict, &t.init}) {
    names.insert(net->external_input().begin(), net->external_input().end());
    names.insert(net->external_output().begin(), net->external_output().end());
    for (const auto& op : net->op()) {
      names.insert(op.input().begin(), op.input().end());
      names.insert(op.output().begin(), op.output().end());
    }
  }
  return names;
}

std::string FreshName(const TransformedNet& t, const std::string& base) {
  const std::set<std::string> taken = NamesIn(t);
  if (!taken.count(base)) return base;
  for (int suffix = 1;; ++suffix) {
    const std::string name = base + "_" + std::to_string(suffix);
    if (!taken.count(name)) return name;
  }
}

}  // namespace parity::transforms

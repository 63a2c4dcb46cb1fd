// Small edits the passes share.
#ifndef PARITY_CORE_TRANSFORMS_NET_EDITS_H_
#define PARITY_CORE_TRANSFORMS_NET_EDITS_H_

#include <set>
#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "core/transforms/pass.h"

namespace parity::transforms {

// Removes the ops at `indices`, keeping the others in order.
void RemoveOps(caffe2::NetDef* net, const std::set<int>& indices);

// Whether the op carries nets (Do, If, While, RecurrentNetwork): their ops read and write blobs
// of the enclosing workspace by name, which the SSA view of the outer net does not see.
bool HasSubNets(const caffe2::OperatorDef& op);

// The nets `op` carries (If's then/else, While's loop/cond, Do's net, RecurrentNetwork's step
// nets, as NetDefs or as text); kBadArgument for step-net text that does not parse.
std::vector<caffe2::NetDef> SubNetsOf(const caffe2::OperatorDef& op);

// The first op of `net` that carries nets, or -1.
int FirstOpWithSubNets(const caffe2::NetDef& net);

// kIllegalTransform naming `pass` when `net` has an op with sub-nets.
void RefuseSubNets(const caffe2::NetDef& net, const std::string& pass, const std::string& why);

// Every name the nets use, so that a new name never lands on another blob.
std::set<std::string> NamesIn(const TransformedNet& t);

// `base`, or `base` with the first suffix _1, _2, ... that makes it a name `t` does not use yet.
std::string FreshName(const TransformedNet& t, const std::string& base);

}  // namespace parity::transforms

#endif  // PARITY_CORE_TRANSFORMS_NET_EDITS_H_

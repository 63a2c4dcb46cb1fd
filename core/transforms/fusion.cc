#include "core/transforms/fusion.h"

#include <map>
#include <vector>

#include "core/transforms/net_edits.h"

namespace parity::transforms {
namespace {

// The op of type `type` that alone reads op `producer`'s output 0 (at its input 0), when the
// producer may write that op's output 0 in its place; -1 otherwise.
int FusableConsumer(const caffe2::NetDef& net, const Ssa& ssa,
                    const std::map<VersionedBlob, std::vector<OpSlot>>& consumers, int producer,
                    const std::string& type) {
  const VersionedBlob& y = ssa.ops[producer].outputs[0];
  for (const auto& name : net.external_output()) {
    if (VersionedBlob{name, ssa.versions.Get(name)} == y) return -1;
  }
  auto readers = consumers.find(y);
  if (readers == consumers.end() || readers->second.size() != 1) return -1;
  const auto [consumer, position] = readers->second[0];
  if (position != 0 || net.op(consumer).type() != type || net.op(consumer).output_size() < 1) {
    return -1;
  }
  const std::string& z = net.op(consumer).output(0);
  for (const auto& in : net.op(producer).input()) {
    if (in == z) return -1;  // the producer would write its own input
  }
  for (int between = producer + 1; between < consumer; ++between) {
    for (const auto& in : net.op(between).input()) {
      if (in == z) return -1;
    }
    for (const auto& out : net.op(between).output()) {
      if (out == z) return -1;
    }
  }
  return consumer;
}

}  // namespace

void FusePairs(TransformedNet* t, const std::set<std::string>& producer_types,
               const std::string& consumer_type, const FusePair& fuse) {
  // Each fusion renames the producer's output, which may free an earlier pair: the scan starts
  // over on the new SSA view.
  for (bool fused = true; fused;) {
    fused = false;
    const Ssa ssa = GetSsa(t->predict);
    const auto consumers = GetConsumerMap(ssa);
    for (int producer = 0; producer < t->predict.op_size() && !fused; ++producer) {
      const caffe2::OperatorDef& op = t->predict.op(producer);
      if (!producer_types.count(op.type()) || op.output_size() != 1) continue;
      const int consumer = FusableConsumer(t->predict, ssa, consumers, producer, consumer_type);
      if (consumer < 0 || !fuse(t, ssa, producer, consumer)) continue;
      t->predict.mutable_op(producer)->set_output(0, t->predict.op(consumer).output(0));
      RemoveOps(&t->predict, {consumer});
      fused = true;
    }
  }
}

}  // namespace parity::transforms

#include "core/transforms/fusion.h"

#include "core/transforms/net_edits.h"

namespace parity::transforms {

int FusableConsumer(const caffe2::NetDef& net, const Ssa& ssa, int producer,
                    const std::string& type) {
  if (net.op(producer).output_size() < 1) return -1;
  const VersionedBlob& y = ssa.ops[producer].outputs[0];
  for (const auto& name : net.external_output()) {
    if (VersionedBlob{name, ssa.versions.Get(name)} == y) return -1;
  }
  const auto consumers = GetConsumerMap(ssa);
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

void FuseIntoProducer(caffe2::NetDef* net, int producer, int consumer) {
  net->mutable_op(producer)->set_output(0, net->op(consumer).output(0));
  RemoveOps(net, {consumer});
}

}  // namespace parity::transforms

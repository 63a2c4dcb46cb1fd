// fuse_copy_pairs: a CopyCPUToGPU whose readers are all CopyGPUToCPU (or the reverse) is a round
// trip; the readers of the returned copies read the original blob instead and the copies go (the
// seed's _fuse_once, repeated until nothing fuses). Where the seed rewires only the first reader
// of each returned copy, every reader is rewired here: the others would read a blob no op writes.
// A pair is left alone when the original blob is overwritten before a reader, which would then
// read the new value, or when a reader writes the original blob's name (as the memonger's shared
// names make it do) where its op may not run in place: rewired, it would read and write one blob.
#include <set>
#include <string>

#include "core/schema.h"
#include "core/transforms/net_edits.h"
#include "core/transforms/pass.h"
#include "core/transforms/ssa.h"

namespace parity::transforms {
namespace {

constexpr char kToGpu[] = "CopyCPUToGPU";
constexpr char kToCpu[] = "CopyGPUToCPU";

// Whether `reader` still sees `source` (the copy's input, at the version the copy read) at input
// `position`, and may read it there: nothing wrote it in between, the reader does not have to
// write that input in place, and where it writes the source's name it may do so in place.
bool ReadsSourceUnchanged(const caffe2::NetDef& net, const Ssa& ssa, const VersionedBlob& source,
                          int reader, int position) {
  // The source's version when the reader runs: that of its last write before the reader.
  int64_t version = source.second;
  for (int i = 0; i < reader; ++i) {
    for (const auto& out : ssa.ops[i].outputs) {
      if (out.first == source.first) version = out.second;
    }
  }
  if (version != source.second) return false;
  const OpSchema* schema = OpSchemaRegistry::Find(net.op(reader).type());
  for (int out = 0; schema != nullptr && out < net.op(reader).output_size(); ++out) {
    if (schema->IsInplaceEnforced(position, out)) return false;
    if (net.op(reader).output(out) == source.first && !schema->IsInplaceAllowed(position, out)) {
      return false;
    }
  }
  return true;
}

bool FuseOnce(caffe2::NetDef* net) {
  const Ssa ssa = GetSsa(*net);
  const auto consumers = GetConsumerMap(ssa);
  std::set<VersionedBlob> external_outputs;
  for (const auto& name : net->external_output()) {
    external_outputs.insert({name, ssa.versions.Get(name)});
  }
  for (int op_id = 0; op_id < net->op_size(); ++op_id) {
    const caffe2::OperatorDef& op = net->op(op_id);
    if ((op.type() != kToGpu && op.type() != kToCpu) || op.input_size() != 1 ||
        op.output_size() != 1) {
      continue;
    }
    const std::string reverse = op.type() == kToGpu ? kToCpu : kToGpu;
    const VersionedBlob& copied = ssa.ops[op_id].outputs[0];
    auto readers = consumers.find(copied);
    if (readers == consumers.end() || external_outputs.count(copied)) continue;
    std::set<int> copies_back;
    bool fusable = true;
    for (const auto& [reader, position] : readers->second) {
      const caffe2::OperatorDef& back = net->op(reader);
      fusable = fusable && back.type() == reverse && back.output_size() == 1 &&
                !external_outputs.count(ssa.ops[reader].outputs[0]);
      copies_back.insert(reader);
    }
    if (!fusable) continue;
    const VersionedBlob& source = ssa.ops[op_id].inputs[0];
    std::vector<OpSlot> rewired;
    for (int back : copies_back) {
      auto next = consumers.find(ssa.ops[back].outputs[0]);
      if (next == consumers.end()) continue;  // a dead copy back: it goes with the pair
      for (const auto& [reader, position] : next->second) {
        fusable = fusable && !copies_back.count(reader) &&
                  ReadsSourceUnchanged(*net, ssa, source, reader, position);
        rewired.emplace_back(reader, position);
      }
    }
    if (!fusable) continue;
    for (const auto& [reader, position] : rewired) {
      net->mutable_op(reader)->set_input(position, source.first);
    }
    copies_back.insert(op_id);
    RemoveOps(net, copies_back);
    return true;
  }
  return false;
}

void FuseCopyPairs(TransformedNet* t) {
  RefuseSubNets(t->predict, "fuse_copy_pairs", "they may read the copies by name");
  while (FuseOnce(&t->predict)) {
  }
}

PARITY_REGISTER_PASS(PassInfo{
    "fuse_copy_pairs",
    "Requires nothing; refuses nets with sub-nets. Where every reader of a CopyCPUToGPU's output "
    "is a CopyGPUToCPU (or the reverse) and neither copy's output is an external output, every "
    "reader of the copies back reads the original blob, and the copies go; repeated until nothing "
    "fuses (the seed's _fuse_once). Pairs whose original blob is overwritten before a reader stay, "
    "and so do pairs where a reader writes the original blob's name but may not run in place. "
    "Guarantees the same values: a round trip copies nothing.",
    /*preserves_outputs=*/true, FuseCopyPairs, /*uses_constants=*/false,
    /*rewrites=*/{{kToGpu, kToCpu}, {kToCpu, kToGpu}}});

}  // namespace
}  // namespace parity::transforms

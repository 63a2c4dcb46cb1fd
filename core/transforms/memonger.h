// Memonger (Caffe2's caffe2/python/memonger.py and its C++ blob recycling): blobs whose lives do
// not overlap share one name, so a run holds fewer tensors at once.
//
// Live ranges are op indices in the net's order (the order SimpleNet runs; the DAG executor orders
// a write after every earlier read of the same name, so a shared name stays correct there too): a
// blob lives from its first write to its last read or write. Walking the ops, a blob first written
// by op i takes the name of a blob whose range ended before i, if any is free; the blob's name is
// freed after its last use. Names of groups that share become `<namescope>__m<k>_shared`.
//
// Some blobs never share (PinnedBlobs): external inputs and outputs, blobs read before any op
// writes them, every name a sub-net uses (sub-nets read and write their parent's blobs by name),
// names in the string arguments of ops with sub-nets (recurrent states, aliases, Do bindings,
// ...), and blobs that are views of another's storage (Alias's input and output, RecurrentNetwork's
// aliases of its states, its gradient's initial-state gradients): a blob written under a view's
// name would be written into the viewed storage. Also RecurrentNetwork's step workspaces.
// RecurrentNetwork and its gradient follow renamed links and gradients through `<blob>.rename`
// arguments (core/rnn/links.h), which ApplyAssignments adds to every RecurrentNetwork* op whose
// inputs or outputs it renames, as Caffe2's apply_recurrent_blob_assignments.
#ifndef PARITY_CORE_TRANSFORMS_MEMONGER_H_
#define PARITY_CORE_TRANSFORMS_MEMONGER_H_

#include <functional>
#include <map>
#include <set>
#include <string>

#include "core/proto/caffe2.pb.h"

namespace parity::transforms {

// Op indices: first write, last read or write.
struct LiveRange {
  int defined = -1;
  int last_used = -1;
};

// Blobs that must keep their names (see the file comment).
std::set<std::string> PinnedBlobs(const caffe2::NetDef& net);

// The live range of every blob of `net` that `shareable` accepts and that is not pinned.
std::map<std::string, LiveRange> ComputeLiveRanges(
    const caffe2::NetDef& net, const std::function<bool(const std::string&)>& shareable);

// Blob -> shared name, for the blobs of `ranges` that share one with another (the greedy walk of
// the file comment). Shared names avoid every name in `taken`.
std::map<std::string, std::string> ComputeBlobRecycling(
    const caffe2::NetDef& net, const std::map<std::string, LiveRange>& ranges,
    const std::string& namescope, const std::set<std::string>& taken);

// memonger.compute_statistics: bytes of the blobs `assignments` shares, each its own tensor
// (before) and one tensor per shared name as large as its largest blob (after); `bytes_of` gives a
// blob's size, from a run of the net before the pass.
struct SharingStatistics {
  int64_t before_bytes = 0;
  int64_t after_bytes = 0;
};
SharingStatistics ComputeSharingStatistics(
    const std::map<std::string, std::string>& assignments,
    const std::function<int64_t(const std::string&)>& bytes_of);

// Renames op inputs and outputs by `assignments`; RecurrentNetwork* ops get `<blob>.rename`.
void ApplyAssignments(const std::map<std::string, std::string>& assignments, caffe2::NetDef* net);

// memonger.verify_graph_equality: the same ops (type, device option, engine) in the same order,
// each input last written by the same earlier op. "" when equal, else the first difference.
std::string GraphEqualityDifference(const caffe2::NetDef& a, const caffe2::NetDef& b);

// memonger.verify_inplace_blobs: each op has the same (input index, output index) pairs naming
// one blob. "" when equal, else the first difference.
std::string InplaceBlobsDifference(const caffe2::NetDef& a, const caffe2::NetDef& b);

}  // namespace parity::transforms

#endif  // PARITY_CORE_TRANSFORMS_MEMONGER_H_

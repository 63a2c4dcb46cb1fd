// The SSA view of a net, exactly as Caffe2's `core.get_ssa` computes it, and the helpers the
// graph transforms are built on (caffe2/python/core.py; detectron2's caffe2 export utilities):
//
// * External inputs not yet versioned get version 0; when the net names no external input, so
//   does every op input seen before it is written. An op reads each input at its current version
//   (0 when never written); each output is then bumped to previous + 1, so a first write is
//   version 1 and an in-place X -> X reads (X, v) and writes (X, v + 1).
// * The versions map keeps Caffe2's dict order: the order blobs were first versioned.
#ifndef PARITY_CORE_TRANSFORMS_SSA_H_
#define PARITY_CORE_TRANSFORMS_SSA_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/proto/caffe2.pb.h"

namespace parity::transforms {

using VersionedBlob = std::pair<std::string, int64_t>;
// (op index, input or output position)
using OpSlot = std::pair<int, int>;

// blob -> version, remembering the order in which blobs got their first version.
class BlobVersions {
 public:
  bool Contains(const std::string& blob) const { return version_.count(blob) > 0; }
  // The version, or 0 for a blob never versioned.
  int64_t Get(const std::string& blob) const;
  void Set(const std::string& blob, int64_t version);
  const std::vector<std::string>& order() const { return order_; }

 private:
  std::vector<std::string> order_;
  std::unordered_map<std::string, int64_t> version_;
};

struct OpSsa {
  std::vector<VersionedBlob> inputs;
  std::vector<VersionedBlob> outputs;
};

struct Ssa {
  std::vector<OpSsa> ops;  // one per op of the net, in order
  BlobVersions versions;   // each blob's last version
};

// `versions` holds versions to start from (an init net's, for its predict net).
Ssa GetSsa(const caffe2::NetDef& net, BlobVersions versions = {});

// Blobs read at version 0: what the net needs from outside.
std::set<std::string> GetUndefinedBlobs(const Ssa& ssa);

// Versioned blob -> the op and output position that wrote it.
std::map<VersionedBlob, OpSlot> GetProducerMap(const Ssa& ssa);
// Versioned blob -> every op and input position that reads it, in op order.
std::map<VersionedBlob, std::vector<OpSlot>> GetConsumerMap(const Ssa& ssa);

// The sorted indices of the ops needed to compute `outputs` (at their last versions) given
// `inputs` (at their last versions): Caffe2's get_op_ids_in_path.
std::vector<int> GetOpIdsInPath(const Ssa& ssa, const std::vector<std::string>& inputs,
                                const std::vector<std::string>& outputs);

// A sub-graph's external inputs (blobs its ops read that they do not write) and external outputs
// (blobs they write that other ops or the net's external outputs read), each in first-seen order.
struct SubGraphBoundary {
  std::vector<VersionedBlob> inputs;
  std::vector<VersionedBlob> outputs;
};
SubGraphBoundary GetSubGraphExternalInputOutput(const caffe2::NetDef& net,
                                                const std::vector<int>& op_indices);

// "X@1" for a versioned blob, as `parity ssa` prints it.
std::string VersionedName(const VersionedBlob& blob);

}  // namespace parity::transforms

#endif  // PARITY_CORE_TRANSFORMS_SSA_H_

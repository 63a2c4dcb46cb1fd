// The seed's reshape sub-graphs: a Reshape with the ops computing its shape from its data
// (detectron2's identify_reshape_sub_graph), which remove_reshape_for_fc removes before FCs.
#ifndef PARITY_CORE_TRANSFORMS_RESHAPE_FOR_FC_H_
#define PARITY_CORE_TRANSFORMS_RESHAPE_FOR_FC_H_

#include <vector>

#include "core/proto/caffe2.pb.h"
#include "core/transforms/ssa.h"

namespace parity::transforms {

// The sorted indices of the ops on a path from `source` to `target` (versioned blobs): each reads
// the source or an output of such an op, and writes the target or an input of such an op. Empty
// when the target does not depend on the source.
std::vector<int> GetDependencyChain(const Ssa& ssa, const VersionedBlob& target,
                                    const VersionedBlob& source);

// For each two-input Reshape, the ops computing its shape input from its data input, then the
// Reshape: [Op_1, ..., Op_N, Reshape].
std::vector<std::vector<int>> IdentifyReshapeSubGraph(const caffe2::NetDef& net);

}  // namespace parity::transforms

#endif  // PARITY_CORE_TRANSFORMS_RESHAPE_FOR_FC_H_

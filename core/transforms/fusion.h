// What the fusion passes (fuse_conv_bn, fuse_relu) share: finding a producer whose output one
// consumer alone reads, and letting the producer write the consumer's output in its stead.
#ifndef PARITY_CORE_TRANSFORMS_FUSION_H_
#define PARITY_CORE_TRANSFORMS_FUSION_H_

#include <functional>
#include <set>
#include <string>

#include "core/transforms/pass.h"
#include "core/transforms/ssa.h"

namespace parity::transforms {

// Rewrites op `producer` (its type, inputs, constants of the init net) to compute what op
// `consumer` computed from it, and returns true; or returns false to leave the pair alone.
using FusePair = std::function<bool(TransformedNet* t, const Ssa& ssa, int producer, int consumer)>;

// Until no pair is left: a producer (one output, type in `producer_types`) whose output is read by
// one op only, of type `consumer_type`, at its input 0, is offered with it to `fuse` when the
// producer may write the consumer's output where it stands (that output is not an external output,
// not one of the producer's inputs, and no op in between reads or writes it). When `fuse` accepts,
// the producer writes the consumer's output and the consumer goes; the fused op may fuse again
// (Conv -> SpatialBN -> SpatialBN).
void FusePairs(TransformedNet* t, const std::set<std::string>& producer_types,
               const std::string& consumer_type, const FusePair& fuse);

}  // namespace parity::transforms

#endif  // PARITY_CORE_TRANSFORMS_FUSION_H_

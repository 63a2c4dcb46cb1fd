// What the fusion passes (fuse_conv_bn, fuse_relu) share: finding the op that alone consumes a
// producer's output, so that the producer can write the consumer's output in its stead.
#ifndef PARITY_CORE_TRANSFORMS_FUSION_H_
#define PARITY_CORE_TRANSFORMS_FUSION_H_

#include <string>

#include "core/proto/caffe2.pb.h"
#include "core/transforms/ssa.h"

namespace parity::transforms {

// The index of the op of type `type` that is the only reader of op `producer`'s output 0 (at its
// input 0), when the producer may write that op's output 0 in its place: the producer's output is
// not an external output, and no op in between reads or writes the consumer's output, nor is it
// one of the producer's inputs. -1 otherwise.
int FusableConsumer(const caffe2::NetDef& net, const Ssa& ssa, int producer,
                    const std::string& type);

// Makes op `producer` write op `consumer`'s output 0 and removes the consumer.
void FuseIntoProducer(caffe2::NetDef* net, int producer, int consumer);

}  // namespace parity::transforms

#endif  // PARITY_CORE_TRANSFORMS_FUSION_H_

// The guarantees every graph transform makes, checked after each pass (core/transforms/pass.h):
//
// 1. Well-formed: every op has a schema and meets it (arity, arguments, in-place rules).
// 2. Nothing undefined read: a blob the net read at version 0 only from its external inputs (or
//    its init net's outputs) before the pass, it still reads only from them after.
// 3. External outputs kept: the same names (after the pass's renaming), each still written.
#ifndef PARITY_CORE_TRANSFORMS_VERIFY_H_
#define PARITY_CORE_TRANSFORMS_VERIFY_H_

#include <string>

#include "core/transforms/pass.h"

namespace parity::transforms {

// Throws parity::Error(kInternal) naming `pass` and the broken guarantee.
void VerifyTransform(const std::string& pass, const TransformedNet& before,
                     const TransformedNet& after);

// The blobs `net` reads at version 0 that neither its external inputs nor `init`'s outputs
// define, sorted.
std::vector<std::string> UndefinedReads(const caffe2::NetDef& net, const caffe2::NetDef& init);

}  // namespace parity::transforms

#endif  // PARITY_CORE_TRANSFORMS_VERIFY_H_

// Which op each thread is running, for crash reports. NetBase::RunOp keeps a per-thread stack of
// the ops a thread is inside (a main-net op, then an op of its sub-net, ...). A fuzz worker's
// signal handler reads it to name the op that crashed or hung (fuzz/sandbox.h), so reading it
// takes no lock and allocates nothing, and keeping it costs two stores per op.
//
// An exception that escapes an op (a parity::Error the oracles expect, or a std::bad_alloc they do
// not) unwinds the stack; the innermost op it left is remembered per thread, so a worker that
// catches an unexpected exception at the top can still say where it came from.
#ifndef PARITY_CORE_RUNNING_OP_H_
#define PARITY_CORE_RUNNING_OP_H_

#include "core/proto/caffe2.pb.h"

namespace parity {

struct RunningOp {
  const caffe2::OperatorDef* def = nullptr;
  int index = -1;                    // the op's position in its net
  const RunningOp* outer = nullptr;  // the op whose sub-net this one runs in, or null
};

// The innermost op the calling thread is running, or null.
const RunningOp* CurrentRunningOp();

// Entered by NetBase::RunOp around a kernel.
class RunningOpScope {
 public:
  RunningOpScope(const caffe2::OperatorDef* def, int index);
  ~RunningOpScope();
  RunningOpScope(const RunningOpScope&) = delete;
  RunningOpScope& operator=(const RunningOpScope&) = delete;

 private:
  RunningOp entry_;
  int uncaught_at_entry_;
};

// The ops the last exception that left an op unwound through on this thread, outermost first,
// copied (the defs may be gone): at most kMaxUnwoundDepth, each type cut to kMaxTypeLength.
struct UnwoundOps {
  static constexpr int kMaxUnwoundDepth = 8;
  static constexpr int kMaxTypeLength = 63;
  int depth = 0;
  int index[kMaxUnwoundDepth] = {};
  char type[kMaxUnwoundDepth][kMaxTypeLength + 1] = {};
};
const UnwoundOps& LastUnwoundOps();
void ClearUnwoundOps();

}  // namespace parity

#endif  // PARITY_CORE_RUNNING_OP_H_

#include "core/running_op.h"

#include <atomic>
#include <cstring>
#include <exception>

namespace parity {
namespace {

thread_local const RunningOp* t_running = nullptr;
thread_local UnwoundOps t_unwound;
// The op an exception unwinding through the stack leaves next: its scope continues the record
// instead of starting a new one.
thread_local const RunningOp* t_unwinding_next = nullptr;

void RecordUnwound(const RunningOp* innermost) {
  if (innermost == t_unwinding_next && t_unwound.depth > 0) {
    t_unwinding_next = innermost->outer;  // the same exception, one op further out
    return;
  }
  int depth = 0;
  for (const RunningOp* op = innermost; op != nullptr; op = op->outer) ++depth;
  if (depth > UnwoundOps::kMaxUnwoundDepth) depth = UnwoundOps::kMaxUnwoundDepth;
  // Outermost first; when the chain is deeper than the record, its innermost ops are kept.
  int slot = depth - 1;
  for (const RunningOp* op = innermost; op != nullptr && slot >= 0; op = op->outer, --slot) {
    t_unwound.index[slot] = op->index;
    std::strncpy(t_unwound.type[slot], op->def->type().c_str(), UnwoundOps::kMaxTypeLength);
    t_unwound.type[slot][UnwoundOps::kMaxTypeLength] = '\0';
  }
  t_unwound.depth = depth;
  t_unwinding_next = innermost->outer;
}

}  // namespace

const RunningOp* CurrentRunningOp() { return t_running; }

RunningOpScope::RunningOpScope(const caffe2::OperatorDef* def, int index)
    : uncaught_at_entry_(std::uncaught_exceptions()) {
  entry_.def = def;
  entry_.index = index;
  entry_.outer = t_running;
  // A signal handler on this thread must never see the pointer before the entry it points to.
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t_running = &entry_;
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

RunningOpScope::~RunningOpScope() {
  if (std::uncaught_exceptions() > uncaught_at_entry_) RecordUnwound(&entry_);
  t_running = entry_.outer;
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

const UnwoundOps& LastUnwoundOps() { return t_unwound; }

void ClearUnwoundOps() {
  t_unwound.depth = 0;
  t_unwinding_next = nullptr;
}

}  // namespace parity

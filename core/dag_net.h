// The parallel executor: NetDef.type "dag" (also "async_dag", "async_scheduling", "async_simple",
// Caffe2's names for its parallel executors). Ops run on `num_workers` threads as soon as every op
// they depend on is done. Op j depends on op i < j when, on the same storage, j reads what i
// wrote (read-after-write), j writes what i read (write-after-read), or both write
// (write-after-write); control_input adds ordering edges. Alias outputs share storage with their
// input, so dependencies are computed over storage groups, not names. Ops that run nested nets
// (Do, If, While, RecurrentNetwork: any op with a NetDef argument) can touch any blob and act as
// barriers. Results equal SimpleNet's bit for bit; an error reports the lowest-indexed failing op.
#ifndef PARITY_CORE_DAG_NET_H_
#define PARITY_CORE_DAG_NET_H_

#include <memory>
#include <vector>

#include "core/net.h"
#include "core/thread_pool.h"

namespace parity {

// For each op, the earlier ops it must wait for (deduplicated, transitively redundant edges kept).
std::vector<std::vector<int>> ComputeOpDependencies(const caffe2::NetDef& def);

class DagNet final : public NetBase {
 public:
  DagNet(const caffe2::NetDef& def, Workspace* ws);
  void Run() override;
  const std::vector<std::vector<int>>& dependencies() const { return parents_; }

 private:
  std::vector<std::vector<int>> parents_;
  std::vector<std::vector<int>> children_;
  std::vector<int> roots_;
  std::unique_ptr<ThreadPool> pool_;
};

}  // namespace parity

#endif  // PARITY_CORE_DAG_NET_H_

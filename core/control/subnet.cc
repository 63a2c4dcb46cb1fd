#include "core/control/subnet.h"

#include <algorithm>
#include <cstdlib>

#include "core/proto/env_limits.h"

namespace parity {

void PerWorkspaceNet::Run(const std::shared_ptr<Workspace>& ws) {
  instances_.erase(std::remove_if(instances_.begin(), instances_.end(),
                                  [](const auto& entry) { return entry.first.expired(); }),
                   instances_.end());
  for (auto& [owner, net] : instances_) {
    if (owner.lock() == ws) {
      net->Run();
      return;
    }
  }
  std::unique_ptr<NetBase> net = CreateNetForDef(def_, ws.get());
  NetBase* raw = net.get();
  instances_.emplace_back(ws, std::move(net));
  raw->Run();
}

void SameWorkspaceNet::Run() {
  if (net_ == nullptr) net_ = CreateNetForDef(def_, ws_);
  net_->Run();
}

bool ReadCondition(const Operator& op, int index) {
  const Tensor& cond = op.Input(index);
  PARITY_ENFORCE(cond.dtype() == DataType::kBool && cond.numel() == 1, ErrorKind::kShapeMismatch,
                 op.label(), ": the condition '", op.InputName(index),
                 "' must be a bool tensor with one element, got ", cond.DebugString());
  // A condition made on a device (a comparison run there) is read through a host copy.
  return HostCopy(cond).data<bool>()[0];
}

int64_t LoopIterationCap(const Operator& op) {
  if (op.args().Has("max_iterations")) {
    const int64_t cap = op.args().Get<int64_t>("max_iterations");
    PARITY_ENFORCE(cap >= 0, ErrorKind::kBadArgument, op.label(),
                   ": max_iterations must be >= 0, got ", cap);
    return cap;
  }
  return MaxLoopIterationsFromEnv().value_or(1000000);
}

}  // namespace parity

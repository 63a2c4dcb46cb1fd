// How control ops hold the nets they run. A net is instantiated once per workspace it runs in
// (its ops keep blob pointers, as everywhere in the engine) and rerun after that, as Caffe2's Do,
// If and While do; errors inside it carry the nested position ("op #2 (Do): net 'body': op #0
// (Mul): ...").
#ifndef PARITY_CORE_CONTROL_SUBNET_H_
#define PARITY_CORE_CONTROL_SUBNET_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/net.h"
#include "core/operator.h"
#include "core/workspace.h"

namespace parity {

// One net run in workspaces of a WorkspaceStack (Do): an instance per workspace, dropped when the
// workspace is gone.
class PerWorkspaceNet {
 public:
  explicit PerWorkspaceNet(caffe2::NetDef def) : def_(std::move(def)) {}
  void Run(const std::shared_ptr<Workspace>& ws);
  const caffe2::NetDef& def() const { return def_; }

 private:
  caffe2::NetDef def_;
  std::vector<std::pair<std::weak_ptr<Workspace>, std::unique_ptr<NetBase>>> instances_;
};

// One net run in the control op's own workspace (If, While), created at its first run so that it
// may read blobs made by the ops before it.
class SameWorkspaceNet {
 public:
  SameWorkspaceNet(caffe2::NetDef def, Workspace* ws) : def_(std::move(def)), ws_(ws) {}
  void Run();

 private:
  caffe2::NetDef def_;
  Workspace* ws_;
  std::unique_ptr<NetBase> net_;
};

// The bool condition a control op reads from input `index`: a bool tensor of one element
// (kShapeMismatch naming the op and the blob otherwise), on the host or on a device.
bool ReadCondition(const Operator& op, int index);

// While's cap on passes: the op's `max_iterations` argument when given, else
// PARITY_MAX_LOOP_ITERATIONS from the environment, else 1e6.
int64_t LoopIterationCap(const Operator& op);

}  // namespace parity

#endif  // PARITY_CORE_CONTROL_SUBNET_H_

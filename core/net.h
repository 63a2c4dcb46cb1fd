// Nets: a NetDef instantiated in a workspace. The executor is chosen by NetDef.type: "simple" (or
// empty) runs ops in order; other executors register under their type names ("dag", ...).
#ifndef PARITY_CORE_NET_H_
#define PARITY_CORE_NET_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/operator.h"
#include "core/proto/caffe2.pb.h"

namespace parity {

class Workspace;

class NetBase {
 public:
  NetBase(const caffe2::NetDef& def, Workspace* ws);
  virtual ~NetBase() = default;
  // Runs every op; a failure is a parity::Error whose context names the net and the op.
  virtual void Run() = 0;
  const caffe2::NetDef& def() const { return def_; }
  const std::string& name() const { return def_.name(); }
  const std::vector<std::unique_ptr<Operator>>& ops() const { return ops_; }

  // Runs every op in order (whatever the executor), calling `after_op(index, op)` after each:
  // how oracles see every intermediate blob. Errors carry the same context as Run.
  void RunObserved(const std::function<void(int index, const Operator& op)>& after_op);

 protected:
  // Runs op `index`, adding "net 'x': op #i (Type 'name')" to any error it throws.
  void RunOp(int index);

  caffe2::NetDef def_;
  std::vector<std::unique_ptr<Operator>> ops_;
};

class SimpleNet final : public NetBase {
 public:
  SimpleNet(const caffe2::NetDef& def, Workspace* ws) : NetBase(def, ws) {}
  void Run() override;
};

// The def with NetDef.device_option copied into every op that has none (Caffe2's rule).
caffe2::NetDef WithNetDeviceOption(const caffe2::NetDef& def);

using NetFactory = std::function<std::unique_ptr<NetBase>(const caffe2::NetDef&, Workspace*)>;
bool RegisterNetType(const std::string& type, NetFactory factory);
// Puts `factory` in place of the executor registered for `type` and returns the one it replaces
// (empty when none; an empty `factory` unregisters). A fault-injection seam: the mutant catalogue
// (tests/mutants) plants executor bugs this way and restores the original after.
NetFactory ReplaceNetType(const std::string& type, NetFactory factory);
std::vector<std::string> NetTypes();

// Instantiates `def` in `ws` with the executor its type names (kInvalidNet for unknown types).
std::unique_ptr<NetBase> CreateNetForDef(const caffe2::NetDef& def, Workspace* ws);

}  // namespace parity

#endif  // PARITY_CORE_NET_H_

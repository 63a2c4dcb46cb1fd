// The control ops' kernels (control_ops.cc, scope_ops.cc), declared here so that the GPU half can
// register the same classes for CUDA (gpu/ops/control.cc): they do no arithmetic of their own.
// Their subnets' ops run wherever their own DeviceOptions say; the conditions If and While read
// may be on the host or on a device (ReadCondition), and HasScope's flag is always on the host.
#ifndef PARITY_CORE_CONTROL_CONTROL_OPS_H_
#define PARITY_CORE_CONTROL_CONTROL_OPS_H_

#include <cstdint>
#include <optional>

#include "core/control/do_bindings.h"
#include "core/control/subnet.h"
#include "core/operator.h"

namespace parity {

class DoOp final : public Operator {
 public:
  DoOp(const caffe2::OperatorDef& def, Workspace* ws);
  void Run() override;

 private:
  DoBindings bindings_;
  PerWorkspaceNet net_;
};

class IfOp final : public Operator {
 public:
  IfOp(const caffe2::OperatorDef& def, Workspace* ws);
  void Run() override;

 private:
  SameWorkspaceNet then_net_;
  std::optional<SameWorkspaceNet> else_net_;
};

class WhileOp final : public Operator {
 public:
  WhileOp(const caffe2::OperatorDef& def, Workspace* ws);
  void Run() override;

 private:
  SameWorkspaceNet loop_net_;
  std::optional<SameWorkspaceNet> cond_net_;
  int64_t cap_;
};

// Makes (or clears) a workspace stack.
class CreateScopeOp final : public Operator {
 public:
  using Operator::Operator;
  void Run() override;
};

// bool [1] on the host: whether a workspace stack holds a workspace.
class HasScopeOp final : public Operator {
 public:
  using Operator::Operator;
  void Run() override;
};

}  // namespace parity

#endif  // PARITY_CORE_CONTROL_CONTROL_OPS_H_

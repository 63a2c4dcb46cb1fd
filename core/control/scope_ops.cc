// CreateScope -> a workspace stack; HasScope(stack) -> bool[1]. Neither has a gradient.
#include <memory>

#include "core/control/shape_inference.h"
#include "core/control/workspace_stack.h"
#include "core/grad/gradient.h"
#include "core/operator.h"

namespace parity {
namespace {

class CreateScopeOp final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    Blob* blob = OutputBlob(0);
    if (blob->Holds<WorkspaceStack>()) {
      blob->GetObject<WorkspaceStack>()->Clear();
    } else {
      blob->ResetObject(std::make_shared<WorkspaceStack>());
    }
  }
};

class HasScopeOp final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Blob* blob = InputBlob(0);
    PARITY_ENFORCE(blob->Holds<WorkspaceStack>(), ErrorKind::kShapeMismatch, label(), ": blob '",
                   InputName(0), "' holds ", blob->Describe(),
                   ", not a workspace stack (made by CreateScope)");
    const bool has = !blob->GetObject<WorkspaceStack>()->empty();
    // On the host whatever the op's device: the flag is a condition for If and While, which read
    // it on the host (as Caffe2's read a CPU condition); a one-byte kernel would gain nothing.
    Tensor* out = OutputBlob(0)->GetMutableTensor();
    if (out->device().type != kCpuDeviceType) *out = Tensor();
    out->Resize({1});
    out->mutable_data<bool>()[0] = has;
  }
};

}  // namespace

PARITY_OP_SCHEMA(CreateScope)
    .Impure("each one makes its own workspace stack")
    .NumInputs(0)
    .NumOutputs(1)
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper&,
                       const std::vector<TensorType>&) {
      return std::vector<TensorType>{ScopeType()};
    })
    .OutputDoc(0, "scope", "a workspace stack for Do; re-running clears it, keeping workspaces")
    .Doc("Makes (or clears) the workspace stack that Do ops push their child workspaces onto.");
PARITY_REGISTER_CPU_OPERATOR(CreateScope, CreateScopeOp);
PARITY_SHOULD_NOT_DO_GRADIENT(CreateScope);

PARITY_OP_SCHEMA(HasScope)
    .NumInputs(1)
    .NumOutputs(1)
    .NotDifferentiable()
    .ShapeInference([](const caffe2::OperatorDef&, const ArgumentHelper&,
                       const std::vector<TensorType>&) {
      return std::vector<TensorType>{TensorType{DataType::kBool, {1}, true}};
    })
    .InputDoc(0, "scope", "a workspace stack (CreateScope)")
    .OutputDoc(0, "has", "bool [1]: whether the stack holds a workspace")
    .Doc("Whether a workspace stack is non-empty: the gradient While's condition.");
PARITY_REGISTER_CPU_OPERATOR(HasScope, HasScopeOp);
PARITY_SHOULD_NOT_DO_GRADIENT(HasScope);

}  // namespace parity

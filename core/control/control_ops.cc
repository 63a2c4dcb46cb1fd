// Do, If and While: nets inside ops, with Caffe2's scoping.
//
// * Do runs `net` in a child workspace from the workspace stack (its last input and output) that
//   sees only the blobs its bindings name. A forward Do pushes (or, with reuse_workspace, reruns
//   the top); a gradient Do (is_gradient_op) pops the workspace its forward Do left, so the
//   gradient net reads the forward net's local blobs there.
// * If runs then_net or else_net in the op's own workspace on a bool[1] condition.
// * While runs cond_net (when given), reads the condition, and runs loop_net while it is true;
//   more passes than its cap is a kResourceLimit error, never a hang.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/control/do_bindings.h"
#include "core/control/shape_inference.h"
#include "core/control/subnet.h"
#include "core/control/workspace_stack.h"
#include "core/operator.h"

namespace parity {
namespace {

class DoOp final : public Operator {
 public:
  DoOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), bindings_(ReadDoBindings(def)), net_(args().GetNet("net")) {
    PARITY_ENFORCE(!(def.is_gradient_op() && Arg<bool>("reuse_workspace")), ErrorKind::kBadArgument,
                   label(),
                   ": a gradient Do pops its forward workspace; reuse_workspace cannot be set");
    PARITY_ENFORCE(!(copy_external_blobs_ && Arg<bool>("reuse_workspace")),
                   ErrorKind::kBadArgument, label(),
                   ": reuse_workspace and copy_external_blobs cannot both be set");
    for (const auto& [inner, outer] : bindings_.inner_to_outer) bound_.push_back(inner);
  }

  void Run() override {
    Blob* scope = OutputBlob(OutputSize() - 1);
    PARITY_ENFORCE(scope->Holds<WorkspaceStack>(), ErrorKind::kShapeMismatch, label(), ": blob '",
                   bindings_.scope, "' holds ", scope->Describe(),
                   ", not a workspace stack (made by CreateScope)");
    WorkspaceStack* stack = scope->GetObject<WorkspaceStack>();
    std::shared_ptr<Workspace> ws;
    if (def().is_gradient_op()) {
      ws = stack->PopGradient(workspace(), bindings_.inner_to_outer);
    } else if (Arg<bool>("reuse_workspace")) {
      ws = stack->ReuseLastForward(workspace(), bindings_.inner_to_outer);
    } else {
      ws = stack->PushForward(workspace(), bindings_.inner_to_outer);
    }
    net_.Run(ws);
    // The workspace keeps copies of what its bound blobs hold after the run, for the gradient Do
    // (Caffe2's add_while_op sets it on a loop body: each pass keeps its own values).
    if (copy_external_blobs_ && !def().is_gradient_op()) ws->CopyForwardedTensors(bound_);
  }

 private:
  DoBindings bindings_;
  PerWorkspaceNet net_;
  bool copy_external_blobs_ = Arg<bool>("copy_external_blobs");
  std::vector<std::string> bound_;  // the inner names of bindings_
};

class IfOp final : public Operator {
 public:
  IfOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), then_net_(args().GetNet("then_net"), ws) {
    if (args().Has("else_net")) else_net_.emplace(args().GetNet("else_net"), ws);
  }

  void Run() override {
    if (ReadCondition(*this, 0)) {
      then_net_.Run();
    } else if (else_net_) {
      else_net_->Run();
    }
  }

 private:
  SameWorkspaceNet then_net_;
  std::optional<SameWorkspaceNet> else_net_;
};

class WhileOp final : public Operator {
 public:
  WhileOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), loop_net_(args().GetNet("loop_net"), ws), cap_(LoopIterationCap(*this)) {
    if (args().Has("cond_net")) cond_net_.emplace(args().GetNet("cond_net"), ws);
  }

  void Run() override {
    for (int64_t pass = 0;; ++pass) {
      if (cond_net_) cond_net_->Run();
      if (!ReadCondition(*this, 0)) return;
      PARITY_ENFORCE(pass < cap_, ErrorKind::kResourceLimit, label(), ": ran over its cap of ",
                     cap_, " iterations (raise it with the argument max_iterations or ",
                     "PARITY_MAX_LOOP_ITERATIONS)");
      loop_net_.Run();
    }
  }

 private:
  SameWorkspaceNet loop_net_;
  std::optional<SameWorkspaceNet> cond_net_;
  int64_t cap_;
};

}  // namespace

// Caffe2's Do, If and While let any input share a name with any output: they bind blobs by name,
// and Do's workspace stack is both its last input and its last output.
PARITY_OP_SCHEMA(Do)
    .NumInputs(1, std::numeric_limits<int>::max())
    .NumOutputs(1, std::numeric_limits<int>::max())
    .AllowAnyInplace()
    .RequiredArg("net", ArgType::kNet, "the subnet, run in a child workspace")
    .Arg("inner_blobs", ArgType::kStrings, std::vector<std::string>{},
         "inner names bound to outer blobs")
    .Arg("outer_blobs_idx", ArgType::kInts, std::vector<int64_t>{},
         "for each inner name, an index into inputs then outputs (both without the scope)")
    .Arg("saved_fwd_blobs", ArgType::kStrings, std::vector<std::string>{},
         "gradient Do: local blobs of the forward workspace its net reads")
    .Arg("reuse_workspace", ArgType::kInt, int64_t{0},
         "rerun the top workspace of the stack instead of pushing a new one")
    .Arg("copy_external_blobs", ArgType::kInt, int64_t{0},
         "If 1, the child workspace copies its bound blobs' tensors after a forward run and "
         "keeps them for the gradient Do (not with reuse_workspace)")
    .ShapeInference(DoShapes)
    .Doc(
        "Runs `net` in a child workspace that sees only the bound blobs; the workspace stays on "
        "the stack for the gradient Do.");
PARITY_REGISTER_CPU_OPERATOR(Do, DoOp);

PARITY_OP_SCHEMA(If)
    .NumInputs(1, std::numeric_limits<int>::max())
    .NumOutputs(0, std::numeric_limits<int>::max())
    .AllowAnyInplace()
    .RequiredArg("then_net", ArgType::kNet, "run when the condition is true")
    .Arg("else_net", ArgType::kNet, {}, "run when the condition is false (optional)")
    .ShapeInference(IfShapes)
    .InputDoc(0, "condition", "bool tensor with one element")
    .Doc(
        "Runs then_net or else_net in the same workspace. Inputs and outputs list the outer "
        "blobs the branches read and write (the gradient needs them).");
PARITY_REGISTER_CPU_OPERATOR(If, IfOp);

PARITY_OP_SCHEMA(While)
    .NumInputs(1, std::numeric_limits<int>::max())
    .NumOutputs(0, std::numeric_limits<int>::max())
    .AllowAnyInplace()
    .RequiredArg("loop_net", ArgType::kNet, "the body, run in the same workspace")
    .Arg("cond_net", ArgType::kNet, {}, "run before each test of the condition (optional)")
    .Arg("max_iterations", ArgType::kInt, {},
         "cap on passes (default: PARITY_MAX_LOOP_ITERATIONS, else 1000000); more is an error")
    .ShapeInference(WhileShapes)
    .InputDoc(0, "condition", "bool tensor with one element, re-read before every pass")
    .Doc("Runs cond_net, then loop_net while input 0 is true, in the same workspace.");
PARITY_REGISTER_CPU_OPERATOR(While, WhileOp);

}  // namespace parity

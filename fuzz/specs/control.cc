// Test specs of the control ops: CreateScope, HasScope, Do, If, While.
//
// Their nets are chains of 1..3 ops drawn from the other specs (the same descriptions the net
// generator uses; no control op inside, which bounds the size), so every op of the set runs inside
// a Do, a branch or a loop body. Each op of a chain gets its extra inputs (weights, shapes, ...)
// as inputs of the control op: If and While run in the op's workspace and name them by
// placeholder ("$i"), Do binds them to inner names.
//
// * Do(x, params..., scope) -> (y, scope): the chain runs on inner "a0" and writes "out", its
//   locals stay in the child workspace (the gradient Do reads them there).
// * If(cond, x, params...) -> (y, intermediates...): both branches keep x's dims, so y has one
//   type; one If in 4 has no else and updates x in place (then = Copy, chain, write back), so the
//   gradient If's generated else zero-fills what only then computes.
// * While(cond, x, params..., scope, i, k, one) -> (x, scope, i, cond): k in [0, 3] passes of
//   x <- Do{ xin = Copy(x); chain(xin); x = Copy(result) } with cond_net i = i + 1, cond = i <= k:
//   the loop shape whose gradient Caffe2 supports (a single Do body, one workspace per pass). One
//   body in three is an If between two chains instead (see LoopBody): control flow nested. Its
//   condition is a fifth output, recomputed by cond_net (i < split, split in [1, 3]), so one
//   loop takes both branches across its passes. One body Do in four reuses its workspace
//   (reuse_workspace, as loops built for inference do): one instance of each body op then runs
//   every pass, state an op keeps between runs included; such a loop has no gradient.
#include "fuzz/specs/control.h"

#include <rapidcheck.h>

#include "fuzz/spec.h"
#include "fuzz/specs/chain.h"

namespace parity::fuzz {
namespace {

std::vector<int64_t> PrimaryOrFresh(const Primary* p) { return p ? *p : AnyDims(1, 3, 4); }

// Do's bindings: instance input k (k < num_inputs, scope excluded) is inner "a<k>", output 0 is
// inner "out".
void BindDo(OpInstance* op, int num_inputs, bool with_output) {
  caffe2::Argument inner, index;
  inner.set_name("inner_blobs");
  index.set_name("outer_blobs_idx");
  for (int k = 0; k < num_inputs; ++k) {
    inner.add_strings("a" + std::to_string(k));
    index.add_ints(k);
  }
  if (with_output) {
    inner.add_strings("out");
    index.add_ints(num_inputs);
  }
  op->RawArg(inner);
  op->RawArg(index);
}

PARITY_OP_SPEC(CreateScope)
    .Tolerance("exact")
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      if (p) return std::nullopt;
      OpInstance op("CreateScope");
      op.ScopeOutput(0);
      return op;
    });

PARITY_OP_SPEC(HasScope).Tolerance("exact").Make([](const Primary* p) -> std::optional<OpInstance> {
  if (p) return std::nullopt;
  // Do(x, scope) -> (y, scope) first would make it true; in a single-op case the stack is
  // fresh. Nets reach the true case through every While's gradient (HasScope is its
  // condition).
  OpInstance op("HasScope");
  op.ScopeInput();
  return op;
});

PARITY_OP_SPEC(Do).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      OpInstance op("Do", 2);
      op.Input(PrimaryOrFresh(p));
      int locals = 0;
      auto chain = DrawChain(
          &op, "a0", op.inputs()[0].dims, "out", [](int k) { return "a" + std::to_string(k); },
          [&locals] { return "h" + std::to_string(locals++); }, false, 3);
      if (!chain) return std::nullopt;
      const int num_inputs = static_cast<int>(op.inputs().size());
      op.OutputInPlace(1, op.ScopeInput());
      op.RawArg(NetArg("net", MakeNet("do_body", chain->ops)));
      BindDo(&op, num_inputs, true);
      // reuse_workspace one time in 4; otherwise copy_external_blobs one time in 3 (the two
      // exclude each other): the workspace keeps copies of its bound blobs for the gradient.
      if (*rc::gen::inRange(0, 4) == 0) {
        op.Arg("reuse_workspace", int64_t{1});
      } else if (Pick(3) == 2) {
        op.Arg("copy_external_blobs", int64_t{1});
      }
      return op;
    });

PARITY_OP_SPEC(If).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      OpInstance op("If", 1);
      op.Input(PrimaryOrFresh(p));
      op.Input({1}, Domain::kBool, DataType::kBool);
      const bool with_else = *rc::gen::inRange(0, 4) != 0;
      int outputs = 1;
      auto output = [&outputs] { return Placeholder('@', outputs++); };
      auto input = [](int k) { return Placeholder('$', k); };
      const std::vector<int64_t> dims = op.inputs()[0].dims;
      if (with_else) {
        auto then_chain = DrawChain(&op, "$0", dims, "@0", input, output, true, 3);
        auto else_chain = DrawChain(&op, "$0", dims, "@0", input, output, true, 2);
        if (!then_chain || !else_chain) return std::nullopt;
        op.RawArg(NetArg("then_net", MakeNet("then", then_chain->ops)));
        op.RawArg(NetArg("else_net", MakeNet("else", else_chain->ops)));
      } else {
        // No else: x is updated in place, so it has its type whichever way the If goes.
        const std::string copy = output();
        auto chain = DrawChain(&op, copy, dims, "$0", input, output, true, 3);
        if (!chain) return std::nullopt;
        chain->ops.insert(chain->ops.begin(), SimpleOp("Copy", {"$0"}, {copy}));
        op.RawArg(NetArg("then_net", MakeNet("then", chain->ops)));
        op.OutputInPlace(0, 0);
      }
      op.SetNumOutputs(outputs);
      std::vector<int> order = {1, 0};
      for (int k = 2; k < static_cast<int>(op.inputs().size()); ++k) order.push_back(k);
      op.OpInputOrder(order);
      return op;
    });

// The loop body's ops between `Copy(a0) -> xin` and `Copy(res) -> a0`: a chain from xin to res,
// or (one body in three) an If on a condition of its own whose branches are two such chains, so
// control flow nests three deep (While > its body Do > If) and the gradient While runs a gradient
// Do whose body holds a gradient If. The If runs in the Do's workspace: its condition and the
// branches' extra inputs are instance inputs the Do binds as a<k>; it lists every blob a branch
// writes as an output, as a top-level If does. `*condition` is the If's condition input (-1 when
// there is none): the While's cond_net recomputes it before each pass, so that the loop's If takes
// one branch in early passes and the other later.
std::optional<std::vector<caffe2::OperatorDef>> LoopBody(OpInstance* op,
                                                         std::optional<bool> nested_if,
                                                         int* condition_input) {
  *condition_input = -1;
  int locals = 0;
  auto input = [](int k) { return "a" + std::to_string(k); };
  auto local = [&locals] { return "h" + std::to_string(locals++); };
  const std::vector<int64_t> dims = op->inputs()[0].dims;
  const bool nested = nested_if ? *nested_if : Pick(3) == 0;
  if (!nested) {
    auto chain = DrawChain(op, "xin", dims, "res", input, local, true, 2);
    if (!chain) return std::nullopt;
    return chain->ops;
  }
  const int condition = op->Input({1}, Domain::kBool, DataType::kBool);
  *condition_input = condition;
  auto then_chain = DrawChain(op, "xin", dims, "res", input, local, true, 2);
  auto else_chain = DrawChain(op, "xin", dims, "res", input, local, true, 2);
  if (!then_chain || !else_chain) return std::nullopt;
  // The If reads a copy made in the pass's own workspace, as the body reads x through xin: the
  // gradient Do of each pass finds its locals saved there, while a blob read through a binding
  // holds its last pass's value by then (Caffe2's While gradient has the same contract).
  caffe2::OperatorDef branch = SimpleOp("If", {"cin", "xin"}, {"res"});
  for (int k = condition + 1; k < static_cast<int>(op->inputs().size()); ++k) {
    branch.add_input(input(k));
  }
  for (const Chain* chain : {&*then_chain, &*else_chain}) {
    for (const std::string& blob : chain->intermediates) branch.add_output(blob);
  }
  *branch.add_arg() = NetArg("then_net", MakeNet("then", then_chain->ops));
  *branch.add_arg() = NetArg("else_net", MakeNet("else", else_chain->ops));
  return std::vector<caffe2::OperatorDef>{SimpleOp("Copy", {input(condition)}, {"cin"}), branch};
}

PARITY_OP_SPEC(While).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) { return DrawWhile(p, WhileChoices{}); });

}  // namespace

std::optional<OpInstance> DrawWhile(const Primary* p, const WhileChoices& choices) {
  OpInstance op("While", 4);
  op.Input(PrimaryOrFresh(p));
  op.Input({1}, Domain::kBool, DataType::kBool);  // recomputed by cond_net before each pass
  int branch_condition = -1;
  std::optional<std::vector<caffe2::OperatorDef>> body_ops =
      LoopBody(&op, choices.nested_if, &branch_condition);
  if (!body_ops) return std::nullopt;
  // The loop-body Do binds x and the chain's inputs (instance inputs 0 and 2..) as a0, a2, ...
  std::vector<int> body_inputs = {0};
  for (int k = 2; k < static_cast<int>(op.inputs().size()); ++k) body_inputs.push_back(k);
  const int scope = op.ScopeInput();
  const int i = op.ShapeInput({0}, DataType::kInt32);
  const int k = op.ShapeInput({choices.passes ? *choices.passes : *rc::gen::inRange<int64_t>(0, 4)},
                              DataType::kInt32);
  const int one = op.ShapeInput({1}, DataType::kInt32);
  const bool reuse = choices.reuse_workspace ? *choices.reuse_workspace : Pick(4) == 0;
  body_ops->insert(body_ops->begin(), SimpleOp("Copy", {"a0"}, {"xin"}));
  body_ops->push_back(SimpleOp("Copy", {"res"}, {"a0"}));
  caffe2::OperatorDef body = SimpleOp("Do", {}, {Placeholder('$', 0), Placeholder('$', scope)});
  caffe2::Argument inner, index;
  inner.set_name("inner_blobs");
  index.set_name("outer_blobs_idx");
  for (size_t b = 0; b < body_inputs.size(); ++b) {
    body.add_input(Placeholder('$', body_inputs[b]));
    inner.add_strings("a" + std::to_string(body_inputs[b]));
    index.add_ints(static_cast<int64_t>(b));
  }
  body.add_input(Placeholder('$', scope));
  *body.add_arg() = NetArg("net", MakeNet("loop_body", *body_ops));
  *body.add_arg() = inner;
  *body.add_arg() = index;
  if (reuse) {
    caffe2::Argument reuse_workspace;
    reuse_workspace.set_name("reuse_workspace");
    reuse_workspace.set_i(1);
    *body.add_arg() = reuse_workspace;
  } else if (Pick(2) == 1) {
    // Caffe2's add_while_op sets copy_external_blobs on its loop body: each pass's workspace
    // keeps copies of the bound blobs as that pass left them, for the gradient While.
    caffe2::Argument copy_external_blobs;
    copy_external_blobs.set_name("copy_external_blobs");
    copy_external_blobs.set_i(1);
    *body.add_arg() = copy_external_blobs;
  }
  op.RawArg(NetArg("loop_net", MakeNet("loop", {body})));
  // cond_net names the While's instance inputs and outputs by position ($k, @j).
  auto input = [](int index) { return Placeholder('$', index); };
  auto output = [](int index) { return Placeholder('@', index); };
  std::vector<caffe2::OperatorDef> cond_ops = {
      SimpleOp("Add", {input(i), input(one)}, {input(i)}),  // i = i + 1
      SimpleOp("LE", {input(i), input(k)}, {output(3)})};   // cond = i <= k
  if (branch_condition >= 0) {
    // The body's If takes then while the pass number is below `split`, else from there on.
    const int split = op.ShapeInput(
        {choices.else_from_pass ? *choices.else_from_pass : *rc::gen::inRange<int64_t>(1, 4)},
        DataType::kInt32);
    cond_ops.push_back(SimpleOp("LT", {input(i), input(split)}, {output(4)}));
    op.SetNumOutputs(5);
    op.OutputInPlace(4, branch_condition);
  }
  op.RawArg(NetArg("cond_net", MakeNet("cond", cond_ops)));
  op.OutputInPlace(0, 0).OutputInPlace(1, scope).OutputInPlace(2, i).OutputInPlace(3, 1);
  std::vector<int> order = {1, 0};
  for (int n = 2; n < static_cast<int>(op.inputs().size()); ++n) order.push_back(n);
  op.OpInputOrder(order);
  if (reuse) {
    // Caffe2's While gradient needs a workspace per pass: nothing to differentiate.
    for (int n = 0; n < static_cast<int>(op.inputs().size()); ++n) op.NotDifferentiable(n);
  }
  return op;
}

}  // namespace parity::fuzz

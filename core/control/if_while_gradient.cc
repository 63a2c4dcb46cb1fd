// The gradients of If and While, as Caffe2's gen_if_gradient / gen_while_gradient
// (control_ops_grad.py) build them.
//
// If: a gradient If on the same condition over the backward passes of then_net and else_net
// (one is made to zero-fill when the If has no else, "<then>_grad_auto_else_zero_blobs_").
// Whichever branch ran, every input gradient the If reports is defined: the branch that does not
// compute it zero-fills it (ConstantFill of the input, value 0).
//
// While: the body must be a single Do without reuse_workspace (each pass then leaves its
// workspace on the stack). The gradient While runs the Do's gradient (which pops one workspace)
// while HasScope(stack) is true (its cond_net).
//
// Deliberate differences from the Python, each where it computes a wrong gradient or fails:
// * While: loop-carried gradients travel in "<grad>_carry" (copied in before the loop and out
//   after it) instead of Caffe2's Copy ops in cond_net and before the loop: those write the
//   input's gradient twice, and when the backward pass sums that gradient with another
//   consumer's it renames one writer's output, which the loop body does not follow.
// * While: the gradient of a blob the loop reads but does not write (a weight) is accumulated
//   over the passes (zeros before the loop, the Do's contribution to "<grad>_tmpstep", Sum into
//   "<grad>_accum", copied to the gradient after the loop), as RecurrentNetwork accumulates its
//   parameter gradients. Caffe2 overwrites it at each pass and keeps one pass's contribution.
// * If: each input's gradient is settled per input and per branch. A branch passing an incoming
//   gradient through, or overwriting the input before reading it, gets a Copy into the reported
//   name or a zero fill; Caffe2 merges the two branches' gradient maps by name, so such an input
//   reports the incoming gradient whichever branch ran, and it zero-fills a branch's own
//   intermediates with ConstantFill of a blob that does not exist when the other branch ran.
// * If: the condition is removed from the gradient If's other inputs by name (the Python removes
//   the characters of its name: `set(op_input[0])`).
#include <algorithm>

#include "core/argument.h"
#include "core/control/subnet_gradient.h"
#include "core/proto/error.h"

namespace parity {
namespace {

caffe2::Argument NetArg(const std::string& name, const caffe2::NetDef& net) {
  caffe2::Argument arg;
  arg.set_name(name);
  *arg.mutable_n() = net;
  return arg;
}

// How one branch affects the gradient of an If input: the blob holding it after the branch's
// backward net ("" when the branch makes it zero). The value the If was given matters only where
// the branch reads it before overwriting it (or never touches it, and an incoming gradient passes
// through): the gradient of the value the branch began with.
std::string BranchInputGradient(const SubnetGradient& grad, const std::string& blob) {
  auto it = grad.input_gradient_of.find(blob);
  return it == grad.input_gradient_of.end() ? "" : it->second;
}

Ops IfGradient(GradientContext& g) {
  const caffe2::OperatorDef& def = g.def();
  std::vector<std::string> g_output = OutputGradients(g);
  Ops ops = DedupeOutputGradients(def, &g_output);
  const GradientSeeds seeds = OutputSeeds(def, g_output);
  PARITY_ENFORCE(!seeds.empty(), ErrorKind::kBadArgument, OpLabel(def),
                 ": no output of the If has a gradient");
  const ArgumentHelper args(def, nullptr);
  const bool has_else = args.Has("else_net");
  const caffe2::NetDef then_net = args.GetNet("then_net");
  const caffe2::NetDef else_net = has_else ? args.GetNet("else_net") : caffe2::NetDef();
  SubnetGradient then_grad = MakeSubnetGradient(then_net, seeds);
  SubnetGradient else_grad = MakeSubnetGradient(else_net, seeds);
  if (!has_else && !then_grad.net.name().empty()) {
    else_grad.net.set_name(then_grad.net.name() + "_auto_else_zero_blobs_");
  }

  // Each input's gradient ends in one blob whichever branch ran: the name a branch's backward net
  // writes when there is one, else "<input>_grad"; the other branch copies its own gradient (or
  // a passed-through incoming one) there, or zero-fills it.
  std::set<std::string> done, targets;
  std::vector<std::string> g_input(def.input_size());
  for (int i = 1; i < def.input_size(); ++i) {
    const std::string& blob = def.input(i);
    if (!done.insert(blob).second) continue;
    const std::string from_then = BranchInputGradient(then_grad, blob);
    const std::string from_else = BranchInputGradient(else_grad, blob);
    if (from_then.empty() && from_else.empty()) continue;
    std::string target = blob + "_grad";
    if (then_grad.outputs.count(from_then)) {
      target = from_then;
    } else if (else_grad.outputs.count(from_else)) {
      target = from_else;
    }
    // Inputs whose gradients a branch passes through share one blob (Sum's inputs): each input
    // gets its own.
    for (int k = 0; targets.count(target); ++k) target = blob + "_grad_" + std::to_string(k);
    targets.insert(target);
    for (auto [grad, from] :
         {std::make_pair(&then_grad, from_then), std::make_pair(&else_grad, from_else)}) {
      if (from.empty()) {
        *grad->net.add_op() = ZeroFillLike(blob, target);
      } else if (from != target) {
        *grad->net.add_op() = CopyOp(from, target);
      }
    }
    g_input[i] = target;
  }
  for (auto* grad : {&then_grad, &else_grad}) {
    grad->inputs.clear();
    grad->outputs.clear();
    CollectReadsAndWrites({grad->net.op().begin(), grad->net.op().end()}, &grad->inputs,
                          &grad->outputs);
  }

  std::set<std::string> outputs = then_grad.outputs, inputs = then_grad.inputs;
  outputs.insert(else_grad.outputs.begin(), else_grad.outputs.end());
  inputs.insert(else_grad.inputs.begin(), else_grad.inputs.end());
  inputs.erase(def.input(0));
  caffe2::OperatorDef grad_if = GradientControlOp(def);
  grad_if.add_input(def.input(0));
  for (const auto& in : inputs) grad_if.add_input(in);
  for (const auto& out : outputs) grad_if.add_output(out);
  *grad_if.add_arg() = NetArg("then_net", then_grad.net);
  if (else_grad.net.op_size() > 0) *grad_if.add_arg() = NetArg("else_net", else_grad.net);
  ops.push_back(grad_if);
  for (int i = 1; i < def.input_size(); ++i) {
    if (!g_input[i].empty()) g.SetGI(i, g_input[i]);
  }
  return ops;
}

Ops WhileGradient(GradientContext& g) {
  const caffe2::OperatorDef& def = g.def();
  std::vector<std::string> g_output = OutputGradients(g);
  Ops ops = DedupeOutputGradients(def, &g_output);
  const GradientSeeds seeds = OutputSeeds(def, g_output);
  const std::map<std::string, std::string> init(seeds.begin(), seeds.end());
  PARITY_ENFORCE(!seeds.empty(), ErrorKind::kBadArgument, OpLabel(def),
                 ": no output of the While has a gradient");
  const caffe2::NetDef& loop_net = ArgumentHelper(def, nullptr).GetNet("loop_net");
  PARITY_ENFORCE(loop_net.op_size() == 1 && loop_net.op(0).type() == "Do", ErrorKind::kBadArgument,
                 OpLabel(def),
                 ": the gradient of While requires a single Do op as the loop body (loop_net has ",
                 loop_net.op_size(), " ops", loop_net.op_size() ? ", the first a " : "",
                 loop_net.op_size() ? loop_net.op(0).type() : "", ")");
  const caffe2::OperatorDef& body = loop_net.op(0);
  PARITY_ENFORCE(!ArgumentHelper(body, nullptr).Get<int64_t>("reuse_workspace", 0),
                 ErrorKind::kBadArgument, OpLabel(def),
                 ": the gradient of While requires a loop-body Do without reuse_workspace "
                 "(each pass must leave its own workspace)");
  PARITY_ENFORCE(body.output_size() > 0, ErrorKind::kBadArgument, OpLabel(def),
                 ": the loop-body Do has no outputs");
  const std::string scope = body.output(body.output_size() - 1);
  SubnetGradient loop = MakeSubnetGradient(loop_net, seeds);

  // Blobs the loop reads but never writes accumulate their gradient over the passes.
  const std::set<std::string> written(def.output().begin(), def.output().end());
  Ops before, after;
  for (int i = 1; i < def.input_size(); ++i) {
    const std::string& blob = def.input(i);
    auto it = loop.gradient_of.find(blob);
    if (written.count(blob) || it == loop.gradient_of.end() || !loop.outputs.count(it->second)) {
      continue;
    }
    const std::string grad = it->second, step = grad + "_tmpstep", accum = grad + "_accum";
    for (auto& op : *loop.net.mutable_op()) {
      for (auto& out : *op.mutable_output()) {
        if (out == grad) out = step;
      }
    }
    caffe2::OperatorDef sum;
    sum.set_type("Sum");
    sum.add_input(accum);
    sum.add_input(step);
    sum.add_output(accum);
    *loop.net.add_op() = sum;
    before.push_back(ZeroFillLike(blob, accum));
    after.push_back(CopyOp(accum, grad));
  }
  // Loop-carried gradients travel in a carrier blob "<grad>_carry": copied in before the loop,
  // read and rewritten by every pass, copied to the input's gradient after it. The gradient While
  // then never writes a gradient the backward pass may rename or sum (only the last Copy does),
  // and zero passes leave the incoming gradient as it is.
  auto rename = [&loop](const std::string& from, const std::string& to, bool reads) {
    for (auto& op : *loop.net.mutable_op()) {
      if (reads) {
        for (auto& in : *op.mutable_input()) {
          if (in == from) in = to;
        }
      }
      for (auto& out : *op.mutable_output()) {
        if (out == from) out = to;
      }
    }
  };
  for (const auto& [blob, init_g] : init) {
    auto it = loop.gradient_of.find(blob);
    if (it == loop.gradient_of.end() || !loop.outputs.count(it->second)) continue;
    const std::string grad = it->second, carry = grad + "_carry", step = grad + "_tmpstep";
    rename(init_g, carry, true);
    if (grad != init_g) {
      rename(grad, step, false);
      *loop.net.add_op() = CopyOp(step, carry);
    }
    before.push_back(CopyOp(init_g, carry));
    after.push_back(CopyOp(carry, grad));
  }
  loop.inputs.clear();
  loop.outputs.clear();
  CollectReadsAndWrites({loop.net.op().begin(), loop.net.op().end()}, &loop.inputs, &loop.outputs);

  const std::string cond = scope + "/_WHILE_GRADIENT_COND_";
  caffe2::NetDef cond_net;
  cond_net.set_name("gradient_loop_cond_net");
  caffe2::OperatorDef has_scope;
  has_scope.set_type("HasScope");
  has_scope.add_input(scope);
  has_scope.add_output(cond);
  ops.push_back(has_scope);
  *cond_net.add_op() = has_scope;
  ops.insert(ops.end(), before.begin(), before.end());

  caffe2::OperatorDef grad_while = GradientControlOp(def);
  grad_while.add_input(cond);
  for (const auto& in : loop.inputs) grad_while.add_input(in);
  for (const auto& out : loop.outputs) grad_while.add_output(out);
  *grad_while.add_arg() = NetArg("loop_net", loop.net);
  *grad_while.add_arg() = NetArg("cond_net", cond_net);
  ops.push_back(grad_while);
  ops.insert(ops.end(), after.begin(), after.end());
  for (int i = 1; i < def.input_size(); ++i) {
    auto it = loop.gradient_of.find(def.input(i));
    if (it != loop.gradient_of.end()) g.SetGI(i, it->second);
  }
  return ops;
}

}  // namespace

PARITY_REGISTER_GRADIENT_OWN_ARGS(If, IfGradient);
PARITY_REGISTER_GRADIENT_OWN_ARGS(While, WhileGradient);

}  // namespace parity

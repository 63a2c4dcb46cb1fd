// The gradient of Do, as Caffe2's gen_do_gradient (control_ops_grad.py) builds it: a gradient Do
// that pops the forward Do's workspace and runs the backward pass of its net there.
//
// Inside, each output's gradient is bound as "<inner output>/_DO_OPERATOR_INNER_GRAD_"; the
// backward pass of the inner net is built from those seeds; every blob its ops read is bound to
// its outer blob (forward blobs and incoming gradients) or, when it is local to the forward
// workspace, left to be found there (saved_fwd_blobs); each input's inner gradient is copied to
// "<inner input>/_DO_OPERATOR_INNER_GRAD_COPY_", bound to "<outer input>_grad".
//
// Deliberate differences from the Python, each where it fails or loses a gradient:
// * An outer gradient that is both read and written (a Do whose output is also its input, so
//   "x_grad" is x's incoming and outgoing gradient) is bound once, and the copy writes back
//   through the inner name that reads it; Caffe2 binds it twice and asserts ("Reusage of outer
//   blob name").
// * Copies that read an incoming gradient directly (an inner op whose gradient passes through,
//   like Sum) bind it as an input; Caffe2 scans only the gradient ops for inputs, and returns no
//   gradient at all when the inner pass has no ops.
#include <algorithm>

#include "core/argument.h"
#include "core/control/do_bindings.h"
#include "core/control/subnet_gradient.h"
#include "core/proto/error.h"

namespace parity {
namespace {

constexpr char kInnerGrad[] = "/_DO_OPERATOR_INNER_GRAD_";
constexpr char kInnerGradCopy[] = "/_DO_OPERATOR_INNER_GRAD_COPY_";

Ops DoGradient(GradientContext& g) {
  const caffe2::OperatorDef& def = g.def();
  const DoBindings b = ReadDoBindings(def);
  std::vector<std::string> g_output = OutputGradients(g);
  Ops ops = DedupeOutputGradients(def, &g_output);

  GradientSeeds seeds;
  std::map<std::string, std::string> incoming;  // inner gradient name -> outer gradient blob
  for (size_t j = 0; j < b.outputs.size(); ++j) {
    if (g_output[j].empty()) continue;
    const std::string inner = b.outer_to_inner.at(b.outputs[j]) + kInnerGrad;
    seeds.emplace_back(b.outer_to_inner.at(b.outputs[j]), inner);
    incoming[inner] = g_output[j];
  }
  PARITY_ENFORCE(!seeds.empty(), ErrorKind::kBadArgument, OpLabel(def),
                 ": no output of the Do has a gradient");
  const caffe2::NetDef& subnet = ArgumentHelper(def, nullptr).GetNet("net");
  SubnetGradient inner = MakeSubnetGradient(subnet, seeds);

  // Which inputs get a gradient, from which inner gradient blob.
  struct InputGradient {
    int index;
    std::string inner_grad, outer_grad;
  };
  std::vector<InputGradient> input_grads;
  for (size_t i = 0; i < b.inputs.size(); ++i) {
    // The gradient of the value bound in: none when the net overwrites the name before reading.
    auto it = inner.input_gradient_of.find(b.outer_to_inner.at(b.inputs[i]));
    if (it == inner.input_gradient_of.end()) continue;
    input_grads.push_back({static_cast<int>(i), it->second, b.inputs[i] + "_grad"});
  }
  if (inner.net.op_size() == 0 && input_grads.empty()) return {};

  // Bind what the gradient ops (and the copies) read: forward blobs and incoming gradients.
  std::vector<std::string> inputs, outputs;
  std::map<std::string, std::string> bindings;  // inner -> outer
  std::set<std::string> saved, written;
  auto read = [&](const std::string& name) {
    if (written.count(name)) return;
    std::string outer;
    if (b.inner_to_outer.count(name)) {
      outer = b.inner_to_outer.at(name);
    } else if (incoming.count(name)) {
      outer = incoming.at(name);
    } else {
      saved.insert(name);  // local to the forward workspace the gradient Do pops
      return;
    }
    if (std::find(inputs.begin(), inputs.end(), outer) == inputs.end()) inputs.push_back(outer);
    bindings[name] = outer;
  };
  for (const auto& op : inner.net.op()) {
    for (const auto& in : op.input()) read(in);
    written.insert(op.output().begin(), op.output().end());
  }
  for (const InputGradient& ig : input_grads) read(ig.inner_grad);

  std::vector<std::string> g_input(def.input_size());
  for (const InputGradient& ig : input_grads) {
    std::string target;
    for (const auto& [inner_name, outer] : bindings) {
      if (outer == ig.outer_grad) target = inner_name;
    }
    if (target.empty()) {
      target = b.outer_to_inner.at(b.inputs[ig.index]) + kInnerGradCopy;
      bindings[target] = ig.outer_grad;
    }
    if (target != ig.inner_grad) *inner.net.add_op() = CopyOp(ig.inner_grad, target);
    outputs.push_back(ig.outer_grad);
    g_input[ig.index] = ig.outer_grad;
  }

  caffe2::OperatorDef grad_do = GradientControlOp(def);
  for (const auto& in : inputs) grad_do.add_input(in);
  grad_do.add_input(b.scope);
  for (const auto& out : outputs) grad_do.add_output(out);
  grad_do.add_output(b.scope);
  std::vector<std::string> outer = inputs;
  outer.insert(outer.end(), outputs.begin(), outputs.end());
  caffe2::Argument* net = grad_do.add_arg();
  net->set_name("net");
  *net->mutable_n() = inner.net;
  caffe2::Argument* inner_blobs = grad_do.add_arg();
  inner_blobs->set_name("inner_blobs");
  caffe2::Argument* outer_idx = grad_do.add_arg();
  outer_idx->set_name("outer_blobs_idx");
  for (const auto& [inner_name, outer_name] : bindings) {
    inner_blobs->add_strings(inner_name);
    outer_idx->add_ints(std::find(outer.begin(), outer.end(), outer_name) - outer.begin());
  }
  caffe2::Argument* saved_arg = grad_do.add_arg();
  saved_arg->set_name("saved_fwd_blobs");
  for (const auto& name : saved) saved_arg->add_strings(name);
  ReadDoBindings(grad_do);  // the generated op satisfies Do's own checks (as the seed asserts)
  ops.push_back(grad_do);
  for (size_t i = 0; i < g_input.size(); ++i) {
    if (!g_input[i].empty()) g.SetGI(static_cast<int>(i), g_input[i]);
  }
  return ops;
}

}  // namespace

PARITY_REGISTER_GRADIENT_OWN_ARGS(Do, DoGradient);

}  // namespace parity

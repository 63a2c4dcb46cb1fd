#include "core/rnn/recurrent_net.h"

#include <algorithm>
#include <set>

#include "core/grad/backward.h"
#include "core/proto/error.h"

namespace parity {
namespace {

// Caffe2's get_ssa versions: 0 for a blob not yet written, +1 per write.
std::map<std::string, int> WriteVersions(
    const google::protobuf::RepeatedPtrField<caffe2::OperatorDef>& ops) {
  std::map<std::string, int> versions;
  for (const caffe2::OperatorDef& op : ops) {
    for (const std::string& out : op.output()) ++versions[out];
  }
  return versions;
}

// Caffe2's get_undefined_blobs: blobs some op reads before any op writes them (version 0).
std::set<std::string> UndefinedBlobs(
    const google::protobuf::RepeatedPtrField<caffe2::OperatorDef>& ops) {
  std::set<std::string> written, undefined;
  for (const caffe2::OperatorDef& op : ops) {
    for (const std::string& in : op.input()) {
      if (!written.count(in)) undefined.insert(in);
    }
    for (const std::string& out : op.output()) written.insert(out);
  }
  return undefined;
}

bool Contains(const google::protobuf::RepeatedPtrField<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

caffe2::Argument StringsArg(const std::string& name, const std::vector<std::string>& values) {
  caffe2::Argument arg;
  arg.set_name(name);
  for (const std::string& v : values) arg.add_strings(v);
  return arg;
}

caffe2::Argument IntsArgOf(const std::string& name, const std::vector<int64_t>& values) {
  caffe2::Argument arg;
  arg.set_name(name);
  for (int64_t v : values) arg.add_ints(v);
  return arg;
}

struct Triple {
  std::string internal, external;
  int64_t offset;
};

void AddTriples(caffe2::OperatorDef* op, const std::string& prefix, const std::string& kind,
                const std::vector<Triple>& triples) {
  std::vector<std::string> internal, external;
  std::vector<int64_t> offset;
  for (const Triple& t : triples) {
    internal.push_back(t.internal);
    external.push_back(t.external);
    offset.push_back(t.offset);
  }
  const bool alias = kind == "alias";
  *op->add_arg() = StringsArg(prefix + (alias ? "alias_src" : "link_internal"), internal);
  *op->add_arg() = StringsArg(prefix + (alias ? "alias_dst" : "link_external"), external);
  *op->add_arg() = IntsArgOf(prefix + (alias ? "alias_offset" : "link_offset"), offset);
}

}  // namespace

RecurrentNetOutputs RecurrentNet(caffe2::NetDef* net, const RecurrentNetSpec& spec) {
  const caffe2::NetDef& cell = spec.cell_net;
  auto s = [&](const std::string& name) { return spec.scope + "/" + name; };
  auto fail = [&](auto&&... parts) {
    return MakeError(ErrorKind::kBadArgument, "recurrent_net '", spec.scope, "': ", parts...);
  };

  // References: cell inputs that are neither the sequence, the states nor the timestep.
  std::set<std::string> known = {spec.input.first, spec.input.second, spec.timestep};
  for (const auto& [cell_input, init] : spec.initial_cell_inputs) {
    known.insert(cell_input);
    known.insert(init);
  }
  std::vector<std::string> references;
  for (const std::string& in : cell.external_input()) {
    if (!known.count(in)) references.push_back(in);
  }

  // The backward step net.
  caffe2::NetDef backward;
  BackwardPass pass;
  std::map<std::string, int> backward_versions;
  if (!spec.forward_only) {
    GradientSeeds seeds;
    for (const std::string& out : cell.external_output()) seeds.push_back({out, out + "_grad"});
    pass = GetBackwardPass({cell.op().begin(), cell.op().end()}, seeds);
    backward.set_name("RecurrentBackwardStep");
    const std::set<std::string> recompute(spec.recompute_blobs_on_backward.begin(),
                                          spec.recompute_blobs_on_backward.end());
    for (const caffe2::OperatorDef& op : cell.op()) {
      bool makes_recomputed = false;
      for (const std::string& out : op.output()) makes_recomputed |= recompute.count(out) > 0;
      if (!makes_recomputed) continue;
      for (const std::string& out : op.output()) {
        if (!recompute.count(out)) {
          throw fail("op ", op.type(), " makes a recomputed blob and also '", out,
                     "', which is not in recompute_blobs_on_backward");
        }
      }
      *backward.add_op() = op;
    }
    for (const caffe2::OperatorDef& op : pass.ops) *backward.add_op() = op;
    backward_versions = WriteVersions(backward.op());
    const std::set<std::string> undefined = UndefinedBlobs(backward.op());
    for (const auto& [blob, version] : WriteVersions(cell.op())) {
      if (version > 0 && undefined.count(blob) && !Contains(cell.external_output(), blob)) {
        backward.add_external_input(blob);  // a scratch: read from the forward step's workspace
      }
    }
    backward.set_type("simple");
  }
  auto gradient_of = [&](const std::string& blob) -> std::string {
    auto it = pass.gradient_of.find(blob);
    return it == pass.gradient_of.end() ? "" : it->second;
  };

  std::vector<std::string> all_inputs = {spec.input.second};
  for (const auto& [cell_input, init] : spec.initial_cell_inputs) all_inputs.push_back(init);
  all_inputs.insert(all_inputs.end(), references.begin(), references.end());

  std::vector<Triple> forward_links, backward_links, aliases;
  // Links `gradient` to row t of `external`. A link makes its internal blob a view of its rows, so
  // one blob cannot serve two links: when the backward pass passes one gradient through to several
  // inputs (a cell o_t = Sum(x_t, o_{t-1}) gives x_t, o_{t-1} and o_t the gradient "o_grad"), a
  // Copy at the end of the backward step net gives each later link its own blob, `fresh`. Caffe2's
  // recurrent_net links the shared name twice and one of the gradients comes out zero.
  std::vector<caffe2::OperatorDef> link_copies;
  // Copy(gradient) -> own; `own` must be a name the step nets do not use yet.
  auto copy_to_own_blob = [&](const std::string& gradient, const std::string& own) {
    if (backward_versions[own] > 0 || Contains(backward.external_input(), own) ||
        Contains(cell.external_input(), own)) {
      throw fail("the gradient '", gradient, "' needs its own blob '", own,
                 "', which the step nets already use");
    }
    caffe2::OperatorDef copy;
    copy.set_type("Copy");
    copy.add_input(gradient);
    copy.add_output(own);
    return copy;
  };
  auto link_gradient = [&](const std::string& gradient, const std::string& fresh,
                           const std::string& external) {
    const bool linked = std::any_of(backward_links.begin(), backward_links.end(),
                                    [&](const Triple& t) { return t.internal == gradient; });
    if (!linked) {
      backward_links.push_back({gradient, external, 0});
      return;
    }
    link_copies.push_back(copy_to_own_blob(gradient, fresh));
    backward_links.push_back({fresh, external, 0});
  };
  std::vector<std::string> all_outputs, recurrent_states;
  for (const auto& [cell_input, init] : spec.initial_cell_inputs) {
    auto link = spec.links.find(cell_input);
    if (link == spec.links.end()) throw fail("state '", cell_input, "' has no link");
    const std::string& cell_output = link->second;
    if (!Contains(cell.external_output(), cell_output)) {
      throw fail("link '", cell_input, "' -> '", cell_output,
                 "': the cell net does not list it as an external output");
    }
    const std::string state = s(cell_input + "_states");
    const std::string states_grad = state + "_grad";
    forward_links.push_back({cell_input, state, 0});
    forward_links.push_back({cell_output, state, 1});
    aliases.push_back({state, cell_output + "_all", 1});
    aliases.push_back({state, cell_output + "_last", -1});
    all_outputs.push_back(cell_output + "_all");
    all_outputs.push_back(cell_output + "_last");
    recurrent_states.push_back(state);
    if (spec.forward_only) continue;
    backward_links.push_back({cell_output + "_grad", states_grad, 1});
    backward.add_external_input(cell_output + "_grad");
    const std::string input_grad = cell_input + "_grad";
    if (backward_versions[input_grad] > 0) {
      backward_links.push_back({input_grad, states_grad, 0});
    } else if (!gradient_of(cell_input).empty()) {
      // Seed 003: nobody writes "<input>_grad" (a Sum first in the cell passes the gradient
      // through under another name): link the gradient the pass did produce.
      link_gradient(gradient_of(cell_input), input_grad, states_grad);
    }
    // A state the cell's outputs do not depend on has no gradient link: its rows stay zero.
  }
  forward_links.push_back({spec.input.first, spec.input.second, 0});
  if (!spec.forward_only) {
    if (!gradient_of(spec.input.first).empty()) {
      link_gradient(gradient_of(spec.input.first), spec.input.first + "_grad",
                    spec.input.second + "_grad");
    }
    for (const std::string& in : cell.external_input()) backward.add_external_input(in);
    for (const std::string& out : cell.external_output()) backward.add_external_input(out);

    // "_accum" + Sum: a gradient written here that also arrives from outside adds up.
    caffe2::NetDef rewritten = backward;
    rewritten.clear_op();
    for (const caffe2::OperatorDef& op : backward.op()) {
      caffe2::OperatorDef copy = op;
      std::vector<caffe2::OperatorDef> sums;
      for (std::string& out : *copy.mutable_output()) {
        if (!Contains(backward.external_input(), out) || Contains(op.input(), out)) continue;
        const std::string original = out;
        out = original + "_accum";
        caffe2::OperatorDef sum;
        sum.set_type("Sum");
        sum.add_input(original);
        sum.add_input(out);
        sum.add_output(original);
        sums.push_back(sum);
      }
      *rewritten.add_op() = copy;
      for (const caffe2::OperatorDef& sum : sums) *rewritten.add_op() = sum;
    }
    for (const caffe2::OperatorDef& copy : link_copies) *rewritten.add_op() = copy;
    backward = rewritten;
  }

  caffe2::OperatorDef* op = net->add_op();
  op->set_type("RecurrentNetwork");
  for (const std::string& in : all_inputs) op->add_input(in);
  RecurrentNetOutputs result{all_outputs, s("step_workspaces")};
  for (const std::string& out : all_outputs) op->add_output(out);
  op->add_output(result.step_workspaces);
  AddTriples(op, "", "alias", aliases);
  *op->add_arg() = StringsArg("recurrent_states", recurrent_states);
  std::vector<int64_t> init_ids;
  for (size_t i = 0; i < spec.initial_cell_inputs.size(); ++i) {
    init_ids.push_back(static_cast<int64_t>(1 + i));
  }
  *op->add_arg() = IntsArgOf("initial_recurrent_state_ids", init_ids);
  AddTriples(op, "", "link", forward_links);
  caffe2::Argument* step_net = op->add_arg();
  step_net->set_name("step_net");
  *step_net->mutable_n() = cell;
  caffe2::Argument* timestep = op->add_arg();
  timestep->set_name("timestep");
  timestep->set_s(spec.timestep);
  if (!spec.forward_only) {
    std::vector<int64_t> params;
    std::vector<std::string> param_grads;
    for (const std::string& ref : references) {
      std::string gradient = gradient_of(ref);
      if (gradient.empty()) continue;
      // RecurrentNetworkGradient renames a param gradient to "<name>_tmpstep" throughout the step
      // net. When the backward pass hands the param a gradient that arrives from outside (a cell
      // ending in Sum(u, w) gives w the gradient "o_grad"), that rename would cut the link: the
      // param gets its own copy, written last.
      if (backward_versions[gradient] == 0 || Contains(backward.external_input(), gradient)) {
        *backward.add_op() = copy_to_own_blob(gradient, ref + "_grad");
        gradient = ref + "_grad";
      }
      params.push_back(std::find(all_inputs.begin(), all_inputs.end(), ref) - all_inputs.begin());
      param_grads.push_back(gradient);
    }
    *op->add_arg() = IntsArgOf("param", params);
    AddTriples(op, "backward_", "link", backward_links);
    caffe2::Argument* backward_net = op->add_arg();
    backward_net->set_name("backward_step_net");
    *backward_net->mutable_n() = backward;
    *op->add_arg() = IntsArgOf("outputs_with_grads", spec.outputs_with_grads);
    *op->add_arg() = StringsArg("recompute_blobs_on_backward", spec.recompute_blobs_on_backward);
    *op->add_arg() = StringsArg("param_grads", param_grads);
  }
  return result;
}

}  // namespace parity

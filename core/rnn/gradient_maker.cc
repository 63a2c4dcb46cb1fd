// The gradient of RecurrentNetwork (Caffe2's GetRecurrentNetworkGradient): one
// RecurrentNetworkGradient reading the gradients of the outputs named by `outputs_with_grads`,
// every forward input and every forward output, and writing the gradients of input 0, of each
// `param` input and of each initial state. It receives the forward op's arguments
// (backward_step_net, links, ...), which the builder (recurrent_net.h) set.
//
// Differences from Caffe2, both so that a gradient is never silently wrong:
//   * an output listed in outputs_with_grads whose gradient nothing downstream provides gets a
//     zero gradient (the autodiff rule of GradientContext::GO);
//   * a gradient that does reach an output missing from outputs_with_grads is an error naming it
//     (Caffe2 drops it, and the gradient of everything upstream comes out wrong).
#include "core/argument.h"
#include "core/grad/gradient.h"
#include "core/proto/error.h"
#include "core/rnn/recurrent_network_schema.h"

namespace parity {
namespace {

Ops RecurrentNetworkGradient(GradientContext& g) {
  const caffe2::OperatorDef& def = g.def();
  const ArgumentHelper args(def, nullptr);
  PARITY_ENFORCE(HasBackwardStepNet(args), ErrorKind::kBadArgument, OpLabel(def),
                 ": has no backward_step_net (it was built forward-only), so it has no gradient");
  std::vector<int64_t> with_grads = args.GetVector<int64_t>("outputs_with_grads");
  if (!args.Has("outputs_with_grads")) with_grads = {0};  // recurrent_net's default (0,)
  PARITY_ENFORCE(!with_grads.empty(), ErrorKind::kBadArgument, OpLabel(def),
                 ": outputs_with_grads is empty");
  for (int o = 0; o + 1 < g.num_outputs(); ++o) {
    bool listed = false;
    for (int64_t id : with_grads) listed = listed || id == o;
    PARITY_ENFORCE(!g.HasGO(o) || listed, ErrorKind::kBadArgument, OpLabel(def), ": output ", o,
                   " ('", g.O(o),
                   "') receives a gradient but is not in "
                   "outputs_with_grads, so the gradient op would drop it");
  }
  std::vector<std::string> inputs;
  for (int64_t id : with_grads) {
    PARITY_ENFORCE(id >= 0 && id + 1 < g.num_outputs(), ErrorKind::kBadArgument, OpLabel(def),
                   ": outputs_with_grads names output ", id, " of ", g.num_outputs() - 1,
                   " (the step workspaces cannot have a gradient)");
    inputs.push_back(g.GO(static_cast<int>(id)));
  }
  for (int i = 0; i < g.num_inputs(); ++i) inputs.push_back(def.input(i));
  for (int o = 0; o < g.num_outputs(); ++o) inputs.push_back(g.O(o));

  std::vector<std::string> outputs = {g.GI(0)};
  for (int64_t id : args.GetVector<int64_t>("param")) {
    PARITY_ENFORCE(id > 0 && id < g.num_inputs(), ErrorKind::kBadArgument, OpLabel(def),
                   ": param names input ", id, " of ", g.num_inputs());
    outputs.push_back(g.GI(static_cast<int>(id)));
  }
  for (int64_t id : args.GetVector<int64_t>("initial_recurrent_state_ids")) {
    PARITY_ENFORCE(id > 0 && id < g.num_inputs(), ErrorKind::kBadArgument, OpLabel(def),
                   ": initial_recurrent_state_ids names input ", id, " of ", g.num_inputs());
    outputs.push_back(g.GI(static_cast<int>(id)));
  }
  return Ops{g.Op("RecurrentNetworkGradient", inputs, outputs)};
}

}  // namespace

PARITY_REGISTER_GRADIENT(RecurrentNetwork, RecurrentNetworkGradient);
PARITY_NO_GRADIENT(RecurrentNetworkGradient);
PARITY_NO_GRADIENT(rnn_internal_apply_link);
PARITY_NO_GRADIENT(rnn_internal_accumulate_gradient_input);

}  // namespace parity

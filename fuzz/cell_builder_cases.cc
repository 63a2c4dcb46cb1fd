#include "fuzz/cell_builder_cases.h"

#include <algorithm>
#include <string>
#include <vector>

#include "fuzz/generators.h"
#include "fuzz/spec.h"

namespace parity::fuzz {
namespace {

// The state's shape: [H], [N, H] or [1, N, H], all of which the builders' RecurrentNetwork takes.
std::vector<int64_t> StateDims(int64_t batch, int64_t hidden) {
  switch (Pick(3)) {
    case 0:
      return {hidden};
    case 1:
      return {batch, hidden};
    default:
      return {1, batch, hidden};
  }
}

// Which outputs carry gradients: a non-empty subset of `count`, from a bit mask.
std::vector<int64_t> OutputsWithGrads(int count) {
  const int mask = 1 + Pick((1 << count) - 1);
  std::vector<int64_t> out;
  for (int k = 0; k < count; ++k) {
    if (mask & (1 << k)) out.push_back(k);
  }
  return out;
}

void AddInput(Case* c, const std::string& name, const InputSpec& spec) {
  *c->add_inputs() = DrawTensor(name, spec);
  c->mutable_net()->add_external_input(name);
}

void AddFloatInput(Case* c, const std::string& name, const std::vector<int64_t>& dims) {
  InputSpec spec;
  spec.dims = dims;
  AddInput(c, name, spec);
}

std::string Flag(bool on, const std::string& name) { return on ? ", " + name : ""; }

// What both cells' specs take alike.
struct CommonOptions {
  int64_t dim_in, hidden;
  bool drop_states, forward_only, memory_optimization;
  std::vector<int64_t> with_grads;

  template <typename Spec>
  void Set(Spec* spec) const {
    spec->dim_in = dim_in;
    spec->dim_out = hidden;
    spec->drop_states = drop_states;
    spec->forward_only = forward_only;
    spec->memory_optimization = memory_optimization;
    spec->outputs_with_grads = with_grads;
  }
};

}  // namespace

CellPromise PromiseOf(const LstmSpec& spec, const LstmOutputs& built) {
  CellPromise promise;
  promise.set_cell("lstm");
  promise.set_input(spec.input);
  promise.set_seq_lengths(spec.seq_lengths);
  promise.set_hidden_init(spec.hidden_init);
  promise.set_cell_init(spec.cell_init);
  for (const RnnParameter& p : built.parameters) promise.add_parameters(p.name);
  promise.set_forget_bias(spec.forget_bias);
  promise.set_drop_states(spec.drop_states);
  promise.set_hidden_all(built.hidden_all);
  promise.set_hidden_last(built.hidden_last);
  promise.set_cell_all(built.cell_all);
  promise.set_cell_last(built.cell_last);
  return promise;
}

CellPromise PromiseOf(const GruSpec& spec, const GruOutputs& built) {
  CellPromise promise;
  promise.set_cell("gru");
  promise.set_input(spec.input);
  promise.set_seq_lengths(spec.seq_lengths);
  promise.set_hidden_init(spec.hidden_init);
  for (const RnnParameter& p : built.parameters) promise.add_parameters(p.name);
  promise.set_drop_states(spec.drop_states);
  promise.set_linear_before_reset(spec.linear_before_reset);
  promise.set_hidden_all(built.hidden_all);
  promise.set_hidden_last(built.hidden_last);
  return promise;
}

bool DrawsCellBuilders(const std::vector<std::string>& types) {
  return std::find(types.begin(), types.end(), "RecurrentNetwork") != types.end();
}

rc::Gen<Case> CellBuilderCaseGen() {
  return rc::gen::exec([] {
    const bool lstm = Pick(2) == 0;
    const int64_t steps = Dim(1, 4), batch = Dim(1, 3), dim_in = Dim(1, 4), hidden = Dim(1, 3);
    const bool drop_states = Pick(2) == 1, memory_optimization = Pick(2) == 1;
    // Forward-only nets have no backward step net: the gradient oracle does not apply to them.
    const bool forward_only = Pick(6) == 0;
    const std::vector<int64_t> with_grads = OutputsWithGrads(lstm ? 4 : 2);

    Case c;
    caffe2::NetDef* net = c.mutable_net();
    net->set_name(lstm ? "lstm_builder" : "gru_builder");
    AddFloatInput(&c, "input", {steps, batch, dim_in});
    // Rows shorter than the sequence (even empty) keep or drop their state past their length.
    InputSpec lengths;
    lengths.dims = {batch};
    lengths.dtype = DataType::kInt32;
    lengths.domain = Domain::kShape;
    lengths.differentiable = false;
    for (int64_t n = 0; n < batch; ++n) {
      lengths.values.push_back(Pick(3) == 0 ? Dim(0, steps) : steps);
    }
    AddInput(&c, "seq_lengths", lengths);
    AddFloatInput(&c, "hidden_init", StateDims(batch, hidden));

    const CommonOptions common{dim_in,    hidden, drop_states, forward_only, memory_optimization,
                               with_grads};
    std::vector<std::string> outputs;
    std::vector<RnnParameter> parameters;
    std::string options;
    if (lstm) {
      AddFloatInput(&c, "cell_init", StateDims(batch, hidden));
      LstmSpec spec;
      common.Set(&spec);
      const int bias = Pick(3);
      spec.forget_bias = bias == 0 ? 0.0f : bias == 1 ? 1.0f : (Pick(201) - 100) / 100.0f;
      const LstmOutputs built = Lstm(net, spec);
      *c.mutable_cell_promise() = PromiseOf(spec, built);
      outputs = {built.hidden_all, built.hidden_last, built.cell_all, built.cell_last};
      parameters = built.parameters;
      options = "forget_bias " + std::to_string(spec.forget_bias);
    } else {
      GruSpec spec;
      common.Set(&spec);
      spec.linear_before_reset = Pick(2) == 1;
      const GruOutputs built = Gru(net, spec);
      *c.mutable_cell_promise() = PromiseOf(spec, built);
      outputs = {built.hidden_all, built.hidden_last};
      parameters = built.parameters;
      options = spec.linear_before_reset ? "linear_before_reset" : "reset before the projection";
    }
    for (const RnnParameter& p : parameters) AddFloatInput(&c, p.name, p.dims);
    // Only outputs with a gradient are the net's outputs: the gradient oracle differentiates every
    // external output, and the backward step net takes gradients of those alone.
    for (size_t k = 0; k < outputs.size(); ++k) {
      const bool has_gradient = std::find(with_grads.begin(), with_grads.end(),
                                          static_cast<int64_t>(k)) != with_grads.end();
      if (forward_only || has_gradient) net->add_external_output(outputs[k]);
    }
    c.set_generator_version(kGeneratorVersion);
    c.set_description(std::string(lstm ? "LSTM" : "GRU") + " built by " + (lstm ? "Lstm" : "Gru") +
                      " (T " + std::to_string(steps) + ", N " + std::to_string(batch) + ", D " +
                      std::to_string(dim_in) + ", H " + std::to_string(hidden) + ", " + options +
                      Flag(drop_states, "drop_states") +
                      Flag(memory_optimization, "memory_optimization") +
                      Flag(forward_only, "forward_only") + ")");
    return c;
  });
}

}  // namespace parity::fuzz

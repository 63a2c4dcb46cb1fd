#include "core/rnn/rnn_cell.h"

#include <algorithm>
#include <utility>

#include "core/rnn/recurrent_net.h"

namespace parity {
namespace {

caffe2::OperatorDef* AddOp(caffe2::NetDef* net, const std::string& type,
                           const std::vector<std::string>& inputs,
                           const std::vector<std::string>& outputs) {
  caffe2::OperatorDef* op = net->add_op();
  op->set_type(type);
  for (const std::string& in : inputs) op->add_input(in);
  for (const std::string& out : outputs) op->add_output(out);
  return op;
}

caffe2::OperatorDef* WithInt(caffe2::OperatorDef* op, const std::string& name, int64_t value) {
  caffe2::Argument* arg = op->add_arg();
  arg->set_name(name);
  arg->set_i(value);
  return op;
}

// brew.fc(..., axis=2): the FC every cell uses, over [T or 1, N, K] inputs.
void AddFc(caffe2::NetDef* net, const std::string& input, const std::string& weights,
           const std::string& bias, const std::string& output) {
  WithInt(AddOp(net, "FC", {input, weights, bias}, {output}), "axis", 2);
}

LstmOutputs BuildLstm(caffe2::NetDef* net, const LstmSpec& spec) {
  auto s = [&](const std::string& name) { return spec.scope + "/" + name; };
  const int64_t d = spec.dim_in, h = spec.dim_out;
  LstmOutputs out;
  out.i2h_w = s("i2h_w");
  out.i2h_b = s("i2h_b");
  out.gates_t_w = s("gates_t_w");
  out.gates_t_b = s("gates_t_b");
  out.parameters = {{out.i2h_w, {4 * h, d}},
                    {out.i2h_b, {4 * h}},
                    {out.gates_t_w, {4 * h, h}},
                    {out.gates_t_b, {4 * h}}};

  // The input projection over the whole sequence, outside the step net.
  AddFc(net, spec.input, out.i2h_w, out.i2h_b, s("i2h"));

  caffe2::NetDef cell;
  cell.set_name(s("step_net"));
  const std::string input_t = s("input_t"), timestep = s("timestep");
  const std::string h_prev = s("hidden_t_prev"), c_prev = s("cell_t_prev");
  const std::string gates = s("gates_t"), hidden = s("hidden_t"), cell_t = s("cell_t");
  for (const std::string& in :
       {input_t, timestep, h_prev, c_prev, out.gates_t_w, out.gates_t_b, spec.seq_lengths}) {
    cell.add_external_input(in);
  }
  AddFc(&cell, h_prev, out.gates_t_w, out.gates_t_b, gates);
  AddOp(&cell, "Sum", {gates, input_t}, {gates});
  caffe2::OperatorDef* unit = AddOp(
      &cell, "LSTMUnit", {h_prev, c_prev, gates, spec.seq_lengths, timestep}, {hidden, cell_t});
  caffe2::Argument* forget = unit->add_arg();
  forget->set_name("forget_bias");
  forget->set_f(spec.forget_bias);
  WithInt(unit, "drop_states", spec.drop_states ? 1 : 0);
  WithInt(unit, "sequence_lengths", 1);
  cell.add_external_output(hidden);
  cell.add_external_output(cell_t);

  RecurrentNetSpec rnn;
  rnn.cell_net = cell;
  rnn.input = {input_t, s("i2h")};
  rnn.initial_cell_inputs = {{h_prev, spec.hidden_init}, {c_prev, spec.cell_init}};
  rnn.links = {{h_prev, hidden}, {c_prev, cell_t}};
  rnn.timestep = timestep;
  rnn.scope = spec.scope;
  rnn.outputs_with_grads = spec.outputs_with_grads;
  rnn.forward_only = spec.forward_only;
  if (spec.memory_optimization) rnn.recompute_blobs_on_backward = {gates};
  const RecurrentNetOutputs outputs = RecurrentNet(net, rnn);
  out.hidden_all = outputs.outputs[0];
  out.hidden_last = outputs.outputs[1];
  out.cell_all = outputs.outputs[2];
  out.cell_last = outputs.outputs[3];
  return out;
}

GruOutputs BuildGru(caffe2::NetDef* net, const GruSpec& spec) {
  auto s = [&](const std::string& name) { return spec.scope + "/" + name; };
  const int64_t d = spec.dim_in, h = spec.dim_out;
  GruOutputs out;
  const std::string i2h_w = s("i2h_w"), i2h_b = s("i2h_b");
  out.parameters = {{i2h_w, {3 * h, d}}, {i2h_b, {3 * h}}};
  for (const char* gate : {"reset_gate_t", "update_gate_t", "output_gate_t"}) {
    out.parameters.push_back({s(gate) + "_w", {h, h}});
    out.parameters.push_back({s(gate) + "_b", {h}});
  }

  AddFc(net, spec.input, i2h_w, i2h_b, s("i2h"));

  caffe2::NetDef cell;
  cell.set_name(s("step_net"));
  const std::string input_t = s("input_t"), timestep = s("timestep");
  const std::string h_prev = s("hidden_t_prev"), hidden = s("hidden_t");
  cell.add_external_input(input_t);
  cell.add_external_input(timestep);
  cell.add_external_input(h_prev);
  for (size_t i = 2; i < out.parameters.size(); ++i) {
    cell.add_external_input(out.parameters[i].name);
  }
  cell.add_external_input(spec.seq_lengths);

  const std::string input_reset = s("input_t_reset"), input_update = s("input_t_update"),
                    input_output = s("input_t_output");
  WithInt(AddOp(&cell, "Split", {input_t}, {input_reset, input_update, input_output}), "axis", 2);
  const std::string reset = s("reset_gate_t"), update = s("update_gate_t");
  AddFc(&cell, h_prev, reset + "_w", reset + "_b", reset);
  AddFc(&cell, h_prev, update + "_w", update + "_b", update);
  AddOp(&cell, "Sum", {reset, input_reset}, {reset});
  const std::string reset_sigmoid = s("reset_gate_t_sigmoid");
  AddOp(&cell, "Sigmoid", {reset}, {reset_sigmoid});
  const std::string output_gate = s("output_gate_t");
  std::string output_pre_input;  // the hidden-to-output contribution, reset applied
  if (spec.linear_before_reset) {
    AddFc(&cell, h_prev, output_gate + "_w", output_gate + "_b", output_gate);
    output_pre_input = s("output_gate_t_mul");
    AddOp(&cell, "Mul", {reset_sigmoid, output_gate}, {output_pre_input});
  } else {
    const std::string modified = s("modified_hidden_t_prev");
    AddOp(&cell, "Mul", {reset_sigmoid, h_prev}, {modified});
    AddFc(&cell, modified, output_gate + "_w", output_gate + "_b", output_gate);
    output_pre_input = output_gate;
  }
  AddOp(&cell, "Sum", {update, input_update}, {update});
  const std::string output_summed = s("output_gate_t_summed");
  AddOp(&cell, "Sum", {output_pre_input, input_output}, {output_summed});
  const std::string gates = s("gates_t"), concat_dims = s("_gates_t_concat_dims");
  WithInt(AddOp(&cell, "Concat", {reset, update, output_summed}, {gates, concat_dims}), "axis", 2);
  caffe2::OperatorDef* unit =
      AddOp(&cell, "GRUUnit", {h_prev, gates, spec.seq_lengths, timestep}, {hidden});
  WithInt(unit, "drop_states", spec.drop_states ? 1 : 0);
  WithInt(unit, "sequence_lengths", 1);
  cell.add_external_output(hidden);

  RecurrentNetSpec rnn;
  rnn.cell_net = cell;
  rnn.input = {input_t, s("i2h")};
  rnn.initial_cell_inputs = {{h_prev, spec.hidden_init}};
  rnn.links = {{h_prev, hidden}};
  rnn.timestep = timestep;
  rnn.scope = spec.scope;
  rnn.outputs_with_grads = spec.outputs_with_grads;
  rnn.forward_only = spec.forward_only;
  if (spec.memory_optimization) {
    // Every op after the Split writes only gate blobs; the unit's output is the state.
    for (const caffe2::OperatorDef& op : cell.op()) {
      if (op.type() == "Split" || op.type() == "GRUUnit") continue;
      for (const std::string& o : op.output()) {
        if (std::find(rnn.recompute_blobs_on_backward.begin(),
                      rnn.recompute_blobs_on_backward.end(),
                      o) == rnn.recompute_blobs_on_backward.end()) {
          rnn.recompute_blobs_on_backward.push_back(o);
        }
      }
    }
  }
  const RecurrentNetOutputs outputs = RecurrentNet(net, rnn);
  out.hidden_all = outputs.outputs[0];
  out.hidden_last = outputs.outputs[1];
  return out;
}

LstmBuilder& InstalledLstm() {
  static LstmBuilder* builder = new LstmBuilder(BuildLstm);
  return *builder;
}

GruBuilder& InstalledGru() {
  static GruBuilder* builder = new GruBuilder(BuildGru);
  return *builder;
}

}  // namespace

LstmOutputs Lstm(caffe2::NetDef* net, const LstmSpec& spec) { return InstalledLstm()(net, spec); }

GruOutputs Gru(caffe2::NetDef* net, const GruSpec& spec) { return InstalledGru()(net, spec); }

LstmBuilder InstallLstmBuilder(LstmBuilder builder) {
  std::swap(builder, InstalledLstm());
  return builder;
}

GruBuilder InstallGruBuilder(GruBuilder builder) {
  std::swap(builder, InstalledGru());
  return builder;
}

}  // namespace parity

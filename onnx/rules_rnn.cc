// Recurrent ONNX ops through parity's recurrent-net builders (core/rnn/rnn_cell.h, Caffe2's
// rnn_cell.py): LSTM -> Lstm(), GRU -> Gru(), one forward layer each; RNN (a tanh cell, which
// Caffe2 had no builder for) -> RecurrentNet() over a step net of FC, Sum, Tanh, the shape of the
// others: H_t = tanh(X_t W^T + Wb + H_{t-1} R^T + Rb), the input projection hoisted out of the
// loop as the cells do.
//
// ONNX packs the weights per direction, gates in its own order: LSTM W [1, 4H, D] and R [1, 4H, H]
// in i, o, f, c; B [1, 8H] = Wb then Rb. The builder's parameters are LSTMUnit's i, f, o, c:
// i2h_w [4H, D], gates_t_w [4H, H], i2h_b [4H] (ONNX's Wb), gates_t_b [4H] (its Rb). GRU: ONNX's
// z, r, h (update, reset, hidden) against GRUUnit's reset, update, output: i2h_w [3H, D] and
// i2h_b in r, z, h; the recurrent weights and biases one per gate ({reset, update, output}_gate_t
// _w [H, H], _b [H]), which is exactly where ONNX adds Rb (inside the reset product unless
// linear_before_reset, as the builder's two forms). The weights are graph values, so the
// reordering is ops (Squeeze of the direction, Split into gate blocks, Concat in the builder's
// order) that write the builder's parameter names before the builder's ops read them.
//
// What is translated: direction "forward", the default activations, layout 0 and 1 (batch-major
// X, Y and Y_h transposed around the time-major net), sequence_lens absent or a constant of T
// everywhere (every sequence full length: a constant seq_lengths), initial_h / initial_c (zeros
// when absent), LSTM peepholes (P) by a step net of elementary ops (LSTMUnit has none). Not:
// clip, input_forget, explicit activations other than the defaults, "reverse" and
// "bidirectional" (the builders are one forward layer), sequences shorter than T (ONNX zeroes Y
// past a sequence's end where parity's cells carry the state).
#include <string>
#include <vector>

#include "core/rnn/recurrent_net.h"
#include "core/rnn/rnn_cell.h"
#include "onnx/rules.h"

namespace parity::onnx {
namespace {

// Refuses the attribute forms the builders do not cover (see the header).
void CheckRecurrentForm(const Node& node, const std::vector<std::string>& default_activations) {
  const std::string direction = node.String("direction", "forward");
  PARITY_ENFORCE(direction == "forward", ErrorKind::kBadArgument, "attribute 'direction' = '",
                 direction, "' (parity's recurrent builders are one forward layer)");
  if (node.HasAttr("activations")) {
    std::vector<std::string> given;
    for (const auto& s : node.Attr("activations")->strings()) given.push_back(s);
    PARITY_ENFORCE(given == default_activations, ErrorKind::kBadArgument,
                   "attribute 'activations' other than the defaults");
  }
  PARITY_ENFORCE(!node.HasAttr("clip"), ErrorKind::kBadArgument,
                 "attribute 'clip' (parity's cells do not clip)");
  const int64_t layout = node.Int("layout", 0);
  PARITY_ENFORCE(layout == 0 || layout == 1, ErrorKind::kBadArgument, "attribute 'layout' = ",
                 layout);
}

// W, R or B of the one direction, without the direction axis.
std::string DropDirection(ImportContext& ctx, const std::string& name) {
  const std::string squeezed = ctx.Temp(name);
  ctx.Emit("Squeeze", {name}, {squeezed}).Ints("dims", {0});
  return squeezed;
}

// Splits `name` along axis 0 into `count` equal gate blocks.
std::vector<std::string> GateBlocks(ImportContext& ctx, const std::string& name, int count) {
  std::vector<std::string> blocks;
  for (int i = 0; i < count; ++i) blocks.push_back(ctx.Temp(name));
  ctx.Emit("Split", {name}, blocks).Int("axis", 0);
  return blocks;
}

// Concatenates `blocks` in the order `order` along axis 0 into `out`.
void Reorder(ImportContext& ctx, const std::vector<std::string>& blocks,
             const std::vector<int>& order, const std::string& out) {
  std::vector<std::string> inputs;
  for (int i : order) inputs.push_back(blocks[i]);
  ctx.Emit("Concat", inputs, {out, ctx.Temp("split_info")}).Int("axis", 0);
}

// A constant of `dims` filled with `value` (dtype a Caffe2 DataType).
void Fill(ImportContext& ctx, const std::string& name, const std::vector<int64_t>& dims,
          double value, DataType dtype) {
  ctx.Emit("ConstantFill", {}, {name})
      .Ints("shape", dims)
      .Float("value", value)
      .Int("dtype", static_cast<int>(dtype));
}

// What LSTM and GRU share: X time-major, its T, N, D, the seq_lengths and initial states.
struct Sequence {
  std::string x;  // [T, N, D]
  int64_t t = 0, n = 0, d = 0;
  bool batch_major = false;
  DataType dtype = DataType::kFloat;
};

Sequence ReadSequence(ImportContext& ctx, const Node& node) {
  Sequence s;
  s.batch_major = node.Int("layout", 0) == 1;
  s.dtype = ctx.Dtype(node.In(0));
  const std::vector<int64_t> dims = ctx.Dims(node.In(0));
  PARITY_ENFORCE(dims.size() == 3, ErrorKind::kBadArgument, "X of rank ", dims.size(),
                 " (ONNX's X is [T, N, D], or [N, T, D] with layout 1)");
  s.t = s.batch_major ? dims[1] : dims[0];
  s.n = s.batch_major ? dims[0] : dims[1];
  s.d = dims[2];
  if (node.HasIn(4)) {
    // Only full-length sequences: past a sequence's end ONNX zeroes Y, parity's cells carry the
    // state.
    for (int64_t length : ctx.ConstantInts(node.In(4), "sequence_lens")) {
      PARITY_ENFORCE(length == s.t, ErrorKind::kBadArgument, "sequence_lens ", length,
                     " shorter than T = ", s.t,
                     " (ONNX zeroes Y past a sequence's end, parity's cells carry the state)");
    }
  }
  s.x = node.In(0);
  if (s.batch_major) {
    s.x = ctx.Temp(node.In(0));
    ctx.Emit("Transpose", {node.In(0)}, {s.x}).Ints("axes", {1, 0, 2});
  }
  return s;
}

// seq_lengths [N] = T (every sequence full length), int32 as the cells take it.
std::string FullLengths(ImportContext& ctx, const Sequence& s) {
  const std::string lengths = ctx.Temp("seq_lengths");
  Fill(ctx, lengths, {s.n}, static_cast<double>(s.t), DataType::kInt32);
  return lengths;
}

// Input `i` (an initial state [1, N, H]) when given, else zeros of that shape.
std::string InitialState(ImportContext& ctx, const Node& node, int i, const Sequence& s,
                         int64_t hidden) {
  if (node.HasIn(i)) return node.In(i);
  const std::string zeros = ctx.Temp("initial_state");
  Fill(ctx, zeros, {1, s.n, hidden}, 0.0, s.dtype);
  return zeros;
}

// The builder's [T, N, H] hidden sequence as ONNX's Y [T, 1, N, H] ([N, T, 1, H] batch-major),
// and its [1, N, H] last states as Y_h / Y_c ([N, 1, H] batch-major).
void EmitOutputs(ImportContext& ctx, const Node& node, const Sequence& s,
                 const std::vector<std::string>& states) {
  if (node.HasOut(0)) {
    const std::string y = s.batch_major ? ctx.Temp(node.Out(0)) : node.Out(0);
    ctx.Emit("ExpandDims", {states[0]}, {y}).Ints("dims", {1});
    if (s.batch_major) ctx.Emit("Transpose", {y}, {node.Out(0)}).Ints("axes", {2, 0, 1, 3});
  }
  for (int k = 1; k < static_cast<int>(states.size()); ++k) {
    if (!node.HasOut(k)) continue;
    if (s.batch_major) {
      ctx.Emit("Transpose", {states[k]}, {node.Out(k)}).Ints("axes", {1, 0, 2});
    } else {
      ctx.Emit("Copy", {states[k]}, {node.Out(k)});
    }
  }
}

void PeepholeLstm(ImportContext& ctx, const Node& node, const Sequence& s, int64_t hidden);

void Lstm(ImportContext& ctx, const Node& node) {
  CheckRecurrentForm(node, {"Sigmoid", "Tanh", "Tanh"});
  PARITY_ENFORCE(node.Int("input_forget", 0) == 0, ErrorKind::kBadArgument,
                 "attribute 'input_forget' = 1 (coupled input and forget gates)");
  const int64_t hidden = node.RequiredInt("hidden_size");
  const Sequence s = ReadSequence(ctx, node);
  if (node.HasIn(7)) {
    PeepholeLstm(ctx, node, s, hidden);
    return;
  }
  LstmSpec spec;
  spec.input = s.x;
  spec.dim_in = s.d;
  spec.dim_out = hidden;
  spec.scope = ctx.Temp("lstm");
  spec.forward_only = true;
  spec.seq_lengths = FullLengths(ctx, s);
  spec.hidden_init = InitialState(ctx, node, 5, s, hidden);
  spec.cell_init = InitialState(ctx, node, 6, s, hidden);
  const std::string scope = spec.scope + "/";
  // ONNX's i, o, f, c blocks in LSTMUnit's i, f, o, c order.
  const std::vector<int> ifoc = {0, 2, 1, 3};
  Reorder(ctx, GateBlocks(ctx, DropDirection(ctx, node.In(1)), 4), ifoc, scope + "i2h_w");
  Reorder(ctx, GateBlocks(ctx, DropDirection(ctx, node.In(2)), 4), ifoc, scope + "gates_t_w");
  if (node.HasIn(3)) {
    const auto b = GateBlocks(ctx, DropDirection(ctx, node.In(3)), 8);
    Reorder(ctx, b, ifoc, scope + "i2h_b");
    Reorder(ctx, b, {4, 6, 5, 7}, scope + "gates_t_b");
  } else {
    Fill(ctx, scope + "i2h_b", {4 * hidden}, 0.0, s.dtype);
    Fill(ctx, scope + "gates_t_b", {4 * hidden}, 0.0, s.dtype);
  }
  const LstmOutputs out = parity::Lstm(ctx.net(), spec);
  EmitOutputs(ctx, node, s, {out.hidden_all, out.hidden_last, out.cell_last});
  ctx.Note("LSTM: parity's Lstm builder (gates reordered i, o, f, c -> i, f, o, c)");
}

void Gru(ImportContext& ctx, const Node& node) {
  CheckRecurrentForm(node, {"Sigmoid", "Tanh"});
  const int64_t hidden = node.RequiredInt("hidden_size");
  const Sequence s = ReadSequence(ctx, node);
  GruSpec spec;
  spec.input = s.x;
  spec.dim_in = s.d;
  spec.dim_out = hidden;
  spec.scope = ctx.Temp("gru");
  spec.forward_only = true;
  spec.linear_before_reset = node.Int("linear_before_reset", 0) != 0;
  spec.seq_lengths = FullLengths(ctx, s);
  spec.hidden_init = InitialState(ctx, node, 5, s, hidden);
  const std::string scope = spec.scope + "/";
  // ONNX's z, r, h blocks; GRUUnit's reset, update, output.
  const std::vector<int> rzh = {1, 0, 2};
  Reorder(ctx, GateBlocks(ctx, DropDirection(ctx, node.In(1)), 3), rzh, scope + "i2h_w");
  ctx.Emit("Split", {DropDirection(ctx, node.In(2))},
           {scope + "update_gate_t_w", scope + "reset_gate_t_w", scope + "output_gate_t_w"})
      .Int("axis", 0);
  if (node.HasIn(3)) {
    const auto b = GateBlocks(ctx, DropDirection(ctx, node.In(3)), 6);
    Reorder(ctx, b, rzh, scope + "i2h_b");
    ctx.Emit("Copy", {b[3]}, {scope + "update_gate_t_b"});
    ctx.Emit("Copy", {b[4]}, {scope + "reset_gate_t_b"});
    ctx.Emit("Copy", {b[5]}, {scope + "output_gate_t_b"});
  } else {
    Fill(ctx, scope + "i2h_b", {3 * hidden}, 0.0, s.dtype);
    for (const char* gate : {"update_gate_t_b", "reset_gate_t_b", "output_gate_t_b"}) {
      Fill(ctx, scope + gate, {hidden}, 0.0, s.dtype);
    }
  }
  const GruOutputs out = parity::Gru(ctx.net(), spec);
  EmitOutputs(ctx, node, s, {out.hidden_all, out.hidden_last});
  ctx.Note("GRU: parity's Gru builder (gates reordered z, r, h -> r, z, h)");
}

// One op of a step net being built by hand (the cell net is not the importer's net).
caffe2::OperatorDef* AddCellOp(caffe2::NetDef* cell, const std::string& type,
                               const std::vector<std::string>& inputs,
                               const std::vector<std::string>& outputs) {
  caffe2::OperatorDef* op = cell->add_op();
  op->set_type(type);
  for (const auto& in : inputs) op->add_input(in);
  for (const auto& out : outputs) op->add_output(out);
  return op;
}

void Rnn(ImportContext& ctx, const Node& node) {
  CheckRecurrentForm(node, {"Tanh"});
  const int64_t hidden = node.RequiredInt("hidden_size");
  const Sequence s = ReadSequence(ctx, node);
  const std::string scope = ctx.Temp("rnn");
  auto in_scope = [&](const std::string& name) { return scope + "/" + name; };
  const std::string w = DropDirection(ctx, node.In(1)), r = DropDirection(ctx, node.In(2));
  std::string wb = in_scope("i2h_b"), rb = in_scope("gates_t_b");
  if (node.HasIn(3)) {
    ctx.Emit("Split", {DropDirection(ctx, node.In(3))}, {wb, rb}).Int("axis", 0);
  } else {
    Fill(ctx, wb, {hidden}, 0.0, s.dtype);
    Fill(ctx, rb, {hidden}, 0.0, s.dtype);
  }
  const std::string i2h = in_scope("i2h");
  ctx.Emit("FC", {s.x, w, wb}, {i2h}).Int("axis", 2);

  caffe2::NetDef cell;
  cell.set_name(in_scope("step_net"));
  const std::string input_t = in_scope("input_t"), timestep = in_scope("timestep");
  const std::string h_prev = in_scope("hidden_t_prev"), gates = in_scope("gates_t");
  const std::string hidden_t = in_scope("hidden_t");
  for (const std::string& in : {input_t, timestep, h_prev, r, rb}) cell.add_external_input(in);
  caffe2::Argument* axis = AddCellOp(&cell, "FC", {h_prev, r, rb}, {gates})->add_arg();
  axis->set_name("axis");
  axis->set_i(2);
  AddCellOp(&cell, "Sum", {gates, input_t}, {gates});
  AddCellOp(&cell, "Tanh", {gates}, {hidden_t});
  cell.add_external_output(hidden_t);

  RecurrentNetSpec spec;
  spec.cell_net = cell;
  spec.input = {input_t, i2h};
  spec.initial_cell_inputs = {{h_prev, InitialState(ctx, node, 5, s, hidden)}};
  spec.links = {{h_prev, hidden_t}};
  spec.timestep = timestep;
  spec.scope = scope;
  spec.forward_only = true;
  const RecurrentNetOutputs out = RecurrentNet(ctx.net(), spec);
  EmitOutputs(ctx, node, s, {out.outputs[0], out.outputs[1]});
  ctx.Note("RNN: a RecurrentNetwork of FC, Sum, Tanh");
}

// LSTM with peepholes P [1, 3H] = (Pi, Po, Pf): ONNX's i = s(.. + Pi C_prev), f = s(.. + Pf
// C_prev), o = s(.. + Po C) with the new C. LSTMUnit has no peepholes, so the step net is
// elementary ops on ONNX's own gate order (no reordering): FC(H_prev, R, Rb) + (X W + Wb), Split
// into i, o, f, c; the peephole products; Sigmoid / Tanh; C = f C_prev + i c~; H = o tanh(C).
void PeepholeLstm(ImportContext& ctx, const Node& node, const Sequence& s, int64_t hidden) {
  const std::string scope = ctx.Temp("lstm");
  auto in_scope = [&](const std::string& name) { return scope + "/" + name; };
  const std::string w = DropDirection(ctx, node.In(1)), r = DropDirection(ctx, node.In(2));
  const std::string wb = in_scope("i2h_b"), rb = in_scope("gates_t_b");
  if (node.HasIn(3)) {
    ctx.Emit("Split", {DropDirection(ctx, node.In(3))}, {wb, rb}).Int("axis", 0);
  } else {
    Fill(ctx, wb, {4 * hidden}, 0.0, s.dtype);
    Fill(ctx, rb, {4 * hidden}, 0.0, s.dtype);
  }
  const std::string p_i = in_scope("peephole_i"), p_o = in_scope("peephole_o"),
                    p_f = in_scope("peephole_f");
  ctx.Emit("Split", {DropDirection(ctx, node.In(7))}, {p_i, p_o, p_f}).Int("axis", 0);
  const std::string i2h = in_scope("i2h");
  ctx.Emit("FC", {s.x, w, wb}, {i2h}).Int("axis", 2);

  caffe2::NetDef cell;
  cell.set_name(in_scope("step_net"));
  auto op = [&](const std::string& type, const std::vector<std::string>& inputs,
                const std::vector<std::string>& outputs) {
    return AddCellOp(&cell, type, inputs, outputs);
  };
  const std::string input_t = in_scope("input_t"), timestep = in_scope("timestep");
  const std::string h_prev = in_scope("hidden_t_prev"), c_prev = in_scope("cell_t_prev");
  const std::string hidden_t = in_scope("hidden_t"), cell_t = in_scope("cell_t");
  for (const std::string& in : {input_t, timestep, h_prev, c_prev, r, rb, p_i, p_o, p_f}) {
    cell.add_external_input(in);
  }
  auto n = [&](const std::string& name) { return in_scope(name); };
  caffe2::Argument* axis = op("FC", {h_prev, r, rb}, {n("gates_t")})->add_arg();
  axis->set_name("axis");
  axis->set_i(2);
  op("Sum", {n("gates_t"), input_t}, {n("gates_t")});
  caffe2::Argument* split_axis =
      op("Split", {n("gates_t")}, {n("gate_i"), n("gate_o"), n("gate_f"), n("gate_c")})->add_arg();
  split_axis->set_name("axis");
  split_axis->set_i(2);
  op("Mul", {c_prev, p_i}, {n("peep_i")});
  op("Add", {n("gate_i"), n("peep_i")}, {n("gate_i_peep")});
  op("Sigmoid", {n("gate_i_peep")}, {n("input_gate")});
  op("Mul", {c_prev, p_f}, {n("peep_f")});
  op("Add", {n("gate_f"), n("peep_f")}, {n("gate_f_peep")});
  op("Sigmoid", {n("gate_f_peep")}, {n("forget_gate")});
  op("Tanh", {n("gate_c")}, {n("candidate")});
  op("Mul", {n("forget_gate"), c_prev}, {n("kept")});
  op("Mul", {n("input_gate"), n("candidate")}, {n("added")});
  op("Add", {n("kept"), n("added")}, {cell_t});
  op("Mul", {cell_t, p_o}, {n("peep_o")});
  op("Add", {n("gate_o"), n("peep_o")}, {n("gate_o_peep")});
  op("Sigmoid", {n("gate_o_peep")}, {n("output_gate")});
  op("Tanh", {cell_t}, {n("cell_tanh")});
  op("Mul", {n("output_gate"), n("cell_tanh")}, {hidden_t});
  cell.add_external_output(hidden_t);
  cell.add_external_output(cell_t);

  RecurrentNetSpec spec;
  spec.cell_net = cell;
  spec.input = {input_t, i2h};
  spec.initial_cell_inputs = {{h_prev, InitialState(ctx, node, 5, s, hidden)},
                              {c_prev, InitialState(ctx, node, 6, s, hidden)}};
  spec.links = {{h_prev, hidden_t}, {c_prev, cell_t}};
  spec.timestep = timestep;
  spec.scope = scope;
  spec.forward_only = true;
  const RecurrentNetOutputs out = RecurrentNet(ctx.net(), spec);
  EmitOutputs(ctx, node, s, {out.outputs[0], out.outputs[1], out.outputs[3]});
  ctx.Note("LSTM with peepholes: a RecurrentNetwork of elementary ops");
}

}  // namespace

void AddRnnRules(RuleTable* table) {
  const std::vector<std::string> common = {"hidden_size", "direction", "activations", "clip",
                                           "layout"};
  std::vector<std::string> lstm = common;
  lstm.push_back("input_forget");
  std::vector<std::string> gru = common;
  gru.push_back("linear_before_reset");
  (*table)["LSTM"] = {Lstm, lstm};
  (*table)["GRU"] = {Gru, gru};
  (*table)["RNN"] = {Rnn, common};
}

}  // namespace parity::onnx

// Mutants of RecurrentNetworkGradient (issue 13): the bugs its seed code invites. Each runs on
// recurrent cases built with RecurrentNet / Lstm (core/rnn/recurrent_net.h, rnn_cell.h) whose
// every output has a gradient, so only the gradient oracle's finite differences of the reference's
// unrolled forward run can see them.
#include <random>

#include "core/rnn/recurrent_net.h"
#include "core/rnn/rnn_cell.h"
#include "core/tensor_proto.h"
#include "tests/mutants/mutant_wrap.h"

namespace parity::mutants {
namespace {

caffe2::OperatorDef Op(const std::string& type, std::vector<std::string> in,
                       std::vector<std::string> out) {
  caffe2::OperatorDef op;
  op.set_type(type);
  for (const std::string& i : in) op.add_input(i);
  for (const std::string& o : out) op.add_output(o);
  return op;
}

caffe2::TensorProto Random(const std::string& name, const std::vector<int64_t>& dims,
                           std::mt19937_64* rng, float lo, float hi) {
  caffe2::TensorProto t;
  t.set_name(name);
  t.set_data_type(caffe2::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) {
    t.add_dims(d);
    n *= d;
  }
  std::uniform_real_distribution<float> u(lo, hi);
  for (int64_t i = 0; i < n; ++i) t.add_float_data(u(*rng));
  return t;
}

// test_sum_mul's cell o_t = x_t * (x_t + o_{t-1}) over T in [1, 4], with a [D] initial state
// broadcast over a batch of 2..3: every output has a gradient.
Case SumMulCase(uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int64_t steps = 1 + static_cast<int64_t>(seed % 4), n = 2 + static_cast<int64_t>(seed % 2),
                d = 2 + static_cast<int64_t>(seed % 3);
  Case c;
  c.set_seed(seed);
  caffe2::NetDef cell;
  cell.set_name("cell");
  cell.add_external_input("input_t");
  cell.add_external_input("o_prev");
  *cell.add_op() = Op("Sum", {"input_t", "o_prev"}, {"s"});
  *cell.add_op() = Op("Mul", {"input_t", "s"}, {"o"});
  cell.add_external_output("o");
  RecurrentNetSpec spec;
  spec.cell_net = cell;
  spec.input = {"input_t", "x"};
  spec.initial_cell_inputs = {{"o_prev", "o_init"}};
  spec.links = {{"o_prev", "o"}};
  spec.scope = "rnn";
  spec.outputs_with_grads = {0, 1};
  caffe2::NetDef* net = c.mutable_net();
  net->set_name("sum_mul");
  const RecurrentNetOutputs out = RecurrentNet(net, spec);
  *c.add_inputs() = Random("x", {steps, n, d}, &rng, 0.5f, 1.5f);
  *c.add_inputs() = Random("o_init", {d}, &rng, -1.0f, 1.0f);
  for (const auto& t : c.inputs()) net->add_external_input(t.name());
  for (const std::string& o : out.outputs) net->add_external_output(o);
  return c;
}

// An LSTM (T in [2, 4]) whose step net has parameters, every output with a gradient.
Case LstmCase(uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int64_t steps = 2 + static_cast<int64_t>(seed % 3), n = 2, d = 3, h = 2;
  Case c;
  c.set_seed(seed);
  LstmSpec spec;
  spec.dim_in = d;
  spec.dim_out = h;
  spec.outputs_with_grads = {0, 1, 2, 3};
  caffe2::NetDef* net = c.mutable_net();
  net->set_name("lstm");
  const LstmOutputs out = Lstm(net, spec);
  *c.add_inputs() = Random("input", {steps, n, d}, &rng, -1.0f, 1.0f);
  caffe2::TensorProto lengths;
  lengths.set_name("seq_lengths");
  lengths.set_data_type(caffe2::TensorProto::INT32);
  lengths.add_dims(n);
  for (int64_t i = 0; i < n; ++i) lengths.add_int32_data(static_cast<int32_t>(steps));
  *c.add_inputs() = lengths;
  *c.add_inputs() = Random("hidden_init", {1, n, h}, &rng, -1.0f, 1.0f);
  *c.add_inputs() = Random("cell_init", {1, n, h}, &rng, -1.0f, 1.0f);
  *c.add_inputs() = Random(out.i2h_w, {4 * h, d}, &rng, -1.0f, 1.0f);
  *c.add_inputs() = Random(out.i2h_b, {4 * h}, &rng, -1.0f, 1.0f);
  *c.add_inputs() = Random(out.gates_t_w, {4 * h, h}, &rng, -1.0f, 1.0f);
  *c.add_inputs() = Random(out.gates_t_b, {4 * h}, &rng, -1.0f, 1.0f);
  for (const auto& t : c.inputs()) net->add_external_input(t.name());
  for (const std::string& o : {out.hidden_all, out.hidden_last, out.cell_all, out.cell_last}) {
    net->add_external_output(o);
  }
  return c;
}

}  // namespace

void AddRnnMutants(std::vector<Entry>* out) {
  auto add = [out](Mutant m, Wrap w) { out->push_back({std::move(m), std::move(w)}); };
  {
    Wrap w;
    // The gradient of h_t linked to row t of the state gradient instead of row t + 1.
    w.edit = [](const Operator&, caffe2::OperatorDef* def) {
      std::vector<int64_t> offsets = IntsArg(*def, "backward_link_offset");
      for (int64_t& o : offsets) o = o == 1 ? 0 : o;
      SetInts(def, "backward_link_offset", offsets);
    };
    Mutant m = M("RNN_BACKWARD_LINK_OFFSET", "RecurrentNetworkGradient", "gradient", "rnn",
                 "the backward link of an output's gradient has offset 0 instead of 1");
    m.build = SumMulCase;
    add(m, w);
  }
  {
    Wrap w;
    // A [D] initial state's gradient taken from the first batch row instead of summed over all.
    w.after = [](Operator& self) {
      const caffe2::OperatorDef& def = self.def();
      std::vector<std::string> names;
      for (const auto& arg : def.arg()) {
        if (arg.name() == "recurrent_states")
          names.assign(arg.strings().begin(), arg.strings().end());
      }
      const std::vector<int64_t> ids = IntsArg(def, "initial_recurrent_state_ids");
      const int64_t grads = static_cast<int64_t>(IntsArg(def, "outputs_with_grads").size());
      const int64_t params = static_cast<int64_t>(IntsArg(def, "param").size());
      for (size_t i = 0; i < ids.size() && i < names.size(); ++i) {
        const Tensor& init = self.Input(static_cast<int>(grads + ids[i]));
        if (init.ndim() != 1) continue;
        const Tensor& g = self.workspace()->GetBlobOrThrow(names[i] + "_grad")->GetTensor();
        float* o = FloatOutput(self, static_cast<int>(1 + params + i));
        for (int64_t k = 0; k < init.numel(); ++k) o[k] = g.data<float>()[k];
      }
    };
    Mutant m = M("RNN_INITIAL_STATE_NOT_SUMMED", "RecurrentNetworkGradient", "gradient", "rnn",
                 "a [D] initial state's gradient is batch row 0's, not the sum over the batch");
    m.build = SumMulCase;
    add(m, w);
  }
  {
    Wrap w;
    // Each step's parameter gradient overwrites the one before instead of adding to it: the step
    // net writes the output directly, and what is summed in is a zero.
    w.edit = [](const Operator& self, caffe2::OperatorDef* def) {
      const std::vector<int64_t> params = IntsArg(*def, "param");
      const int64_t grads = static_cast<int64_t>(IntsArg(*def, "outputs_with_grads").size());
      std::vector<std::string> decoys;
      caffe2::NetDef backward;
      for (auto& arg : *def->mutable_arg()) {
        if (arg.name() == "backward_step_net") backward = arg.n();
      }
      std::vector<caffe2::OperatorDef> zeros;
      for (size_t i = 0; i < params.size(); ++i) {
        const std::string decoy = self.OutputName(static_cast<int>(1 + i)) + "_mutant";
        decoys.push_back(decoy);
        zeros.push_back(
            Op("ConstantFill", {self.InputName(static_cast<int>(grads + params[i]))}, {decoy}));
      }
      caffe2::NetDef edited = backward;
      edited.clear_op();
      for (const auto& z : zeros) *edited.add_op() = z;
      for (const auto& op : backward.op()) *edited.add_op() = op;
      for (auto& arg : *def->mutable_arg()) {
        if (arg.name() == "backward_step_net") *arg.mutable_n() = edited;
        if (arg.name() == "param_grads") {
          arg.clear_strings();
          for (const std::string& d : decoys) arg.add_strings(d);
        }
      }
    };
    Mutant m = M("RNN_PARAM_GRAD_NOT_ACCUMULATED", "RecurrentNetworkGradient", "gradient", "rnn",
                 "a step net parameter's gradient is the first timestep's only (no _tmpstep + "
                 "Sum accumulation over the steps)");
    m.build = LstmCase;
    add(m, w);
  }
}

}  // namespace parity::mutants

// parity rnn lstm|gru --T T --N N --D D --H H [--layers L] [--scope S] [--forget-bias F] [--seed K]
//     [--forward-only] [--memory-optimization] [--linear-before-reset] -o NET.pbtxt --init
//     INIT.pbtxt
//     [--inputs FILE]
//
// Builds an LSTM or a GRU with the cell builders (core/rnn/rnn_cell.h), named as Caffe2's rnn_cell
// names them: NET reads `input` [T, N, D], `seq_lengths` [N] int32, `hidden_init` (and, for the
// LSTM, `cell_init`) [1, N, H] and the parameters, and outputs <scope>/hidden_t_all,
// <scope>/hidden_t_last (and <scope>/cell_t_all, <scope>/cell_t_last). INIT fills the parameters
// with GivenTensorFill (values uniform in [-1/sqrt(H), 1/sqrt(H)] from --seed, as torch.nn.LSTM and
// torch.nn.GRU initialize). With --inputs, example inputs (random input, full-length sequences,
// zero states) are written for `parity run NET --init INIT --input FILE`. Layer l > 0 of a stack
// reads layer l - 1's hidden_t_all and has its own scope <scope>_<l> and initial states
// hidden_init_<l> (cell_init_<l>).
#include <cmath>
#include <iostream>
#include <random>
#include <sstream>
#include <string>

#include "core/io.h"
#include "core/proto/error.h"
#include "core/rnn/rnn_cell.h"
#include "core/tensor.h"
#include "core/tensor_proto.h"
#include "tools/command.h"
#include "tools/output_files.h"

namespace parity::tools {
namespace {

struct RnnOptions {
  std::string cell;
  int64_t steps = 0, batch = 0, dim_in = 0, hidden = 0, layers = 1;
  std::string scope;
  float forget_bias = 0.0f;
  uint64_t seed = 0;
  bool forward_only = false;
  bool memory_optimization = false;
  bool linear_before_reset = false;
  std::string net_path, init_path, inputs_path;
};

caffe2::OperatorDef GivenTensorFill(const std::string& name, const std::vector<int64_t>& dims,
                                    std::mt19937_64* rng, float bound) {
  caffe2::OperatorDef fill;
  fill.set_type("GivenTensorFill");
  fill.add_output(name);
  caffe2::Argument* shape = fill.add_arg();
  shape->set_name("shape");
  int64_t count = 1;
  for (int64_t d : dims) {
    shape->add_ints(d);
    count *= d;
  }
  caffe2::Argument* values = fill.add_arg();
  values->set_name("values");
  std::uniform_real_distribution<float> uniform(-bound, bound);
  for (int64_t i = 0; i < count; ++i) values->add_floats(uniform(*rng));
  return fill;
}

caffe2::TensorProto FloatInput(const std::string& name, const std::vector<int64_t>& dims,
                               std::mt19937_64* rng, bool zeros) {
  caffe2::TensorProto t;
  t.set_name(name);
  t.set_data_type(caffe2::TensorProto::FLOAT);
  int64_t count = 1;
  for (int64_t d : dims) {
    t.add_dims(d);
    count *= d;
  }
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int64_t i = 0; i < count; ++i) t.add_float_data(zeros ? 0.0f : normal(*rng));
  return t;
}

// One layer of the chosen cell; its parameters are appended to `parameters`, its outputs (in the
// order of the net's external outputs) returned.
std::vector<std::string> AddLayer(const RnnOptions& o, caffe2::NetDef* net,
                                  const std::string& input, int64_t dim_in,
                                  const std::string& scope,
                                  const std::vector<std::string>& initial_states,
                                  std::vector<RnnParameter>* parameters) {
  if (o.cell == "lstm") {
    LstmSpec spec;
    spec.input = input;
    spec.hidden_init = initial_states[0];
    spec.cell_init = initial_states[1];
    spec.dim_in = dim_in;
    spec.dim_out = o.hidden;
    spec.scope = scope;
    spec.forget_bias = o.forget_bias;
    spec.forward_only = o.forward_only;
    spec.memory_optimization = o.memory_optimization;
    // Every output may carry a gradient (Caffe2's default is hidden_t_all only), so `parity
    // check` and `parity autodiff` work whichever outputs a loss reads.
    spec.outputs_with_grads = {0, 1, 2, 3};
    const LstmOutputs out = Lstm(net, spec);
    parameters->insert(parameters->end(), out.parameters.begin(), out.parameters.end());
    return {out.hidden_all, out.hidden_last, out.cell_all, out.cell_last};
  }
  GruSpec spec;
  spec.input = input;
  spec.hidden_init = initial_states[0];
  spec.dim_in = dim_in;
  spec.dim_out = o.hidden;
  spec.scope = scope;
  spec.linear_before_reset = o.linear_before_reset;
  spec.forward_only = o.forward_only;
  spec.memory_optimization = o.memory_optimization;
  spec.outputs_with_grads = {0, 1};
  const GruOutputs out = Gru(net, spec);
  parameters->insert(parameters->end(), out.parameters.begin(), out.parameters.end());
  return {out.hidden_all, out.hidden_last};
}

// Stacked layers beyond this are no model anyone trains; the net grows by a dozen ops a layer.
constexpr int64_t kMaxLayers = 1024;
// Every value the command writes (parameters, example inputs) lives in protobuf messages before it
// is written, and a text file spends about 12 bytes on each: 2^28 values is a 3 GiB file.
constexpr double kMaxValuesWritten = double{1 << 28};

// A count as a whole number where one fits, else in scientific notation.
std::string CountString(double count) {
  if (count < 9e18) return std::to_string(static_cast<int64_t>(count));
  std::ostringstream out;
  out << count;
  return out.str();
}

// Refuses sizes the command cannot write before it allocates anything, naming the flags: with the
// flags each within [1, 2^20], their products still reach 2^60 values.
void CheckRnnSizes(const RnnOptions& o) {
  PARITY_ENFORCE(std::isfinite(o.forget_bias), ErrorKind::kBadArgument,
                 "parity rnn: --forget-bias must be a finite number, got ", o.forget_bias);
  PARITY_ENFORCE(o.layers <= kMaxLayers, ErrorKind::kBadArgument, "parity rnn: --layers ",
                 o.layers, " is over the limit of ", kMaxLayers);
  const double gates = o.cell == "lstm" ? 4 : 3;
  const double steps = o.steps, batch = o.batch, dim_in = o.dim_in, hidden = o.hidden;
  const double input = steps * batch * dim_in;
  const double states = (o.cell == "lstm" ? 2 : 1) * batch * hidden;
  // Per layer: the input projection W [gates*H, D_l] and b, the recurrent W [gates*H, H] and b.
  const double first_layer = gates * hidden * (dim_in + hidden + 2);
  const double later_layer = gates * hidden * (2 * hidden + 2);
  const double total = input + o.layers * states + first_layer + (o.layers - 1) * later_layer;
  const double largest = std::max({input, first_layer, later_layer});
  const double cap_values = static_cast<double>(MaxAllocationBytes()) / sizeof(float);
  PARITY_ENFORCE(largest <= cap_values && total <= kMaxValuesWritten, ErrorKind::kResourceLimit,
                 "parity rnn: --T ", o.steps, " --N ", o.batch, " --D ", o.dim_in, " --H ",
                 o.hidden, " --layers ", o.layers, " make ", CountString(total),
                 " values to write (the input alone T*N*D = ", CountString(input),
                 "); the limit is ", CountString(kMaxValuesWritten), " values, and ",
                 CountString(cap_values),
                 " in one tensor (PARITY_MAX_ALLOC_BYTES)");
}

int BuildRnn(const RnnOptions& o) {
  PARITY_ENFORCE(o.cell == "lstm" || o.cell == "gru", ErrorKind::kBadArgument, "parity rnn: cell '",
                 o.cell, "' is not supported (lstm and gru are)");
  PARITY_ENFORCE(o.cell == "lstm" || o.forget_bias == 0.0f, ErrorKind::kBadArgument,
                 "parity rnn gru: --forget-bias applies to the LSTM only (Caffe2's GRUCell ignores "
                 "it)");
  PARITY_ENFORCE(o.cell == "gru" || !o.linear_before_reset, ErrorKind::kBadArgument,
                 "parity rnn lstm: --linear-before-reset applies to the GRU only");
  for (const auto& [flag, value] :
       std::vector<std::pair<const char*, int64_t>>{{"--T", o.steps},
                                                    {"--N", o.batch},
                                                    {"--D", o.dim_in},
                                                    {"--H", o.hidden},
                                                    {"--layers", o.layers}}) {
    PARITY_ENFORCE(value >= 1 && value <= (1 << 20), ErrorKind::kBadArgument, "parity rnn: ", flag,
                   " must be in [1, 2^20], got ", value);
  }
  CheckRnnSizes(o);
  // Three outputs: two naming one file would keep only the last one written.
  RefuseSharedFiles({{"-o", o.net_path}, {"--init", o.init_path}, {"--inputs", o.inputs_path}}, {});
  const std::string scope = o.scope.empty() ? o.cell : o.scope;
  caffe2::NetDef net, init;
  net.set_name(scope);
  init.set_name(scope + "_init");
  std::mt19937_64 rng(o.seed);
  const float bound = 1.0f / std::sqrt(static_cast<float>(o.hidden));
  std::vector<caffe2::TensorProto> inputs;
  inputs.push_back(FloatInput("input", {o.steps, o.batch, o.dim_in}, &rng, false));
  caffe2::TensorProto lengths;
  lengths.set_name("seq_lengths");
  lengths.set_data_type(caffe2::TensorProto::INT32);
  lengths.add_dims(o.batch);
  for (int64_t n = 0; n < o.batch; ++n) lengths.add_int32_data(static_cast<int32_t>(o.steps));
  inputs.push_back(lengths);
  net.add_external_input("input");
  net.add_external_input("seq_lengths");

  std::string layer_input = "input";
  int64_t layer_dim = o.dim_in;
  std::vector<std::string> outputs;
  for (int64_t l = 0; l < o.layers; ++l) {
    const std::string suffix = l == 0 ? "" : "_" + std::to_string(l);
    std::vector<std::string> initial_states = {"hidden_init" + suffix};
    if (o.cell == "lstm") initial_states.push_back("cell_init" + suffix);
    std::vector<RnnParameter> parameters;
    outputs =
        AddLayer(o, &net, layer_input, layer_dim, scope + suffix, initial_states, &parameters);
    for (const std::string& state : initial_states) {
      net.add_external_input(state);
      inputs.push_back(FloatInput(state, {1, o.batch, o.hidden}, &rng, true));
    }
    for (const RnnParameter& p : parameters) {
      *init.add_op() = GivenTensorFill(p.name, p.dims, &rng, bound);
      net.add_external_input(p.name);
    }
    layer_input = outputs[0];
    layer_dim = o.hidden;
  }
  for (const std::string& name : outputs) net.add_external_output(name);
  // Every file or none: a failing --inputs must not leave a new net beside an old init net.
  std::vector<std::pair<std::string, std::string>> files = {
      {o.net_path, ProtoFileBytes(o.net_path, net)}, {o.init_path, ProtoFileBytes(o.init_path, init)}};
  if (!o.inputs_path.empty()) files.emplace_back(o.inputs_path, TensorFileBytes(o.inputs_path, inputs));
  WriteFilesAtomic(files);
  std::cerr << "wrote " << o.net_path << " (" << net.op_size() << " ops) and " << o.init_path
            << " (" << init.op_size() << " parameter fills)\n";
  if (!o.inputs_path.empty()) {
    std::cerr << "wrote " << inputs.size() << " example inputs to " << o.inputs_path << "\n";
  }
  return kExitClean;
}

PARITY_REGISTER_COMMAND(Command{
    "rnn", "Build an LSTM or a GRU with Caffe2's rnn_cell layout (a net and its init net)",
    [](CLI::App* app) {
      app->footer(Examples({
          {"parity rnn lstm --T 50 --N 32 --D 256 --H 256 -o lstm.pbtxt --init lstm_init.pbtxt "
           "--inputs example.pb",
           "an LSTM and its init net, with example inputs for parity run --input"},
          {"parity rnn gru --T 8 --N 2 --D 4 --H 3 --linear-before-reset -o gru.pbtxt --init "
           "gru_init.pbtxt",
           "a GRU in cuDNN's variant"},
      }));
      auto o = std::make_shared<RnnOptions>();
      app->add_option("cell", o->cell, "lstm or gru")->required();
      app->add_option("--T", o->steps, "sequence length")->required();
      app->add_option("--N", o->batch, "batch size")->required();
      app->add_option("--D", o->dim_in, "input size")->required();
      app->add_option("--H", o->hidden, "hidden size")->required();
      app->add_option("--layers", o->layers, "stacked layers (default 1)");
      app->add_option("--scope", o->scope, "name scope (default: the cell's name)");
      app->add_option("--forget-bias", o->forget_bias,
                      "LSTM: added to the forget gate (default 0)");
      app->add_option("--seed", o->seed, "seed of the parameter values")->check(kWholeNumber);
      app->add_flag("--forward-only", o->forward_only, "no backward step net");
      app->add_flag("--memory-optimization", o->memory_optimization,
                    "recompute the gates on the backward pass instead of keeping them");
      app->add_flag("--linear-before-reset", o->linear_before_reset,
                    "GRU: apply the reset gate after the hidden-to-output FC (cuDNN's variant)");
      app->add_option("-o,--output", o->net_path, "the net (.pbtxt or .pb)")->required();
      app->add_option("--init", o->init_path, "the init net filling the parameters")->required();
      app->add_option("--inputs", o->inputs_path,
                      "also write example inputs here (TensorProtos, for parity run --input)");
      return [o] { return BuildRnn(*o); };
    }});

}  // namespace
}  // namespace parity::tools

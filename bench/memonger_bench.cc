// Memonger (core/transforms/memonger.h) on the nets it is for: what it saves, what it costs.
//
//   BM_ConvNet/plain|shared        a VGG-style block net (8 x 3 x 64 x 64: Conv 32, Relu, Conv 32,
//                                  Relu, MaxPool, Conv 64, Relu, Conv 64, Relu, MaxPool, FC 10),
//                                  before and after optimize_inference_for_dag
//   BM_LstmNet/plain|shared        two stacked LSTMs (rnn_cell.h, T=50, N=32, D=H=256) between a
//                                  Tanh and a sum over time, forward only, the same
//   BM_LstmTraining/plain|shared   the same net with its backward pass (loss = SumElements of the
//                                  sigmoid of the sum), before and after share_grad_blobs
//   BM_PassSpeed/ops:1000          optimize_inference_for_dag itself on a 1,000-op chain
//
// Counters: activation_MB (every blob the net writes that is not external), shared_before_MB and
// shared_after_MB (the blobs the pass shares, each its own tensor vs one tensor per shared name as
// large as its largest member: Caffe2's memonger.compute_statistics), blobs (distinct names).
// The peer of each shared run is its plain run in the same binary: the time ratio shows what
// sharing costs at run time (a write into a buffer another blob left behind, reallocated when
// too small).
//
//   bazel run -c opt //bench:memonger_bench
#include <benchmark/benchmark.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/grad/backward.h"
#include "core/net.h"
#include "core/rnn/rnn_cell.h"
#include "core/transforms/memonger.h"
#include "core/transforms/net_edits.h"
#include "core/transforms/pass.h"
#include "core/workspace.h"

namespace parity {
namespace {

using transforms::TransformedNet;

caffe2::OperatorDef Op(const std::string& type, const std::vector<std::string>& inputs,
                       const std::vector<std::string>& outputs,
                       const std::map<std::string, int64_t>& ints = {}) {
  caffe2::OperatorDef op;
  op.set_type(type);
  for (const auto& in : inputs) op.add_input(in);
  for (const auto& out : outputs) op.add_output(out);
  for (const auto& [name, value] : ints) {
    caffe2::Argument* arg = op.add_arg();
    arg->set_name(name);
    arg->set_i(value);
  }
  return op;
}

struct BenchNet {
  caffe2::NetDef net;
  std::map<std::string, std::vector<int64_t>> float_inputs;
  std::map<std::string, std::vector<int32_t>> int_inputs;
};

void Feed(const BenchNet& b, Workspace* ws) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-0.1f, 0.1f);
  for (const auto& [name, dims] : b.float_inputs) {
    Tensor* t = ws->CreateTensor(name);
    t->Resize(dims);
    float* data = t->mutable_data<float>();
    for (int64_t i = 0; i < t->numel(); ++i) data[i] = dist(gen);
  }
  for (const auto& [name, values] : b.int_inputs) {
    Tensor* t = ws->CreateTensor(name);
    t->Resize({static_cast<int64_t>(values.size())});
    int32_t* data = t->mutable_data<int32_t>();
    for (size_t i = 0; i < values.size(); ++i) data[i] = values[i];
  }
}

void DeclareInputs(BenchNet* b) {
  for (const auto& [name, dims] : b->float_inputs) b->net.add_external_input(name);
  for (const auto& [name, values] : b->int_inputs) b->net.add_external_input(name);
}

BenchNet ConvNet() {
  BenchNet b;
  b.net.set_name("conv_net");
  b.float_inputs["data"] = {8, 3, 64, 64};
  std::string x = "data";
  int64_t channels = 3;
  for (int64_t width : {32, 64}) {
    for (int conv = 0; conv < 2; ++conv) {
      const std::string name = "conv" + std::to_string(width) + "_" + std::to_string(conv);
      b.float_inputs[name + "_w"] = {width, channels, 3, 3};
      b.float_inputs[name + "_b"] = {width};
      *b.net.add_op() =
          Op("Conv", {x, name + "_w", name + "_b"}, {name}, {{"kernel", 3}, {"pad", 1}});
      *b.net.add_op() = Op("Relu", {name}, {name + "_relu"});
      x = name + "_relu";
      channels = width;
    }
    *b.net.add_op() = Op("MaxPool", {x}, {x + "_pool"}, {{"kernel", 2}, {"stride", 2}});
    x += "_pool";
  }
  b.float_inputs["fc_w"] = {10, 64 * 16 * 16};
  b.float_inputs["fc_b"] = {10};
  *b.net.add_op() = Op("FC", {x, "fc_w", "fc_b"}, {"logits"});
  DeclareInputs(&b);
  b.net.add_external_output("logits");
  return b;
}

constexpr int64_t kSteps = 50, kBatch = 32, kWidth = 256;

BenchNet LstmNet(bool training) {
  BenchNet b;
  b.net.set_name("lstm_net");
  b.float_inputs["raw"] = {kSteps, kBatch, kWidth};
  b.int_inputs["seq_lengths"] = std::vector<int32_t>(kBatch, kSteps);
  *b.net.add_op() = Op("Tanh", {"raw"}, {"x"});
  std::string x = "x";
  std::vector<std::string> params;
  for (int layer = 0; layer < 2; ++layer) {
    LstmSpec spec;
    spec.input = x;
    spec.scope = "lstm" + std::to_string(layer);
    spec.hidden_init = spec.scope + "_h0";
    spec.cell_init = spec.scope + "_c0";
    spec.dim_in = kWidth;
    spec.dim_out = kWidth;
    spec.forward_only = !training;
    b.float_inputs[spec.hidden_init] = {1, kBatch, kWidth};
    b.float_inputs[spec.cell_init] = {1, kBatch, kWidth};
    const LstmOutputs out = Lstm(&b.net, spec);
    for (const RnnParameter& p : out.parameters) {
      b.float_inputs[p.name] = p.dims;
      params.push_back(p.name);
    }
    x = out.hidden_all;
  }
  caffe2::OperatorDef sum = Op("ReduceSum", {x}, {"summed"}, {{"keepdims", 0}});
  caffe2::Argument* axes = sum.add_arg();
  axes->set_name("axes");
  axes->add_ints(0);
  *b.net.add_op() = sum;
  *b.net.add_op() = Op("Sigmoid", {"summed"}, {"squashed"});
  *b.net.add_op() = Op("SumElements", {"squashed"}, {"loss"});
  DeclareInputs(&b);
  b.net.add_external_output("loss");
  if (training) {
    const auto grads = AddGradientOperators(&b.net, {{"loss", ""}});
    for (const auto& p : params) b.net.add_external_output(grads.at(p));
  }
  return b;
}

std::set<std::string> Names(const caffe2::NetDef& net) {
  std::set<std::string> names;
  for (const auto& op : net.op()) {
    names.insert(op.input().begin(), op.input().end());
    names.insert(op.output().begin(), op.output().end());
  }
  return names;
}

// Sets the counters from one run of the plain net.
void MemoryCounters(benchmark::State& state, const BenchNet& b, const std::string& pass) {
  Workspace ws;
  Feed(b, &ws);
  ws.RunNetOnce(b.net);
  const std::set<std::string> external(b.net.external_input().begin(),
                                       b.net.external_input().end());
  auto bytes = [&ws](const std::string& blob) {
    const Blob* held = ws.GetBlob(blob);
    return held != nullptr && held->IsTensor() ? static_cast<double>(held->GetTensor().nbytes())
                                               : 0.0;
  };
  double activations = 0;
  for (const auto& blob : Names(b.net)) {
    if (!external.count(blob)) activations += bytes(blob);
  }
  TransformedNet t;
  t.predict = b.net;
  const auto shareable = [&pass](const std::string& blob) {
    return pass != "share_grad_blobs" || blob.find("_grad") != std::string::npos;
  };
  const auto assignments = transforms::ComputeBlobRecycling(
      b.net, transforms::ComputeLiveRanges(b.net, shareable), "", transforms::NamesIn(t));
  const transforms::SharingStatistics stats = transforms::ComputeSharingStatistics(
      assignments, [&bytes](const std::string& blob) { return static_cast<int64_t>(bytes(blob)); });
  constexpr double kMB = 1024.0 * 1024.0;
  state.counters["activation_MB"] = activations / kMB;
  state.counters["shared_before_MB"] = stats.before_bytes / kMB;
  state.counters["shared_after_MB"] = stats.after_bytes / kMB;
}

void RunNet(benchmark::State& state, const BenchNet& b, const std::string& pass, bool shared) {
  TransformedNet t;
  t.predict = b.net;
  if (shared) t = transforms::ApplyPasses(t, {pass});
  Workspace ws;
  Feed(b, &ws);
  std::unique_ptr<NetBase> net = CreateNetForDef(t.predict, &ws);
  net->Run();  // buffers allocated before timing
  for (auto _ : state) net->Run();
  MemoryCounters(state, b, pass);
  state.counters["blobs"] = static_cast<double>(Names(t.predict).size());
}

void BM_ConvNet(benchmark::State& state) {
  RunNet(state, ConvNet(), "optimize_inference_for_dag", state.range(0) != 0);
}
void BM_LstmNet(benchmark::State& state) {
  RunNet(state, LstmNet(false), "optimize_inference_for_dag", state.range(0) != 0);
}
void BM_LstmTraining(benchmark::State& state) {
  RunNet(state, LstmNet(true), "share_grad_blobs", state.range(0) != 0);
}

void PlainAndShared(benchmark::internal::Benchmark* b) {
  b->ArgName("shared")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_ConvNet)->Apply(PlainAndShared);
BENCHMARK(BM_LstmNet)->Apply(PlainAndShared);
BENCHMARK(BM_LstmTraining)->Apply(PlainAndShared);

void BM_PassSpeed(benchmark::State& state) {
  TransformedNet t;
  t.predict.add_external_input("x0");
  const int64_t ops = state.range(0);
  for (int64_t i = 0; i < ops; ++i) {
    *t.predict.add_op() =
        Op(i % 2 ? "Relu" : "Sigmoid", {"x" + std::to_string(i)}, {"x" + std::to_string(i + 1)});
  }
  t.predict.add_external_output("x" + std::to_string(ops));
  for (auto _ : state) {
    benchmark::DoNotOptimize(transforms::ApplyPasses(t, {"optimize_inference_for_dag"}));
  }
}
BENCHMARK(BM_PassSpeed)->ArgName("ops")->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace parity

// Executor overhead: a chain of 1000 Add ops on 1-element tensors (x_{i+1} = x_i + one) through
// SimpleNet, created once and run in the timing loop. The per_op counter is the time per op
// (target: <= 0.3 us). BM_DirectOps runs the same operators without the net, to separate the
// net's own cost from the kernels'.
//
//   bazel run -c opt //bench:executor_bench -- --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <string>

#include "core/net.h"
#include "core/operator.h"
#include "core/workspace.h"

namespace parity {
namespace {

constexpr int kOps = 1000;

caffe2::NetDef AddChain() {
  caffe2::NetDef net;
  net.set_name("chain");
  for (int i = 0; i < kOps; ++i) {
    caffe2::OperatorDef* op = net.add_op();
    op->set_type("Add");
    op->add_input("x" + std::to_string(i));
    op->add_input("one");
    op->add_output("x" + std::to_string(i + 1));
  }
  return net;
}

void FeedInputs(Workspace* ws) {
  for (const char* name : {"x0", "one"}) {
    Tensor* t = ws->CreateTensor(name);
    t->Resize({1});
    t->mutable_data<float>()[0] = 1.0f;
  }
}

void SetPerOp(benchmark::State& state) {
  state.counters["per_op"] = benchmark::Counter(static_cast<double>(state.iterations()) * kOps,
                                                benchmark::Counter::kIsRate |
                                                    benchmark::Counter::kInvert);
}

void BM_SimpleNetAddChain(benchmark::State& state) {
  Workspace ws;
  FeedInputs(&ws);
  NetBase* net = ws.CreateNet(AddChain());
  net->Run();  // outputs allocated once
  for (auto _ : state) net->Run();
  SetPerOp(state);
}
BENCHMARK(BM_SimpleNetAddChain);

void BM_DirectOps(benchmark::State& state) {
  Workspace ws;
  FeedInputs(&ws);
  NetBase* net = ws.CreateNet(AddChain());
  net->Run();
  const auto& ops = net->ops();
  for (auto _ : state) {
    for (const auto& op : ops) op->Run();
  }
  SetPerOp(state);
}
BENCHMARK(BM_DirectOps);

}  // namespace
}  // namespace parity

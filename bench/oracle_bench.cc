// How fast the workbench checks: single-op cases per second per oracle, and 10-op net cases
// through forward + fast gradient (the campaign's inner loop). Cases are pre-generated so only
// checking is timed.
#include <benchmark/benchmark.h>

#include "fuzz/generators.h"
#include "fuzz/spec.h"
#include "oracles/check.h"

namespace parity {
namespace {

std::vector<Case> OpCases(const std::string& type, int count) {
  std::vector<Case> cases;
  const fuzz::OpSpec* spec = fuzz::SpecRegistry::Find(type);
  for (int i = 0; i < count; ++i) cases.push_back(fuzz::SampleCase(fuzz::OpCaseGen(*spec), i + 1));
  return cases;
}

std::vector<Case> NetCases(int ops, int count) {
  fuzz::NetGenOptions options;
  options.min_ops = ops;
  options.max_ops = ops;
  std::vector<Case> cases;
  for (int i = 0; i < count; ++i) cases.push_back(fuzz::SampleCase(fuzz::NetCaseGen(options), i + 1));
  return cases;
}

void CheckCases(benchmark::State& state, const std::vector<Case>& cases,
                const std::vector<std::string>& oracle_names) {
  oracles::CheckRequest request;
  request.oracles = oracle_names;
  request.tolerance = "loose";
  size_t next = 0;
  int64_t findings = 0;
  for (auto _ : state) {
    const Case& c = cases[next++ % cases.size()];
    findings += oracles::Findings(oracles::CheckCase(c, request)).size();
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["cases/s"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate);
  state.counters["findings"] = static_cast<double>(findings);
}

void BM_SingleOp(benchmark::State& state, const std::string& type, const std::string& oracle) {
  static std::map<std::string, std::vector<Case>> cache;
  auto& cases = cache[type];
  if (cases.empty()) cases = OpCases(type, 64);
  CheckCases(state, cases, {oracle});
}

void BM_Net10(benchmark::State& state, bool with_gradient) {
  static std::vector<Case> cases = NetCases(10, 64);
  std::vector<std::string> oracle_names = {"forward"};
  if (with_gradient) oracle_names.push_back("gradient");
  CheckCases(state, cases, oracle_names);
}

BENCHMARK_CAPTURE(BM_SingleOp, FC_forward, std::string("FC"), std::string("forward"));
BENCHMARK_CAPTURE(BM_SingleOp, FC_gradient, std::string("FC"), std::string("gradient"));
BENCHMARK_CAPTURE(BM_SingleOp, FC_determinism, std::string("FC"), std::string("determinism"));
BENCHMARK_CAPTURE(BM_SingleOp, FC_roundtrip, std::string("FC"), std::string("roundtrip"));
BENCHMARK_CAPTURE(BM_SingleOp, MatMul_forward, std::string("MatMul"), std::string("forward"));
BENCHMARK_CAPTURE(BM_SingleOp, MatMul_gradient, std::string("MatMul"), std::string("gradient"));
BENCHMARK_CAPTURE(BM_Net10, forward, false);
BENCHMARK_CAPTURE(BM_Net10, forward_and_fast_gradient, true);

}  // namespace
}  // namespace parity

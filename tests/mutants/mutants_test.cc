// The oracles' power, measured: every mutant of the catalogue (tests/mutants/mutants.h) must be
// killed by its oracle within kMaxCases generated cases, and the finding must blame the mutated op.
// Each case is first checked without the mutant: a finding there is a false positive (of the
// oracle, the reference or the case), not a kill. GPU kernel mutants are hunted only where a CUDA
// device is: elsewhere they are skipped, and counted as skipped, never as killed.
#include "tests/mutants/mutants.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

#include "core/operator.h"
#include "core/schema.h"
#include "core/tensor.h"
#include "fuzz/generators.h"
#include "gpu/device.h"
#include "oracles/backend.h"
#include "oracles/backward_localize.h"
#include "oracles/check.h"
#include "oracles/describe.h"

namespace parity::mutants {
namespace {

// Cases sweep RapidCheck's size from 0 to 100 (fuzz::SizeForSeed), so some are a single element;
// a mutant that needs one input value in a narrow band (Cast rounding vs truncating) may need a
// few dozen. The hunt stops at the kill, so the budget costs only the mutants that survive.
constexpr uint64_t kMaxCases = 100;

struct Result {
  std::string name, op_type, oracle;
  int cases = 0;  // cases run until the kill (or all of them)
  bool killed = false;
  bool skipped = false;     // a GPU mutant without a CUDA device
  std::string blamed;       // blamed op type of the killing finding
  std::string error_class;  // its error class ("value mismatch", "error mismatch", ...)
  std::string problem;      // why the mutant counts as not killed / the test fails
};

// A maker's bug must be named as its op's maker, a builder's as wiring (the backward net both
// engines run alike is checked against the truth: oracles/backward_localize.h); every other
// mutant's finding must name its op or the op's gradient op, or the op it says it is blamed as.
bool BlameFits(const Mutant& m, const std::string& blamed, const std::string& error_class) {
  if (!m.blamed_as.empty()) return blamed == m.blamed_as;
  if (m.family == "maker") return blamed == m.op_type && error_class == oracles::kGradientMaker;
  // A pass is named with the pipeline it ran in ("pass cse" or "pass dce,cse,ssa_rewrite").
  if (m.family == "transform") {
    const std::string pass = m.op_type.substr(std::string("pass ").size());
    if (blamed.rfind("pass ", 0) != 0) return false;
    const std::string pipeline = "," + blamed.substr(5) + ",";
    return pipeline.find("," + pass + ",") != std::string::npos;
  }
  if (m.family == "backward") return error_class == oracles::kGradientWiring;
  // The determinism oracle sees two executors disagree and cannot say which is wrong.
  if (m.family == "executor") return blamed == m.op_type || error_class == "nondeterministic";
  // RecurrentNetworkGradient runs only in production (the reference checks it by finite
  // differences of the unrolled forward op): found wrong alone, it is named as such.
  if (m.family == "rnn" && error_class == oracles::kGradientOpUnchecked) {
    return blamed == m.op_type;
  }
  return blamed == m.op_type || blamed == m.op_type + "Gradient";
}

Result Hunt(const Mutant& m) {
  Result r{m.name, m.op_type, m.oracle};
  if (m.needs_device() && gpu::DeviceCount() == 0) {
    r.skipped = true;
    return r;
  }
  for (uint64_t seed = 1; seed <= kMaxCases; ++seed) {
    Case c;
    try {
      c = MutantCase(m, seed);
    } catch (const std::exception& e) {
      r.problem = std::string("no cases: ") + e.what();
      return r;
    }
    ++r.cases;
    oracles::CheckRequest request;
    request.oracles = {m.oracle};
    request.tolerance = m.tolerance;
    const OracleVerdict baseline = oracles::CheckCase(c, request).verdicts(0);
    if (baseline.status() == OracleVerdict::FINDING) {
      r.problem = "false positive without the mutant (seed " + std::to_string(seed) +
                  "): " + oracles::DescribeFinding(baseline.finding());
      return r;
    }
    if (baseline.status() == OracleVerdict::NOT_APPLICABLE) continue;
    request.backend = m.backend();
    OracleVerdict mutated;
    {
      MutantScope installed(m);
      // A mutant can be part of the case itself (the net a cell builder makes, the backward
      // step net the makers built for a RecurrentNetwork): the case is drawn again with the
      // mutant installed, as a campaign draws it.
      mutated = oracles::CheckCase(MutantCase(m, seed), request).verdicts(0);
    }
    if (mutated.status() != OracleVerdict::FINDING) continue;
    r.killed = true;
    r.blamed = mutated.finding().blamed_op_type();
    r.error_class = mutated.finding().signature().error_class();
    if (!BlameFits(m, r.blamed, r.error_class)) {
      r.problem = "killed, but the finding blames '" + r.blamed +
                  "': " + oracles::DescribeFinding(mutated.finding());
    }
    return r;
  }
  r.problem = "survived " + std::to_string(kMaxCases) + " cases";
  return r;
}

TEST(Mutants, CatalogueIsLargeAndRegistered) {
  const auto& catalogue = Catalogue();
  EXPECT_GE(catalogue.size(), 80u);
  std::set<std::string> names, families, oracles_used;
  for (const Mutant& m : catalogue) {
    EXPECT_TRUE(names.insert(m.name).second) << "duplicate mutant " << m.name;
    families.insert(m.family);
    oracles_used.insert(m.oracle);
    if (m.install) {
      EXPECT_EQ(m.backend(), "production") << m.name;
      continue;
    }
    if (m.needs_device()) {
      // Its backend is on the device in every build; its kernel exists where CUDA kernels do.
      const oracles::Backend* backend = oracles::FindBackend(m.engine());
      ASSERT_NE(backend, nullptr) << m.engine() << " is not a backend";
      EXPECT_EQ(backend->info().device, "cuda") << m.engine();
      EXPECT_EQ(m.oracle, "device") << m.name;
      if (!gpu::CudaBuild()) continue;
      const auto engines = OperatorRegistry::Engines(m.op_type, kCudaDeviceType);
      EXPECT_NE(std::find(engines.begin(), engines.end(), m.engine()), engines.end())
          << m.engine() << " is not registered for " << m.op_type << " on CUDA";
      EXPECT_NE(std::find(engines.begin(), engines.end(), ""), engines.end())
          << m.op_type << " has no default CUDA kernel to mutate";
      continue;
    }
    const auto engines = OperatorRegistry::Engines(m.op_type, kCpuDeviceType);
    EXPECT_NE(std::find(engines.begin(), engines.end(), m.engine()), engines.end())
        << m.engine() << " is not registered for " << m.op_type;
    EXPECT_NE(std::find(engines.begin(), engines.end(), ""), engines.end())
        << m.op_type << " has no default kernel to mutate";
    EXPECT_NE(oracles::FindBackend(m.engine()), nullptr) << m.engine() << " is not a backend";
  }
  EXPECT_GE(families.size(), 6u);
  EXPECT_EQ(oracles_used,
            (std::set<std::string>{"builder", "determinism", "device", "forward", "gradient",
                                   "roundtrip", "shape", "transform", "validity"}));
}

TEST(Mutants, EveryMutantIsKilledAndBlamed) {
  std::vector<Result> results;
  for (const Mutant& m : Catalogue()) results.push_back(Hunt(m));
  int killed = 0, skipped = 0;
  std::printf("\n%-46s %-20s %-9s %6s  %-20s %s\n", "mutant", "op", "oracle", "cases", "blamed op",
              "error class");
  for (const Result& r : results) {
    killed += r.killed && r.problem.empty();
    skipped += r.skipped;
    std::printf("%-46s %-20s %-9s %6d  %-20s %s\n", r.name.c_str(), r.op_type.c_str(),
                r.oracle.c_str(), r.cases,
                r.skipped  ? "skipped: no CUDA device"
                : r.killed ? r.blamed.c_str()
                           : "SURVIVED",
                r.error_class.c_str());
  }
  std::printf("kill rate: %d / %zu; %d skipped: no CUDA device\n\n", killed,
              results.size() - skipped, skipped);
  for (const Result& r : results) {
    EXPECT_TRUE(r.problem.empty()) << "MUTANT_" << r.name << ": " << r.problem;
  }
  // Exactly the GPU mutants are skipped, and only without a device.
  for (const Result& r : results) {
    const Mutant* m = nullptr;
    for (const Mutant& candidate : Catalogue()) {
      if (candidate.name == r.name) m = &candidate;
    }
    EXPECT_EQ(r.skipped, m->needs_device() && gpu::DeviceCount() == 0) << r.name;
  }
}

// A registry swap lasts exactly as long as its scope: the catalogue's own hunts, and every test
// after them in the process, see the real schema again.
TEST(Mutants, ARegistrySwapIsUndoneWhenItsScopeEnds) {
  const Mutant* cast = nullptr;
  for (const Mutant& m : Catalogue()) {
    if (m.name == "CAST_INFERS_INPUT_DTYPE") cast = &m;
  }
  ASSERT_NE(cast, nullptr);
  caffe2::OperatorDef def;
  def.set_type("Cast");
  def.add_input("x");
  def.add_output("y");
  caffe2::Argument* to = def.add_arg();
  to->set_name("to");
  to->set_i(2);  // INT32
  const std::vector<TensorType> in{TensorType{DataType::kFloat, {3}, true}};
  auto inferred = [&] { return OpSchemaRegistry::Get("Cast").InferShapes(def, in).at(0).dtype; };
  EXPECT_EQ(inferred(), DataType::kInt32);
  {
    MutantScope installed(*cast);
    EXPECT_EQ(inferred(), DataType::kFloat);
  }
  EXPECT_EQ(inferred(), DataType::kInt32);
}

}  // namespace
}  // namespace parity::mutants

// The oracles' power, measured: every mutant of the catalogue (tests/mutants/mutants.h) must be
// killed by its oracle within kMaxCases generated cases, and the finding must blame the mutated op.
// Each case is first checked without the mutant: a finding there is a false positive (of the
// oracle, the reference or the case), not a kill.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

#include "core/operator.h"
#include "core/tensor.h"
#include "fuzz/generators.h"
#include "oracles/describe.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "tests/mutants/mutants.h"

namespace parity::mutants {
namespace {

constexpr uint64_t kMaxCases = 30;

struct Result {
  std::string name, op_type, oracle;
  int cases = 0;             // cases run until the kill (or all of them)
  bool killed = false;
  std::string blamed;        // blamed op type of the killing finding
  std::string error_class;   // its error class ("value mismatch", "error mismatch", ...)
  std::string problem;       // why the mutant counts as not killed / the test fails
};

bool BlameFits(const Mutant& m, const std::string& blamed) {
  return blamed == m.op_type || blamed == m.op_type + "Gradient";
}

Result Hunt(const Mutant& m) {
  Result r{m.name, m.op_type, m.oracle};
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
    request.backend = m.engine();
    const OracleVerdict mutated = oracles::CheckCase(c, request).verdicts(0);
    if (mutated.status() != OracleVerdict::FINDING) continue;
    r.killed = true;
    r.blamed = mutated.finding().blamed_op_type();
    r.error_class = mutated.finding().signature().error_class();
    if (!BlameFits(m, r.blamed)) {
      r.problem = "killed, but the finding blames '" + r.blamed + "': " +
                  oracles::DescribeFinding(mutated.finding());
    }
    return r;
  }
  r.problem = "survived " + std::to_string(kMaxCases) + " cases";
  return r;
}

TEST(Mutants, CatalogueIsLargeAndRegistered) {
  const auto& catalogue = Catalogue();
  EXPECT_GE(catalogue.size(), 24u);
  std::set<std::string> names, families, oracles_used;
  for (const Mutant& m : catalogue) {
    EXPECT_TRUE(names.insert(m.name).second) << "duplicate mutant " << m.name;
    families.insert(m.family);
    oracles_used.insert(m.oracle);
    const auto engines = OperatorRegistry::Engines(m.op_type, kCpuDeviceType);
    EXPECT_NE(std::find(engines.begin(), engines.end(), m.engine()), engines.end())
        << m.engine() << " is not registered for " << m.op_type;
    EXPECT_NE(std::find(engines.begin(), engines.end(), ""), engines.end())
        << m.op_type << " has no default kernel to mutate";
    EXPECT_NE(oracles::FindBackend(m.engine()), nullptr) << m.engine() << " is not a backend";
  }
  EXPECT_GE(families.size(), 6u);
  EXPECT_EQ(oracles_used, (std::set<std::string>{"forward", "gradient"}));
}

TEST(Mutants, EveryMutantIsKilledAndBlamed) {
  std::vector<Result> results;
  for (const Mutant& m : Catalogue()) results.push_back(Hunt(m));
  int killed = 0;
  std::printf("\n%-46s %-20s %-9s %6s  %-20s %s\n", "mutant", "op", "oracle", "cases",
              "blamed op", "error class");
  for (const Result& r : results) {
    killed += r.killed && r.problem.empty();
    std::printf("%-46s %-20s %-9s %6d  %-20s %s\n", r.name.c_str(), r.op_type.c_str(),
                r.oracle.c_str(), r.cases, r.killed ? r.blamed.c_str() : "SURVIVED",
                r.error_class.c_str());
  }
  std::printf("kill rate: %d / %zu\n\n", killed, results.size());
  for (const Result& r : results) {
    EXPECT_TRUE(r.problem.empty()) << "MUTANT_" << r.name << ": " << r.problem;
  }
}

}  // namespace
}  // namespace parity::mutants

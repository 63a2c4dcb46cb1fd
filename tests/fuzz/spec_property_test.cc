// Tests generated from the spec registry (TVM's parametrize_targets, over ops): every registered
// op test spec gets the same suite, so registering a spec is enough for an op to be checked here —
// no hand-written op lists. Each spec's single-op cases pass every applicable oracle through
// CheckCase; a few cases per spec also pass the whole-Jacobian gradient check (vᵀJu can miss
// errors that cancel along a random direction); and what a spec says agrees with the registries.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cctype>
#include <set>
#include <string>

#include "core/grad/gradient.h"
#include "core/operator.h"
#include "fuzz/generators.h"
#include "fuzz/spec.h"
#include "fuzz/testing/op_property.h"
#include "oracles/check.h"
#include "oracles/testing/op_checks.h"

namespace parity::fuzz {
namespace {

constexpr uint64_t kFullJacobianCases = 10;

class SpecSuite : public ::testing::TestWithParam<std::string> {};

TEST_P(SpecSuite, GeneratedCasesPassEveryOracle) {
  const std::string type = GetParam();
  EXPECT_TRUE(rc::check(type + ": generated single-op cases pass every applicable oracle",
                        [&] { CheckOpProperty(type); }));
}

TEST_P(SpecSuite, FullJacobianOnAFewCases) {
  const OpSpec& spec = *SpecRegistry::Find(GetParam());
  for (uint64_t seed = 1; seed <= kFullJacobianCases; ++seed) {
    const Case c = SampleCase(OpCaseGen(spec), seed);
    oracles::CheckRequest request;
    request.oracles = {"gradient"};
    request.full_jacobian = true;
    if (spec.Skips("gradient")) {
      // CheckCase honours the spec: no verdict, and the reason names the op.
      const OracleVerdict verdict = oracles::CheckCase(c, request).verdicts(0);
      EXPECT_EQ(verdict.status(), OracleVerdict::NOT_APPLICABLE) << spec.type();
      EXPECT_EQ(verdict.reason().find("skipped by the op's spec: " + spec.type() + ": "), 0u)
          << verdict.reason();
      continue;
    }
    if (c.grad_inputs_size() == 0) continue;  // e.g. an int32 Add: nothing to differentiate
    const CaseReport report = oracles::CheckCase(c, request);
    const OracleVerdict& verdict = report.verdicts(0);
    // A kink within the step, or an output without a derivative (inf or NaN, e.g. the max of an
    // empty intermediate inside a Do): no verdict, as in the property.
    if (verdict.status() == OracleVerdict::NOT_APPLICABLE &&
        (verdict.reason().rfind("not smooth", 0) == 0 ||
         verdict.reason().rfind("not finite", 0) == 0)) {
      continue;
    }
    EXPECT_TRUE(oracles::AllVerdictsOk(report)) << spec.type() << " seed " << seed;
  }
}

// Every CPU kernel engine registered for the op (IM2COL beside Conv's default DNNL) is drawn by
// its spec, so each kernel meets the oracles: the default kernel under engine "", every other one
// by name (OperatorDef.engine) in some of the spec's cases.
TEST_P(SpecSuite, EveryRegisteredEngineIsDrawn) {
  const std::string type = GetParam();
  const OpSpec& spec = *SpecRegistry::Find(type);
  std::set<std::string> wanted;
  for (const std::string& engine : OperatorRegistry::Engines(type, kCpuDeviceType)) {
    if (engine.empty() || engine == OperatorRegistry::DefaultEngine(type, kCpuDeviceType)) continue;
    if (engine.rfind("MUTANT_", 0) == 0) continue;  // the catalogue's, where it is linked in
    wanted.insert(engine);
  }
  std::set<std::string> drawn = {""};
  for (uint64_t seed = 1; seed <= 200 && drawn.size() <= wanted.size(); ++seed) {
    const Case c = SampleCase(OpCaseGen(spec), seed);
    for (const auto& op : c.net().op()) {
      if (op.type() == type) drawn.insert(op.engine());
    }
  }
  for (const std::string& engine : wanted) {
    EXPECT_TRUE(drawn.count(engine)) << type << "'s spec never asks for engine " << engine;
  }
}

// An op without a gradient maker is never gradient-checked: its spec skips the gradient oracle,
// or its cases mark no input for it (a fill has no input at all).
TEST_P(SpecSuite, OpsWithoutGradientAreNotGradientChecked) {
  const OpSpec& spec = *SpecRegistry::Find(GetParam());
  const GradientEntry* entry = GradientRegistry::Find(spec.type());
  ASSERT_NE(entry, nullptr) << spec.type() << " has no gradient entry";
  if (entry->kind == GradientKind::kMaker || spec.Skips("gradient")) return;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    EXPECT_EQ(SampleCase(OpCaseGen(spec), seed).grad_inputs_size(), 0)
        << spec.type() << " has no gradient maker, but its spec neither skips the gradient "
        << "oracle nor keeps its cases' inputs out of it (seed " << seed << ")";
  }
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

// Evaluated when the tests are registered (after static initialization), so every spec linked
// into the binary is in the list.
INSTANTIATE_TEST_SUITE_P(Specs, SpecSuite, ::testing::ValuesIn(SpecRegistry::Types()), TestName);

}  // namespace
}  // namespace parity::fuzz

#include "oracles/check.h"

#include <chrono>
#include <set>

#include "core/proto/error.h"
#include "oracles/backend.h"
#include "oracles/finding.h"
#include "oracles/op_facts.h"
#include "oracles/oracle.h"

namespace parity::oracles {

const std::vector<std::string>& DefaultOracles() {
  static const auto* oracles =
      new std::vector<std::string>{"forward", "gradient", "determinism", "roundtrip"};
  return *oracles;
}

namespace {

// The backends an oracle runs besides the one under test.
std::vector<std::string> BackendsCompared(const std::string& oracle, const std::string& backend) {
  if (oracle == "forward" || oracle == "gradient") return {backend, kReference, kReferenceF32};
  return {backend};
}

}  // namespace

CaseReport CheckCase(const Case& c, const CheckRequest& request) {
  const std::vector<std::string>& names =
      request.oracles.empty() ? DefaultOracles() : request.oracles;
  for (const std::string& name : names) {
    if (FindOracle(name) == nullptr) {
      std::string known;
      for (const auto& n : OracleNames()) known += (known.empty() ? "" : ", ") + n;
      throw MakeError(ErrorKind::kBadArgument, "unknown oracle '", name, "' (known: ", known, ")");
    }
  }
  OracleOptions options;
  options.backend = &GetBackend(request.backend);
  const std::string tolerance =
      request.tolerance.empty() ? ToleranceForNet(c.net()) : request.tolerance;
  options.tolerance = GetToleranceClass(tolerance);
  options.full_jacobian = request.full_jacobian;
  options.localize = request.localize;

  CaseReport report;
  report.set_seed(c.seed());
  report.set_backend(request.backend);
  report.set_tolerance(tolerance);
  for (const std::string& oracle : names) {
    OracleVerdict* verdict = report.add_verdicts();
    verdict->set_oracle(oracle);
    for (const auto& b : BackendsCompared(oracle, request.backend)) verdict->add_backends(b);
    const std::string skip = SkipReason(c.net(), oracle);
    if (!skip.empty()) {
      verdict->set_status(OracleVerdict::NOT_APPLICABLE);
      verdict->set_reason("skipped by the op's spec: " + skip);
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    OracleResult result;
    try {
      result = RunOracle(oracle, c, options);
    } catch (const Error& error) {
      result.finding = MakeFinding(oracle, c, "oracle error", error.what());
      result.finding->set_error_kind(ErrorKindName(error.kind()));
    }
    verdict->set_seconds(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (result.finding) {
      result.finding->set_backend(request.backend);
      verdict->set_status(OracleVerdict::FINDING);
      *verdict->mutable_finding() = std::move(*result.finding);
    } else if (!result.not_applicable.empty()) {
      verdict->set_status(OracleVerdict::NOT_APPLICABLE);
      verdict->set_reason(result.not_applicable);
    } else {
      verdict->set_status(OracleVerdict::OK);
    }
  }
  return report;
}

std::vector<Finding> Findings(const CaseReport& report) {
  std::vector<Finding> out;
  for (const auto& verdict : report.verdicts()) {
    if (verdict.status() == OracleVerdict::FINDING) out.push_back(verdict.finding());
  }
  return out;
}

int ExitCode(const CaseReport& report) { return Findings(report).empty() ? 0 : 1; }

void CheckTally::Add(const Case& c, const CaseReport& report) {
  ++cases;
  std::set<std::string> types;
  for (const auto& op : c.net().op()) types.insert(op.type());
  for (const auto& type : types) ++by_op[type];
  for (const auto& verdict : report.verdicts()) {
    switch (verdict.status()) {
      case OracleVerdict::NOT_APPLICABLE:
        ++not_applicable[verdict.oracle()];
        break;
      case OracleVerdict::FINDING:
        ++checked[verdict.oracle()];
        ++findings;
        ++by_signature[SignatureKey(verdict.finding().signature())];
        break;
      default:
        ++checked[verdict.oracle()];
    }
  }
}

}  // namespace parity::oracles

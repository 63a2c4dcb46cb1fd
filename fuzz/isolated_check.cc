#include "fuzz/isolated_check.h"

#include <cstdint>
#include <cstring>
#include <sstream>

#include "core/proto/error.h"
#include "oracles/finding.h"

namespace parity::fuzz {

bool IsWorkerOracle(const std::string& oracle) {
  return oracle == "crash" || oracle == "hang" || oracle == "resource";
}

std::string EncodeCheckedCase(const Case& c, const CaseReport& report) {
  Case ops;
  for (const auto& op : c.net().op()) ops.mutable_net()->add_op()->set_type(op.type());
  const std::string ops_bytes = ops.SerializeAsString();
  const uint32_t length = static_cast<uint32_t>(ops_bytes.size());
  std::string out(reinterpret_cast<const char*>(&length), 4);
  out += ops_bytes;
  out += report.SerializeAsString();
  return out;
}

void DecodeCheckedCase(const std::string& bytes, Case* ops, CaseReport* report) {
  uint32_t length = 0;
  PARITY_ENFORCE(bytes.size() >= 4, ErrorKind::kInternal, "a worker's answer is cut short");
  std::memcpy(&length, bytes.data(), 4);
  PARITY_ENFORCE(bytes.size() >= 4 + static_cast<size_t>(length) &&
                     ops->ParseFromArray(bytes.data() + 4, static_cast<int>(length)) &&
                     report->ParseFromArray(bytes.data() + 4 + length,
                                            static_cast<int>(bytes.size() - 4 - length)),
                 ErrorKind::kInternal, "a worker's answer does not parse");
}

Finding OutcomeFinding(const Case& c, const SandboxOutcome& outcome, const std::string& backend,
                       const SandboxLimits& limits) {
  const std::string oracle = OutcomeKindName(outcome.kind);
  std::ostringstream message;
  message << outcome.error_class;
  if (!outcome.detail.empty()) message << " (" << outcome.detail << ")";
  std::string path;
  for (const std::string& op : outcome.op_path) path += (path.empty() ? "" : " > ") + op;
  message << (path.empty() ? " outside any op" : " in " + path);
  Finding finding = oracles::MakeFinding(oracle, c, outcome.error_class, message.str());
  // The worker's exception text and stack come from the engine: keep them writable.
  oracles::MakeStringsUtf8(&finding);
  for (const std::string& frame : outcome.stack) finding.add_stack(frame);
  finding.set_backend(backend);
  finding.set_error_kind(oracle);
  finding.set_case_timeout(limits.case_timeout);
  if (limits.memory_mb > 0) finding.set_case_memory_mb(limits.memory_mb);
  if (!outcome.op_type.empty()) {
    finding.set_blamed_op_type(outcome.op_type);
    finding.set_blamed_op_index(outcome.op_index);
    finding.set_blamed_op_path(path);
    finding.mutable_signature()->set_blamed_op_type(outcome.op_type);
  }
  // Where a signal struck in our code tells two crashes in one op apart; where a loop was
  // interrupted, or an exception was caught, does not.
  if (outcome.kind == SandboxOutcome::Kind::kCrash) {
    for (const std::string& frame : outcome.own_frames) {
      finding.mutable_signature()->add_frames(frame);
    }
  }
  return finding;
}

SandboxLimits LimitsOf(const Finding& finding, SandboxLimits defaults) {
  if (finding.has_case_timeout()) defaults.case_timeout = finding.case_timeout();
  if (finding.case_memory_mb() > 0) defaults.memory_mb = finding.case_memory_mb();
  return defaults;
}

CaseReport CheckCaseIsolated(const Case& c, const oracles::CheckRequest& request,
                             const SandboxLimits& limits) {
  const auto serve = [&](const std::string&) {
    return oracles::CheckCase(c, request).SerializeAsString();
  };
  const SandboxOutcome outcome = RunSandboxed(serve, limits, "");
  CaseReport report;
  if (outcome.kind == SandboxOutcome::Kind::kOk) {
    PARITY_ENFORCE(report.ParseFromString(outcome.response), ErrorKind::kInternal,
                   "a worker's report does not parse");
    return report;
  }
  report.set_seed(c.seed());
  report.set_backend(request.backend);
  OracleVerdict* verdict = report.add_verdicts();
  verdict->set_oracle(OutcomeKindName(outcome.kind));
  verdict->set_status(OracleVerdict::FINDING);
  verdict->add_backends(request.backend);
  *verdict->mutable_finding() = OutcomeFinding(c, outcome, request.backend, limits);
  return report;
}

}  // namespace parity::fuzz

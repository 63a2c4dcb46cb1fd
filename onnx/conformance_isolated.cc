#include "onnx/conformance_isolated.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/proto/error.h"

namespace parity::onnx {
namespace {

using Json = nlohmann::json;

// What the worker's death says, as a failed case's detail.
std::string DeathDetail(const fuzz::SandboxOutcome& outcome, const fuzz::SandboxLimits& limits) {
  std::ostringstream detail;
  switch (outcome.kind) {
    case fuzz::SandboxOutcome::Kind::kHang:
      detail << "the case hung: no answer within " << limits.case_timeout << " s (--case-timeout)";
      break;
    case fuzz::SandboxOutcome::Kind::kResource:
      detail << "the case ran out of resources (" << outcome.error_class << ")";
      break;
    default:
      detail << "the case crashed parity (" << outcome.error_class << ")";
      break;
  }
  if (!outcome.op_path.empty()) {
    detail << " in";
    for (const auto& op : outcome.op_path) detail << " " << op;
  } else {
    detail << " outside any op (importing or reading the case)";
  }
  if (!outcome.detail.empty()) detail << ": " << outcome.detail;
  if (!outcome.own_frames.empty()) {
    detail << "; at";
    const size_t shown = std::min<size_t>(outcome.own_frames.size(), 3);
    for (size_t i = 0; i < shown; ++i) detail << (i ? " < " : " ") << outcome.own_frames[i];
  }
  return detail.str();
}

}  // namespace

std::string EncodeCaseResult(const CaseResult& r) {
  const Json j = {{"name", r.name},
                  {"status", static_cast<int>(r.status)},
                  {"detail", r.detail},
                  {"max_error", r.max_error},
                  {"notes", r.notes},
                  {"op_types", r.op_types},
                  {"unsupported_ops", r.unsupported_ops}};
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

CaseResult DecodeCaseResult(const std::string& bytes) {
  CaseResult r;
  try {
    const Json j = Json::parse(bytes);
    r.name = j.at("name").get<std::string>();
    const int status = j.at("status").get<int>();
    PARITY_ENFORCE(status >= 0 && status <= static_cast<int>(CaseStatus::kUnsupported),
                   ErrorKind::kInternal, "conformance worker: case status ", status);
    r.status = static_cast<CaseStatus>(status);
    r.detail = j.at("detail").get<std::string>();
    r.max_error = j.at("max_error").get<double>();
    r.notes = j.at("notes").get<std::vector<std::string>>();
    r.op_types = j.at("op_types").get<std::vector<std::string>>();
    r.unsupported_ops = j.at("unsupported_ops").get<std::vector<std::string>>();
  } catch (const Json::exception& error) {
    throw MakeError(ErrorKind::kInternal, "conformance worker: a garbled answer: ", error.what());
  }
  return r;
}

IsolatedCaseRunner::IsolatedCaseRunner(const oracles::Backend& backend, fuzz::SandboxLimits limits)
    : backend_(backend), limits_(limits) {}

IsolatedCaseRunner::~IsolatedCaseRunner() = default;

CaseResult IsolatedCaseRunner::operator()(const std::string& case_dir) {
  if (sandbox_ == nullptr || !sandbox_->alive()) {
    const oracles::Backend* backend = &backend_;
    sandbox_ = std::make_unique<fuzz::Sandbox>(
        [backend](const std::string& dir) {
          return EncodeCaseResult(RunCaseOrReport(dir, *backend));
        },
        limits_);
  }
  sandbox_->Send(case_dir);
  const fuzz::SandboxOutcome outcome = sandbox_->Receive();
  if (outcome.kind == fuzz::SandboxOutcome::Kind::kOk) return DecodeCaseResult(outcome.response);
  CaseResult failed;
  failed.name = CaseName(case_dir);
  failed.status = CaseStatus::kFailed;
  failed.detail = DeathDetail(outcome, limits_);
  sandbox_.reset();
  return failed;
}

}  // namespace parity::onnx

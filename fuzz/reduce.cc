#include "fuzz/reduce.h"

#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "core/proto/error.h"
#include "fuzz/case_edits.h"
#include "fuzz/isolated_check.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "oracles/finding.h"

namespace parity::fuzz {
namespace {

// Requests to the reducer's worker: a check of a candidate, or a traced run of it.
constexpr char kCheck = 'C';
constexpr char kTrace = 'T';

// A traced run's outputs travel as a Case whose inputs are named "<op index>/<blob>".
std::string EncodeTrace(const oracles::BackendRun& run) {
  Case out;
  for (const oracles::OpTrace& op : run.trace) {
    for (const auto& [blob, tensor] : op.outputs) {
      caffe2::TensorProto* t = out.add_inputs();
      *t = tensor;
      t->set_name(std::to_string(op.op_index) + "/" + blob);
    }
  }
  return out.SerializeAsString();
}

OpOutputs DecodeTrace(const std::string& bytes, int ops) {
  Case in;
  OpOutputs outputs(static_cast<size_t>(ops));
  if (!in.ParseFromString(bytes)) return outputs;
  for (const auto& tensor : in.inputs()) {
    const size_t slash = tensor.name().find('/');
    const int index = std::atoi(tensor.name().c_str());
    if (slash == std::string::npos || index < 0 || index >= ops) continue;
    outputs[static_cast<size_t>(index)][tensor.name().substr(slash + 1)] = tensor;
  }
  return outputs;
}

class Reducer {
 public:
  Reducer(const Finding& finding, const ReduceOptions& options)
      : key_(oracles::SignatureKey(finding.signature())),
        worker_oracle_(IsWorkerOracle(finding.oracle())),
        options_(options),
        start_(std::chrono::steady_clock::now()) {
    request_.backend = finding.has_backend() ? finding.backend() : oracles::kProduction;
    oracles::GetBackend(request_.backend);  // an unknown name is bad input
    // A crash or hang may happen under any oracle; a discrepancy is its own oracle's.
    if (!worker_oracle_) request_.oracles = {finding.oracle()};
    if (worker_oracle_) options_.limits = LimitsOf(finding, options_.limits);
  }

  ReduceResult Run(const Finding& finding) {
    ReduceResult result;
    result.before = SizeOf(finding.case_());
    std::optional<Finding> holds = Check(finding.case_());
    if (holds) {
      result.reproduced = true;
      best_ = *holds;
      current_ = best_.case_();
      visited_.insert(current_.SerializeAsString());
      Shrink();
    } else {
      best_ = finding;
    }
    result.reduced = best_;
    result.after = SizeOf(best_.case_());
    result.checks = checks_;
    result.kept = kept_;
    result.seconds = Elapsed();
    result.timed_out = timed_out_;
    return result;
  }

 private:
  double Elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  bool OutOfTime() {
    if (Elapsed() >= options_.seconds) timed_out_ = true;
    return timed_out_;
  }

  // The worker answering checks and traces, started on first use and after it dies.
  SandboxOutcome Ask(char kind, const Case& c) {
    if (worker_ == nullptr || !worker_->alive()) {
      const oracles::CheckRequest request = request_;
      worker_ = std::make_unique<Sandbox>(
          [request](const std::string& bytes) {
            Case candidate;
            candidate.ParseFromArray(bytes.data() + 1, static_cast<int>(bytes.size() - 1));
            if (bytes[0] == kTrace) {
              return EncodeTrace(
                  oracles::GetBackend(oracles::kProduction).Run(candidate, {/*trace=*/true}));
            }
            return oracles::CheckCase(candidate, request).SerializeAsString();
          },
          options_.limits);
    }
    worker_->Send(std::string(1, kind) + c.SerializeAsString());
    return worker_->Receive();
  }

  // The candidate's finding with the original's signature, if it has one.
  std::optional<Finding> Check(const Case& c) {
    ++checks_;
    const SandboxOutcome outcome = Ask(kCheck, c);
    if (outcome.kind != SandboxOutcome::Kind::kOk) {
      if (!worker_oracle_) return std::nullopt;  // a new crash is not this finding
      Finding died = OutcomeFinding(c, outcome, request_.backend, options_.limits);
      if (oracles::SignatureKey(died.signature()) != key_) return std::nullopt;
      return died;
    }
    CaseReport report;
    if (!report.ParseFromString(outcome.response)) return std::nullopt;
    for (const Finding& finding : oracles::Findings(report)) {
      if (oracles::SignatureKey(finding.signature()) != key_) continue;
      Finding kept = finding;
      // The case the oracles saw: an init net already folded into inputs.
      if (report.has_checked_case()) *kept.mutable_case_() = report.checked_case();
      return kept;
    }
    return std::nullopt;
  }

  // Keeps `candidate` when it still shows the finding, unless the case the oracles saw is one
  // the reduction has already been through: an oracle may move inputs (the gradient oracle steps
  // off a kink), and an edit that undoes the move (rounding values) would then be "kept" forever,
  // running every reduction of such a finding into its time box.
  bool Try(const std::optional<Case>& candidate) {
    if (!candidate || OutOfTime()) return false;
    std::optional<Finding> holds = Check(*candidate);
    if (!holds) return false;
    if (!visited_.insert(holds->case_().SerializeAsString()).second) return false;
    ++kept_;
    best_ = *holds;
    current_ = best_.case_();
    return true;
  }

  void Shrink() {
    for (bool progress = true; progress && !OutOfTime();) {
      progress = false;
      progress |= ShrinkOps();
      progress |= ShrinkDims();
      progress |= SimplifyValues();
      progress |= RemoveArgs();
    }
  }

  OpOutputs Trace() {
    const SandboxOutcome outcome = Ask(kTrace, current_);
    if (outcome.kind != SandboxOutcome::Kind::kOk) return {};
    return DecodeTrace(outcome.response, current_.net().op_size());
  }

  // Delta debugging over the ops: chunks of half the net, a quarter, ..., one op.
  bool ShrinkOps() {
    bool progress = false;
    for (int chunk = std::max(1, current_.net().op_size() / 2); chunk >= 1 && !OutOfTime();
         chunk /= 2) {
      OpOutputs outputs = Trace();
      for (int start = 0; start < current_.net().op_size() && !OutOfTime();) {
        std::set<int> removed;
        for (int i = start; i < std::min(start + chunk, current_.net().op_size()); ++i) {
          removed.insert(i);
        }
        if (Try(RemoveOps(current_, removed, outputs))) {
          progress = true;
          outputs = Trace();  // positions moved
        } else {
          start += chunk;
        }
      }
    }
    return progress;
  }

  bool ShrinkDims() {
    bool progress = false;
    for (int64_t size : InputDimSizes(current_)) {
      for (int64_t to : {int64_t{1}, size / 2, size - 1}) {
        if (Try(ShrinkDimEverywhere(current_, size, to))) {
          progress = true;
          break;
        }
      }
    }
    for (int input = 0; input < current_.inputs_size(); ++input) {
      for (int axis = 0; axis < current_.inputs(input).dims_size(); ++axis) {
        const int64_t size = current_.inputs(input).dims(axis);
        for (int64_t to : {int64_t{1}, size / 2, size - 1}) {
          if (Try(ShrinkDim(current_, input, axis, to))) {
            progress = true;
            break;
          }
        }
      }
    }
    return progress;
  }

  bool SimplifyValues() {
    bool progress = false;
    for (int input = 0; input < current_.inputs_size(); ++input) {
      for (ValueEdit edit : {ValueEdit::kZeros, ValueEdit::kIntegers, ValueEdit::kOneDecimal}) {
        if (Try(EditValues(current_, input, edit))) {
          progress = true;
          break;
        }
      }
    }
    return progress;
  }

  bool RemoveArgs() {
    bool progress = false;
    for (int op = 0; op < current_.net().op_size(); ++op) {
      for (int arg = 0; arg < current_.net().op(op).arg_size();) {
        if (Try(RemoveArg(current_, op, arg))) {
          progress = true;
        } else {
          ++arg;
        }
      }
    }
    return progress;
  }

  const std::string key_;
  const bool worker_oracle_;
  ReduceOptions options_;
  oracles::CheckRequest request_;
  std::chrono::steady_clock::time_point start_;
  std::unique_ptr<Sandbox> worker_;
  Finding best_;
  Case current_;
  std::set<std::string> visited_;  // every case kept so far, serialized
  int checks_ = 0;
  int kept_ = 0;
  bool timed_out_ = false;
};

}  // namespace

ReduceResult ReduceFinding(const Finding& finding, const ReduceOptions& options) {
  PARITY_ENFORCE(finding.has_case_() && finding.case_().net().op_size() > 0, ErrorKind::kInvalidNet,
                 "reduce: the finding holds no case");
  return Reducer(finding, options).Run(finding);
}

}  // namespace parity::fuzz

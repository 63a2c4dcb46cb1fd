#include "oracles/check.h"

#include <chrono>
#include <iterator>
#include <set>

#include "core/proto/error.h"
#include "gpu/device.h"
#include "oracles/backend.h"
#include "oracles/finding.h"
#include "oracles/op_facts.h"
#include "oracles/oracle.h"
#include "oracles/seeds.h"

namespace parity::oracles {

namespace {

const char* const kHostOracles[] = {"validity",  "forward", "gradient",  "determinism",
                                    "roundtrip", "shape",   "transform", "builder"};

}  // namespace

const std::vector<std::string>& DefaultOracles() {
  static const auto* oracles = [] {
    auto* names = new std::vector<std::string>(std::begin(kHostOracles), std::end(kHostOracles));
    // CPU vs GPU joins wherever a device can run it (issue 19).
    if (gpu::DeviceCount() > 0) names->push_back("device");
    return names;
  }();
  return *oracles;
}

std::string DescribeDefaultOracles() {
  std::string text;
  for (const char* name : kHostOracles) text += std::string(name) + ", ";
  return text + "and device where a CUDA device is present";
}

namespace {

// The backends an oracle runs besides the one under test.
std::vector<std::string> BackendsCompared(const std::string& oracle, const std::string& backend) {
  if (oracle == "forward" || oracle == "gradient" || oracle == "transform") {
    return {backend, kReference, kReferenceF32};
  }
  if (oracle == "shape") return {backend, kReferenceF32};
  if (oracle == "validity") return {backend, kReference};
  if (oracle == "device") {
    // A CUDA backend under test (a GPU mutant) is the GPU side; the CPU side is then production.
    const Backend* under_test = FindBackend(backend);
    if (under_test != nullptr && under_test->info().device == "cuda") {
      return {kProduction, backend, kReference, kReferenceF32};
    }
    return {backend, kProductionCuda, kReference, kReferenceF32};
  }
  return {backend};
}

}  // namespace

Case FreezeInitNet(const Case& c, const std::string& backend) {
  if (!c.has_init_net()) return c;
  Case init;
  *init.mutable_net() = c.init_net();
  *init.mutable_inputs() = c.inputs();
  caffe2::NetDef& net = *init.mutable_net();
  for (int i = 0; i < net.op_size(); ++i) {
    caffe2::OperatorDef& op = *net.mutable_op(i);
    if (op.has_device_option() && op.device_option().has_random_seed()) continue;
    // The op would inherit the net's device option; keep it while adding the seed.
    if (!op.has_device_option() && net.has_device_option()) {
      *op.mutable_device_option() = net.device_option();
    }
    op.mutable_device_option()->set_random_seed(
        static_cast<uint32_t>(SeedAt(c.seed(), static_cast<uint64_t>(i))));
  }
  BackendRun run = GetBackend(backend).Run(init);
  if (run.error) {
    Error error = *run.error;
    error.AddContext("init net");
    throw error;
  }
  Case frozen = c;
  frozen.clear_init_net();
  frozen.clear_inputs();
  for (auto& [name, tensor] : run.blobs) {
    *frozen.add_inputs() = tensor;
    frozen.mutable_inputs()->rbegin()->set_name(name);
  }
  return frozen;
}

void EnforceKnownOracles(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (FindOracle(name) != nullptr) continue;
    std::string known;
    for (const auto& n : OracleNames()) known += (known.empty() ? "" : ", ") + n;
    throw MakeError(ErrorKind::kBadArgument, "unknown oracle '", name, "' (known: ", known, ")");
  }
  // Asked for by name where it cannot run: a usage error (exit 2), not a clean check. In a
  // campaign's default list it never appears without a device (DefaultOracles).
  for (const std::string& name : names) {
    PARITY_ENFORCE(name != "device" || gpu::DeviceCount() > 0, ErrorKind::kBadArgument,
                   "the device oracle needs a CUDA device: no CUDA device: ",
                   gpu::NoDeviceReason());
  }
}

CaseReport CheckCase(const Case& input_case, const CheckRequest& request) {
  const std::vector<std::string>& names =
      request.oracles.empty() ? DefaultOracles() : request.oracles;
  EnforceKnownOracles(names);
  OracleOptions options;
  options.backend = &GetBackend(request.backend);
  // A CUDA backend under test has the init net run on the CPU, as it runs one itself (a
  // predictor's init net): freezing never needs a device, nor a CUDA kernel for every fill.
  const Case c = FreezeInitNet(
      input_case, options.backend->info().device == "cuda" ? kProduction : request.backend);
  const std::string tolerance =
      request.tolerance.empty() ? ToleranceForNet(c.net()) : request.tolerance;
  options.tolerance = GetToleranceClass(tolerance);
  options.full_jacobian = request.full_jacobian;
  options.localize = request.localize;
  options.compare_threads = request.compare_threads;

  CaseReport report;
  if (input_case.has_init_net()) *report.mutable_checked_case() = c;
  report.set_seed(c.seed());
  report.set_backend(request.backend);
  report.set_tolerance(tolerance);
  for (const std::string& oracle : names) {
    OracleVerdict* verdict = report.add_verdicts();
    verdict->set_oracle(oracle);
    for (const auto& b : BackendsCompared(oracle, request.backend)) verdict->add_backends(b);
    if (request.stop != nullptr && request.stop->load()) {
      verdict->set_status(OracleVerdict::NOT_APPLICABLE);
      verdict->set_reason("interrupted");
      continue;
    }
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
    } else if (result.rejected) {
      verdict->set_status(OracleVerdict::REJECTED);
      verdict->set_reason(result.rejected->what());
      verdict->set_error_kind(ErrorKindName(result.rejected->kind()));
    } else if (!result.not_applicable.empty()) {
      verdict->set_status(OracleVerdict::NOT_APPLICABLE);
      verdict->set_reason(result.not_applicable);
    } else {
      verdict->set_status(OracleVerdict::OK);
    }
  }
  // Engines' messages end up in findings and reasons: keep them writable (see MakeStringsUtf8).
  // A verdict of OK carries neither.
  for (OracleVerdict& verdict : *report.mutable_verdicts()) {
    if (verdict.status() != OracleVerdict::OK) MakeStringsUtf8(&verdict);
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

int ExitCode(const CaseReport& report) {
  if (!Findings(report).empty()) return 1;
  for (const auto& verdict : report.verdicts()) {
    if (verdict.status() == OracleVerdict::REJECTED) return 2;
  }
  return 0;
}

void CheckTally::Add(const Case& c, const CaseReport& report) {
  ++cases;
  std::set<std::string> types;
  for (const auto& op : c.net().op()) types.insert(op.type());
  for (const auto& type : types) ++by_op[type];
  for (const auto& verdict : report.verdicts()) {
    switch (verdict.status()) {
      case OracleVerdict::NOT_APPLICABLE:
      case OracleVerdict::REJECTED:
        ++not_applicable[verdict.oracle()];
        break;
      case OracleVerdict::FINDING:
        ++checked[verdict.oracle()];
        ++findings;
        ++by_signature[SignatureKey(verdict.finding().signature())];
        for (const auto& type : types) ++by_op_oracle[type][verdict.oracle()];
        break;
      default:
        ++checked[verdict.oracle()];
        for (const auto& type : types) ++by_op_oracle[type][verdict.oracle()];
    }
  }
}

}  // namespace parity::oracles

// The device oracle: the same case on the CPU (the backend under test) and on CUDA
// ("production-cuda"), both judged against the f64 reference with the forward oracle's tolerance:
// the GPU passes where its distance to f64 is within k x the f32 reference's distance + the floor
// (DisagreementsWithTruth; on a mismatch, with f32's error sampled on the case moved by an ulp as
// the forward oracle samples it: SampledRounding), NaN and +-Inf by position. Judging both against
// the truth instead of the GPU against the CPU lets TF32-free cuBLAS, other summation orders and
// libdevice's ulps differ from the CPU by what f32 itself allows, not by a guessed threshold
// (Caffe2's 0.01).
//
// When the GPU agrees with the truth, it runs the case a second time and the two runs must agree
// bit for bit (oracles/device_determinism.h: which kernels may not, and how they are judged).
//
// The backend under test is the CPU side, or, when it is a CUDA backend (a GPU kernel mutant,
// MakeCudaBackend), the GPU side against the production CPU engine.
//
// Not applicable (never a pass in disguise) where no CUDA device is present, where an op has no
// CUDA kernel, where the net reads a tensor on the other side of a cross-device copy
// (gpu/placement.h), where an op's values cannot be judged against the reference (the forward
// oracle's skips: random fills), or where a CUDA kernel does not take what the CPU ran: the dtype
// gate is per kernel, not per backend. A CUDA op raises kUnknownOp for an input it has no kernel
// for ("run the op on the CPU": CudaOperator::FloatInput, a rank beyond its geometry), and a
// device-side kUnknownOp where the CPU ran the net is that op saying so, not an error mismatch.
#include "oracles/device_oracle.h"

#include "gpu/device.h"
#include "gpu/placement.h"
#include "oracles/device_determinism.h"
#include "oracles/finding.h"
#include "oracles/localize.h"
#include "oracles/op_facts.h"
#include "oracles/oracle.h"

namespace parity::oracles {
namespace {

std::string Inapplicable(const Case& c, const Backend& gpu) {
  if (gpu::DeviceCount() == 0) return "no CUDA device: " + gpu::NoDeviceReason();
  std::string cpu_only;
  ForEachOp(
      c.net(),
      [&](const caffe2::OperatorDef& op) {
        if (cpu_only.empty() && !gpu.SupportsOp(op.type())) cpu_only = op.type();
      },
      /*backward_step_nets=*/false);
  if (!cpu_only.empty()) return cpu_only + " has no CUDA kernel (CPU only)";
  for (const auto& input : c.inputs()) {
    if (!gpu.SupportsDtype(input.data_type())) {
      return "input '" + input.name() + "' has a dtype the CUDA backend does not hold";
    }
  }
  // A net that moves a tensor to the host and reads it there with a device op runs on the CPU,
  // where the copies are identities, and cannot run on CUDA without a copy Caffe2 would not add.
  if (std::string problem = gpu::PlanCudaPlacement(c.net()).problem; !problem.empty()) {
    return problem;
  }
  // Both devices are judged against the f64 reference, which cannot match what the forward
  // oracle skips (random fills: production's generator, made on the host for both devices).
  if (std::string skip = SkipReason(c.net(), "forward"); !skip.empty()) {
    return "judged against the reference like the forward oracle, which skips " + skip;
  }
  return "";
}

// The same case a second time on the GPU, bit for bit against the first run. A difference found
// untraced is run again traced, twice, to blame the first op whose outputs differ (a
// nondeterminism that does not repeat leaves the finding unblamed).
std::optional<Finding> CheckRunTwice(const Case& c, const Backend& gpu, const BackendRun& first,
                                     const OracleOptions& options) {
  std::optional<Finding> finding =
      CompareDeviceRuns(c, first, gpu.Run(c, {false, ""}), CudaNondeterministicOps());
  if (!finding || !options.localize) return finding;
  const RunOptions traced{true, ""};
  std::optional<Finding> blamed =
      CompareDeviceRuns(c, gpu.Run(c, traced), gpu.Run(c, traced), CudaNondeterministicOps());
  return blamed && !blamed->blamed_op_type().empty() ? blamed : finding;
}

OracleResult CheckDevice(const Case& c, const OracleOptions& options) {
  const bool gpu_under_test = options.backend->info().device == "cuda";
  const Backend& gpu = gpu_under_test ? *options.backend : GetBackend(kProductionCuda);
  const Backend& cpu_backend = gpu_under_test ? GetBackend(kProduction) : *options.backend;
  if (std::string reason = Inapplicable(c, gpu); !reason.empty()) return {std::nullopt, reason};
  const RunOptions traced{options.localize, ""};
  const BackendRun truth = GetBackend(kReference).Run(c, traced);
  const BackendRun cpu = cpu_backend.Run(c, {false, ""});
  const BackendRun device = gpu.Run(c, {false, ""});
  BackendRun f32;
  OracleResult result = JudgeDeviceRuns(
      c, truth, cpu, device,
      [&]() -> const BackendRun& {
        f32 = GetBackend(kReferenceF32).Run(c, traced);
        return f32;
      },
      options.tolerance);
  if (!result.finding) {
    if (!result.not_applicable.empty() || result.rejected) return result;
    return {CheckRunTwice(c, gpu, device, options), ""};
  }
  // An error on one side is blamed by its context; values are localized on the GPU (traced runs,
  // made here only for a mismatch when the check was not asked to localize).
  if (cpu.error || device.error) return result;
  const RunOptions trace_all{true, ""};
  const BackendRun in_order = gpu.Run(c, trace_all);
  BackendRun truth_traced, f32_traced;
  if (!options.localize) {
    truth_traced = GetBackend(kReference).Run(c, trace_all);
    f32_traced = GetBackend(kReferenceF32).Run(c, trace_all);
  }
  const Blame blame = Localize(c.net(), CaseInputs(c), in_order,
                               options.localize ? truth : truth_traced,
                               options.localize ? f32 : f32_traced, options.tolerance);
  // The first diverging op right on the GPU's own inputs: rounding differences within tolerance,
  // amplified by where the op sits (f32 noise past what sampling can bound), not the GPU's fault.
  // The ops after it cannot be judged: their inputs already differ.
  if (blame.op_index >= 0 && OpRightOnItsInputs(c, blame.op_index, in_order, options.tolerance)) {
    return {std::nullopt, "op #" + std::to_string(blame.op_index) + " (" +
                              c.net().op(blame.op_index).type() +
                              ") amplifies rounding: on the GPU's own inputs it agrees with the "
                              "truth, and the GPU's inputs agree with the truth within tolerance"};
  }
  if (!options.localize) return result;
  Finding& finding = *result.finding;
  if (blame.op_index >= 0) {
    SetBlame(&finding, blame.op_index, c.net());
    finding.set_message(finding.message() + "; first diverging op on the GPU #" +
                        std::to_string(blame.op_index) + " (" +
                        c.net().op(blame.op_index).type() + ") output '" + blame.blob +
                        "': " + blame.comparison.detail);
  }
  return result;
}

}  // namespace

OracleResult JudgeDeviceRuns(const Case& c, const BackendRun& truth, const BackendRun& cpu,
                             const BackendRun& device,
                             const std::function<const BackendRun&()>& reference_f32,
                             const ToleranceClass& tolerance) {
  if (cpu.error && device.error) return {std::nullopt, "", device.error};
  if (truth.error) {
    return {std::nullopt, std::string("the reference cannot run this net: ") + truth.error->what()};
  }
  // A CUDA op without a kernel for these inputs (a dtype, a rank) says so with kUnknownOp; the CPU
  // ran the net, so there is nothing to compare, and nothing wrong either.
  if (device.error && !cpu.error && device.error->kind() == ErrorKind::kUnknownOp) {
    return {std::nullopt,
            std::string("the GPU has no kernel for this net: ") + device.error->what()};
  }
  if (cpu.error || device.error) {
    const bool device_failed = device.error.has_value();
    Finding finding = MakeFinding(
        "device", c, "error mismatch",
        std::string(device_failed ? "the GPU" : "the CPU") + " rejected the net and the " +
            (device_failed ? "CPU" : "GPU") + " ran it: " +
            (device_failed ? device.error->what() : cpu.error->what()));
    const int index = FailingOpIndex(device_failed ? *device.error : *cpu.error);
    if (index >= 0 && index < c.net().op_size()) SetBlame(&finding, index, c.net());
    return {finding, ""};
  }
  const BackendRun& f32 = reference_f32();
  const std::vector<std::string> blobs = ComparedBlobs(c);
  std::vector<TruthDisagreement> disagreements =
      DisagreementsWithTruth(blobs, truth, f32, device, tolerance);
  // As the forward oracle does: a mismatch stands only against f32's error sampled on the case
  // moved by an ulp (an expanding loop's two realizations differ by far more than k).
  BackendRun sampled;
  const BackendRun* rounding = &f32;
  if (!disagreements.empty() && tolerance.k > 0) {
    sampled = SampledRounding(c, blobs, truth, f32);
    rounding = &sampled;
    disagreements = DisagreementsWithTruth(blobs, truth, sampled, device, tolerance);
  }
  std::optional<Finding> finding;
  for (const TruthDisagreement& d : disagreements) {
    if (d.expected == nullptr || d.actual == nullptr) {
      if (!finding) {
        finding = MakeFinding("device", c, "missing output",
                              std::string(d.expected == nullptr ? "the reference" : "the GPU") +
                                  " did not produce '" + d.blob + "'");
      }
      continue;
    }
    if (!finding) {
      const bool cpu_ok =
          DisagreementsWithTruth({d.blob}, truth, *rounding, cpu, tolerance).empty();
      finding = MakeFinding("device", c, d.comparison.error_class,
                            "blob '" + d.blob + "' on the GPU: " + d.comparison.detail +
                                (cpu_ok ? " (the CPU agrees with the truth)"
                                        : " (the CPU is out of tolerance too)"));
    }
    AddComparison(&*finding, d.blob, *d.expected, *d.actual, d.comparison);
  }
  return {finding, ""};
}

namespace {

const bool kRegistered = RegisterOracle("device", CheckDevice);

}  // namespace
}  // namespace parity::oracles

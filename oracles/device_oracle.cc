// The device oracle: the same case on the CPU (the backend under test) and on CUDA
// ("production-cuda"), both judged against the f64 reference with the forward oracle's tolerance:
// the GPU passes where its distance to f64 is within k x the f32 reference's distance + the floor
// (DisagreementsWithTruth), NaN and +-Inf by position. Judging both against the truth instead of
// the GPU against the CPU lets TF32-free cuBLAS, other summation orders and libdevice's ulps
// differ from the CPU by what f32 itself allows, not by a guessed threshold (Caffe2's 0.01).
//
// Not applicable (never a pass in disguise) where no CUDA device is present, where an op has no
// CUDA kernel, or where an input is not float (the device kernels are float only).
#include "gpu/device.h"
#include "oracles/finding.h"
#include "oracles/localize.h"
#include "oracles/oracle.h"

namespace parity::oracles {
namespace {

constexpr char kCudaBackend[] = "production-cuda";

std::string Inapplicable(const Case& c, const Backend& gpu) {
  if (gpu::DeviceCount() == 0) return "no CUDA device: " + gpu::NoDeviceReason();
  for (const auto& op : c.net().op()) {
    if (!gpu.SupportsOp(op.type())) return op.type() + " has no CUDA kernel (CPU only)";
  }
  for (const auto& input : c.inputs()) {
    if (!gpu.SupportsDtype(input.data_type())) {
      return "input '" + input.name() + "' is not float (the CUDA kernels are float only)";
    }
  }
  return "";
}

OracleResult CheckDevice(const Case& c, const OracleOptions& options) {
  const Backend& gpu = GetBackend(kCudaBackend);
  if (std::string reason = Inapplicable(c, gpu); !reason.empty()) return {std::nullopt, reason};
  const RunOptions traced{options.localize, ""};
  BackendRun truth = GetBackend(kReference).Run(c, traced);
  BackendRun cpu = options.backend->Run(c, {false, ""});
  BackendRun device = gpu.Run(c, {false, ""});
  if (cpu.error && device.error) return {std::nullopt, "", device.error};
  if (truth.error) {
    return {std::nullopt, std::string("the reference cannot run this net: ") + truth.error->what()};
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
  BackendRun f32 = GetBackend(kReferenceF32).Run(c, traced);
  std::optional<Finding> finding;
  for (const TruthDisagreement& d :
       DisagreementsWithTruth(ComparedBlobs(c), truth, f32, device, options.tolerance)) {
    if (d.expected == nullptr || d.actual == nullptr) {
      if (!finding) {
        finding = MakeFinding("device", c, "missing output",
                              std::string(d.expected == nullptr ? "the reference" : "the GPU") +
                                  " did not produce '" + d.blob + "'");
      }
      continue;
    }
    if (!finding) {
      const bool cpu_ok = DisagreementsWithTruth({d.blob}, truth, f32, cpu, options.tolerance)
                              .empty();
      finding = MakeFinding("device", c, d.comparison.error_class,
                            "blob '" + d.blob + "' on the GPU: " + d.comparison.detail +
                                (cpu_ok ? " (the CPU agrees with the truth)"
                                        : " (the CPU is out of tolerance too)"));
    }
    AddComparison(&*finding, d.blob, *d.expected, *d.actual, d.comparison);
  }
  if (!finding) return {};
  if (options.localize) {
    const BackendRun in_order = gpu.Run(c, traced);
    Blame blame = Localize(c.net(), CaseInputs(c), in_order, truth, f32, options.tolerance);
    if (blame.op_index >= 0) {
      SetBlame(&*finding, blame.op_index, c.net());
      finding->set_message(finding->message() + "; first diverging op on the GPU #" +
                           std::to_string(blame.op_index) + " (" +
                           c.net().op(blame.op_index).type() + ") output '" + blame.blob +
                           "': " + blame.comparison.detail);
    }
  }
  return {finding, ""};
}

const bool kRegistered = RegisterOracle("device", CheckDevice);

}  // namespace
}  // namespace parity::oracles

// DeviceJudged: the device oracle's own judgment of a one-op case (oracles::JudgeDeviceRuns: both
// devices against the f64 reference, then a second GPU run bit for bit) that also requires a case
// both devices reject to be rejected with the same message (the oracle only asks that both fail).
// For the device tests of ops whose errors the CUDA kernels reproduce.
//
// SameOnBothDevices: the CPU's and the GPU's outputs bit for bit, for exact ops in cases the f64
// reference cannot judge (broadcasting it does not do, ties it routes as Caffe2 does and parity
// does not), where the device oracle would call the case not applicable or blame both devices.
#ifndef PARITY_TESTS_GPU_DEVICE_JUDGED_H_
#define PARITY_TESTS_GPU_DEVICE_JUDGED_H_

#include <gtest/gtest.h>

#include <string>

#include "oracles/backend.h"
#include "oracles/describe.h"
#include "oracles/device_determinism.h"
#include "oracles/device_oracle.h"
#include "oracles/op_facts.h"
#include "oracles/testing/op_checks.h"

namespace parity::testing {

inline ::testing::AssertionResult DeviceJudged(const caffe2::OperatorDef& op,
                                               const oracles::NamedTensors& inputs) {
  using namespace oracles;  // NOLINT: the backends and the judgment
  const Case c = SingleOpCase(op, inputs);
  const BackendRun truth = GetBackend(kReference).Run(c);
  const BackendRun cpu = GetBackend(kProduction).Run(c);
  const BackendRun gpu = GetBackend(kProductionCuda).Run(c);
  if (cpu.error && gpu.error) {
    if (std::string(cpu.error->what()) == gpu.error->what()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "both devices reject the case, differently:\n  CPU: " << cpu.error->what()
           << "\n  GPU: " << gpu.error->what();
  }
  BackendRun f32;
  const OracleResult result = JudgeDeviceRuns(
      c, truth, cpu, gpu,
      [&]() -> const BackendRun& {
        f32 = GetBackend(kReferenceF32).Run(c);
        return f32;
      },
      GetToleranceClass(ToleranceForNet(c.net())));
  if (result.finding) return ::testing::AssertionFailure() << DescribeFinding(*result.finding);
  if (!result.not_applicable.empty()) {
    return ::testing::AssertionFailure() << "not applicable: " << result.not_applicable;
  }
  if (auto finding = CompareDeviceRuns(c, gpu, GetBackend(kProductionCuda).Run(c),
                                       CudaNondeterministicOps())) {
    return ::testing::AssertionFailure() << DescribeFinding(*finding);
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult SameOnBothDevices(const caffe2::OperatorDef& op,
                                                    const oracles::NamedTensors& inputs) {
  using namespace oracles;  // NOLINT: the backends
  const Case c = SingleOpCase(op, inputs);
  const BackendRun cpu = GetBackend(kProduction).Run(c);
  const BackendRun gpu = GetBackend(kProductionCuda).Run(c);
  if (cpu.error || gpu.error) {
    return ::testing::AssertionFailure()
           << "CPU: " << (cpu.error ? cpu.error->what() : "ran")
           << "\n  GPU: " << (gpu.error ? gpu.error->what() : "ran");
  }
  for (const std::string& name : op.output()) {
    auto on_cpu = cpu.blobs.find(name);
    auto on_gpu = gpu.blobs.find(name);
    if (on_cpu == cpu.blobs.end() || on_gpu == gpu.blobs.end()) {
      return ::testing::AssertionFailure() << "output '" << name << "' is missing";
    }
    if (on_cpu->second.SerializeAsString() != on_gpu->second.SerializeAsString()) {
      return ::testing::AssertionFailure() << "output '" << name << "' differs:\n  CPU: "
                                           << on_cpu->second.ShortDebugString()
                                           << "\n  GPU: " << on_gpu->second.ShortDebugString();
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace parity::testing

#endif  // PARITY_TESTS_GPU_DEVICE_JUDGED_H_

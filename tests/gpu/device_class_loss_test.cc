// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss and their gradients on the device
// (gpu/ops/class_loss.cc): registered in CUDA builds only, and CPU vs GPU where a device is
// present (those tests skip with one line where none is).
//
// The cases (int32 / int64 targets) are judged by DeviceJudged (device_judged.h): the device
// oracle's own judgment, and the same message from both devices where both reject a case.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/operator.h"
#include "gpu/device.h"
#include "oracles/backend.h"
#include "oracles/describe.h"
#include "oracles/device_determinism.h"
#include "oracles/device_oracle.h"
#include "oracles/op_facts.h"
#include "oracles/testing/op_checks.h"
#include "tests/gpu/device_judged.h"
#include "tests/gpu/device_test_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

TEST(CudaRegistry, ClassLossesRegisteredExactlyInCudaBuilds) {
  for (const char* type : {"NegativeLogLikelihoodLoss", "NegativeLogLikelihoodLossGradient",
                           "SoftmaxCrossEntropyLoss", "SoftmaxCrossEntropyLossGradient"}) {
    EXPECT_EQ(OperatorRegistry::HasKernel(type, kCudaDeviceType), gpu::CudaBuild()) << type;
    EXPECT_TRUE(OperatorRegistry::HasKernel(type, kCpuDeviceType)) << type;
  }
}

std::vector<TestArg> Args(const char* reduction, bool ignore) {
  std::vector<TestArg> args = {{"reduction", reduction}};
  if (ignore) args.push_back({"ignore_index", int64_t{-1}});
  return args;
}

// X [2, 3, 2, 2] with int64 targets [2, 2, 2] (one ignored with -1 where `ignore`), optional
// weights [3]: each forward op, and each gradient with dLoss of the loss's dims.
void CheckAll(const char* reduction, bool weighted, bool ignore) {
  const std::string what =
      std::string(reduction) + (weighted ? " weighted" : "") + (ignore ? " ignore_index" : "");
  const Tensor x = RandomTensor({2, 3, 2, 2}, 3, -3.0f, 3.0f);
  const Tensor t =
      MakeTensor<int64_t>({2, 2, 2}, {0, 2, ignore ? -1 : 1, 1, 2, 0, 0, ignore ? -1 : 2});
  oracles::NamedTensors inputs = {{"x", x}, {"t", t}};
  std::vector<std::string> names = {"x", "t"};
  if (weighted) {
    inputs.push_back({"w", MakeTensor<float>({3}, {0.5f, 2.0f, 1.25f})});
    names.push_back("w");
  }
  const std::vector<TestArg> args = Args(reduction, ignore);
  EXPECT_TRUE(DeviceJudged(MakeOp("NegativeLogLikelihoodLoss", names, {"y"}, args), inputs))
      << "NLL " << what;
  EXPECT_TRUE(DeviceJudged(MakeOp("SoftmaxCrossEntropyLoss", names, {"y", "lp"}, args), inputs))
      << "SCE " << what;
  EXPECT_TRUE(DeviceJudged(MakeOp("SoftmaxCrossEntropyLoss", names, {"y"}, args), inputs))
      << "SCE without log_prob " << what;
  const bool none = std::string(reduction) == "none";
  inputs.push_back({"dl", none ? RandomTensor({2, 2, 2}, 5) : MakeTensor<float>({}, {0.75f})});
  names.push_back("dl");
  EXPECT_TRUE(
      DeviceJudged(MakeOp("NegativeLogLikelihoodLossGradient", names, {"dx"}, args), inputs))
      << "NLL gradient " << what;
  EXPECT_TRUE(DeviceJudged(MakeOp("SoftmaxCrossEntropyLossGradient", names, {"dx"}, args), inputs))
      << "SCE gradient " << what;
}

TEST(DeviceChecks, ClassLossesEveryReduction) {
  SKIP_WITHOUT_DEVICE();
  for (const char* r : {"none", "sum", "mean"}) {
    CheckAll(r, false, false);
    CheckAll(r, true, true);
  }
}

TEST(DeviceChecks, ClassLosses2DAndInt32Targets) {
  SKIP_WITHOUT_DEVICE();
  const Tensor x = RandomTensor({5, 4}, 7, -2.0f, 2.0f);
  const Tensor t = MakeTensor<int32_t>({5}, {3, 0, 1, 1, 2});
  EXPECT_TRUE(DeviceJudged(MakeOp("SoftmaxCrossEntropyLoss", {"x", "t"}, {"y", "lp"}),
                           {{"x", x}, {"t", t}}));
  EXPECT_TRUE(
      DeviceJudged(MakeOp("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}), {{"x", x}, {"t", t}}));
  EXPECT_TRUE(DeviceJudged(MakeOp("SoftmaxCrossEntropyLossGradient", {"x", "t", "dl"}, {"dx"}),
                           {{"x", x}, {"t", t}, {"dl", MakeTensor<float>({}, {1.0f})}}));
}

// Every position ignored: mean is 0 / 0 = NaN on both devices.
TEST(DeviceChecks, ClassLossesEverythingIgnored) {
  SKIP_WITHOUT_DEVICE();
  const Tensor x = RandomTensor({2, 3}, 9);
  const Tensor t = MakeTensor<int64_t>({2}, {-1, -1});
  EXPECT_TRUE(
      DeviceJudged(MakeOp("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}, Args("mean", true)),
                   {{"x", x}, {"t", t}}));
}

// Both devices refuse alike: a target out of range, a bad reduction, a dLoss of the wrong dims,
// targets of the wrong dims.
TEST(DeviceChecks, ClassLossesRejectAlike) {
  SKIP_WITHOUT_DEVICE();
  const Tensor x = RandomTensor({2, 3}, 11);
  EXPECT_TRUE(DeviceJudged(MakeOp("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}),
                           {{"x", x}, {"t", MakeTensor<int64_t>({2}, {0, 3})}}));
  EXPECT_TRUE(DeviceJudged(MakeOp("SoftmaxCrossEntropyLoss", {"x", "t"}, {"y"}, Args("mean", true)),
                           {{"x", x}, {"t", MakeTensor<int32_t>({2}, {-2, 0})}}));
  EXPECT_TRUE(
      DeviceJudged(MakeOp("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}, {{"reduction", "avg"}}),
                   {{"x", x}, {"t", MakeTensor<int64_t>({2}, {0, 1})}}));
  EXPECT_TRUE(DeviceJudged(MakeOp("SoftmaxCrossEntropyLossGradient", {"x", "t", "dl"}, {"dx"}),
                           {{"x", x},
                            {"t", MakeTensor<int64_t>({2}, {0, 1})},
                            {"dl", MakeTensor<float>({2}, {1.0f, 1.0f})}}));
  EXPECT_TRUE(DeviceJudged(MakeOp("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}),
                           {{"x", x}, {"t", MakeTensor<int64_t>({3}, {0, 1, 2})}}));
}

}  // namespace
}  // namespace parity::testing

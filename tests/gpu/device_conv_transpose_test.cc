// ConvTranspose on the device (gpu/ops/conv_transpose.cc): registered in CUDA builds only, and CPU
// vs GPU through the device oracle where a device is present (those tests skip with one line where
// none is), over strides, pads, dilations, adj in each form, groups and bias; nets both devices
// refuse must be refused with the same message.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/operator.h"
#include "gpu/device.h"
#include "oracles/backend.h"
#include "oracles/testing/op_checks.h"
#include "tests/gpu/device_test_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

TEST(CudaRegistry, ConvTransposeRegisteredExactlyInCudaBuilds) {
  EXPECT_EQ(OperatorRegistry::HasKernel("ConvTranspose", kCudaDeviceType), gpu::CudaBuild());
  EXPECT_TRUE(OperatorRegistry::HasKernel("ConvTranspose", kCpuDeviceType));
}

// X [N, C, H, W], W [C, m_per_group, kh, kw], bias [m_per_group * group] (when `bias`).
void CheckConvTranspose(const std::vector<int64_t>& x, int64_t m_per_group, int64_t kh, int64_t kw,
                        std::vector<TestArg> args, int64_t group, bool bias,
                        const std::string& what) {
  if (group != 1) args.push_back({"group", group});
  if (kh == kw) {
    args.push_back({"kernel", kh});
  } else {
    args.push_back({"kernel_h", kh});
    args.push_back({"kernel_w", kw});
  }
  oracles::NamedTensors inputs = {{"x", RandomTensor(x, 1, -2, 2)},
                                  {"w", RandomTensor({x[1], m_per_group, kh, kw}, 2)}};
  std::vector<std::string> names = {"x", "w"};
  if (bias) {
    inputs.push_back({"b", RandomTensor({m_per_group * group}, 3)});
    names.push_back("b");
  }
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("ConvTranspose", names, {"y"}, args), inputs)) << what;
}

TEST(DeviceChecks, ConvTransposeGeometries) {
  SKIP_WITHOUT_DEVICE();
  CheckConvTranspose({2, 3, 4, 5}, 2, 3, 3, {}, 1, true, "3x3");
  CheckConvTranspose({2, 3, 4, 5}, 2, 3, 3, {{"stride", 2}}, 1, false, "stride 2, no bias");
  CheckConvTranspose({1, 2, 5, 4}, 3, 3, 3, {{"stride", 2}, {"pad", 1}, {"adj", 1}}, 1, true,
                     "pad 1, adj 1");
  CheckConvTranspose({1, 2, 3, 4}, 2, 2, 3,
                     {{"strides", Ints{3, 2}}, {"adjs", Ints{2, 1}}, {"pads", Ints{0, 1, 2, 0}}}, 1,
                     true, "rectangular, adjs, asymmetric pads");
  CheckConvTranspose({1, 2, 4, 4}, 2, 3, 3,
                     {{"stride", 2}, {"adj_h", 1}, {"adj_w", 0}, {"dilation", 2}}, 1, true,
                     "adj_h adj_w, dilation 2");
  CheckConvTranspose({2, 4, 3, 3}, 3, 3, 3, {{"stride", 2}}, 2, true, "group 2");
  CheckConvTranspose({1, 6, 4, 3}, 1, 2, 2, {}, 6, true, "depthwise");
  CheckConvTranspose({1, 8, 3, 3}, 4, 1, 1, {}, 1, true, "1x1");
  CheckConvTranspose({0, 2, 3, 3}, 2, 3, 3, {}, 1, true, "no image");
}

// Refused by both devices with the same message (the CUDA op writes the CPU's checks out again).
::testing::AssertionResult RejectedAlike(const caffe2::OperatorDef& op,
                                         const oracles::NamedTensors& inputs) {
  const Case c = oracles::SingleOpCase(op, inputs);
  const oracles::BackendRun cpu = oracles::GetBackend(oracles::kProduction).Run(c);
  const oracles::BackendRun gpu = oracles::GetBackend(oracles::kProductionCuda).Run(c);
  if (!cpu.error || !gpu.error) {
    return ::testing::AssertionFailure()
           << "the CPU " << (cpu.error ? "refused" : "ran") << " it and the GPU "
           << (gpu.error ? "refused" : "ran") << " it";
  }
  if (std::string(cpu.error->what()) == gpu.error->what()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "other messages:\n  CPU: " << cpu.error->what() << "\n  GPU: " << gpu.error->what();
}

TEST(DeviceChecks, ConvTransposeRejectsAlike) {
  SKIP_WITHOUT_DEVICE();
  const oracles::NamedTensors in = {{"x", RandomTensor({1, 2, 3, 3}, 4)},
                                    {"w", RandomTensor({2, 2, 3, 3}, 5)}};
  // adj not below the stride; two adj forms; group not dividing C; a filter of other channels.
  EXPECT_TRUE(RejectedAlike(
      MakeOp("ConvTranspose", {"x", "w"}, {"y"}, {{"kernel", 3}, {"stride", 2}, {"adj", 2}}), in));
  EXPECT_TRUE(
      RejectedAlike(MakeOp("ConvTranspose", {"x", "w"}, {"y"},
                           {{"kernel", 3}, {"stride", 2}, {"adj", 1}, {"adjs", Ints{1, 1}}}),
                    in));
  EXPECT_TRUE(
      RejectedAlike(MakeOp("ConvTranspose", {"x", "w"}, {"y"}, {{"kernel", 3}, {"group", 4}}), in));
  EXPECT_TRUE(
      RejectedAlike(MakeOp("ConvTranspose", {"x", "w"}, {"y"}, {{"kernel", 3}}),
                    {{"x", RandomTensor({1, 3, 3, 3}, 6)}, {"w", RandomTensor({2, 2, 3, 3}, 7)}}));
  EXPECT_TRUE(
      RejectedAlike(MakeOp("ConvTranspose", {"x", "w"}, {"y"}, {{"kernel", 3}, {"pad", 3}}), in));
}

}  // namespace
}  // namespace parity::testing

// ArgMax, ArgMin, CumSum and Hardmax on the device (gpu/ops/arg.cc): registered in CUDA builds
// only, and CPU vs GPU through the device oracle where a device is present (those tests skip with
// one line where none is).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/operator.h"
#include "gpu/device.h"
#include "oracles/testing/op_checks.h"
#include "tests/gpu/device_test_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

TEST(CudaRegistry, ArgCumSumHardmaxRegisteredExactlyInCudaBuilds) {
  for (const char* type : {"ArgMax", "ArgMin", "CumSum", "Hardmax"}) {
    EXPECT_EQ(OperatorRegistry::HasKernel(type, kCudaDeviceType), gpu::CudaBuild()) << type;
    EXPECT_TRUE(OperatorRegistry::HasKernel(type, kCpuDeviceType)) << type;
  }
}

const std::vector<std::pair<std::vector<int64_t>, int64_t>> kAxisCases = {
    {{4, 7}, -1}, {{4, 7}, 0}, {{2, 3, 5}, 1}, {{9}, 0}};

// Values repeats every 17 elements: ties along long axes.
TEST(DeviceChecks, ArgMaxArgMin) {
  SKIP_WITHOUT_DEVICE();
  for (const char* type : {"ArgMax", "ArgMin"}) {
    for (const auto& [dims, axis] : kAxisCases) {
      for (int last = 0; last < 2; ++last) {
        EXPECT_TRUE(oracles::DeviceChecks(
            MakeOp(type, {"x"}, {"y"}, {{"axis", axis}, {"select_last_index", last}}),
            {{"x", Values(dims, -1.0f, 0.25f)}}))
            << type << " " << ShapeString(dims) << " axis " << axis << " last " << last;
      }
    }
  }
}

TEST(DeviceChecks, CumSum) {
  SKIP_WITHOUT_DEVICE();
  for (const auto& [dims, axis] : kAxisCases) {
    for (int exclusive = 0; exclusive < 2; ++exclusive) {
      for (int reverse = 0; reverse < 2; ++reverse) {
        const std::vector<TestArg> args = {
            {"axis", axis}, {"exclusive", exclusive}, {"reverse", reverse}};
        EXPECT_TRUE(oracles::DeviceChecks(MakeOp("CumSum", {"x"}, {"y"}, args),
                                          {{"x", RandomTensor(dims, 4, -1.0f, 1.0f)}}))
            << ShapeString(dims) << " axis " << axis;
      }
    }
  }
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("CumSum", {"x"}, {"x"}, {{"axis", 1}}),
                                    {{"x", RandomTensor({3, 5}, 4, -1.0f, 1.0f)}}))
      << "in place";
}

TEST(DeviceChecks, Hardmax) {
  SKIP_WITHOUT_DEVICE();
  for (const auto& [dims, axis] : kAxisCases) {
    EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Hardmax", {"x"}, {"y"}, {{"axis", axis}}),
                                      {{"x", Values(dims, -1.0f, 0.25f)}}))
        << ShapeString(dims) << " axis " << axis;
  }
  EXPECT_TRUE(
      oracles::DeviceChecks(MakeOp("Hardmax", {"x"}, {"x"}), {{"x", Values({3, 5}, -1.0f, 0.25f)}}))
      << "in place";
}

// An axis out of range: both devices refuse.
TEST(DeviceChecks, ArgMaxBadAxisFailsOnBoth) {
  SKIP_WITHOUT_DEVICE();
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("ArgMax", {"x"}, {"y"}, {{"axis", 2}}),
                                    {{"x", Values({4, 7}, -1.0f, 0.25f)}}));
}

}  // namespace
}  // namespace parity::testing

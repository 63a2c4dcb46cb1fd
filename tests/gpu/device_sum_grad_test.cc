// Sum, AddGradient and SubGradient on the device (gpu/ops/sum_grad.cc): registered in CUDA builds
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

TEST(CudaRegistry, SumAndAddSubGradientRegisteredExactlyInCudaBuilds) {
  for (const char* type : {"Sum", "AddGradient", "SubGradient"}) {
    EXPECT_EQ(OperatorRegistry::HasKernel(type, kCudaDeviceType), gpu::CudaBuild()) << type;
    EXPECT_TRUE(OperatorRegistry::HasKernel(type, kCpuDeviceType)) << type;
  }
}

// Sum of 1, 2, 4 and 11 inputs (11: two launches, the second adding onto the running sum).
TEST(DeviceChecks, Sum) {
  SKIP_WITHOUT_DEVICE();
  for (int count : {1, 2, 4, 11}) {
    std::vector<std::string> names;
    oracles::NamedTensors inputs;
    for (int k = 0; k < count; ++k) {
      names.push_back("x" + std::to_string(k));
      inputs.push_back({names.back(), Values({3, 5, 7}, -1.0f + 0.1f * k, 0.13f)});
    }
    EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Sum", names, {"y"}), inputs)) << count;
  }
}

TEST(DeviceChecks, SumInPlaceOfInputZero) {
  SKIP_WITHOUT_DEVICE();
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Sum", {"x0", "x1", "x2"}, {"x0"}),
                                    {{"x0", Values({4, 6}, -1.0f, 0.2f)},
                                     {"x1", Values({4, 6}, 0.5f, -0.1f)},
                                     {"x2", Values({4, 6}, 2.0f, 0.05f)}}));
}

// Mismatched shapes: both devices refuse (the CUDA op runs the CPU's shape inference).
TEST(DeviceChecks, SumShapeMismatchFailsOnBoth) {
  SKIP_WITHOUT_DEVICE();
  EXPECT_TRUE(oracles::DeviceChecks(
      MakeOp("Sum", {"x0", "x1"}, {"y"}),
      {{"x0", Values({2, 3}, -1.0f, 0.2f)}, {"x1", Values({3, 2}, 0.5f, -0.1f)}}));
}

// (dC, A, B) -> (dA, dB); dC has the forward output's dims.
TEST(DeviceChecks, AddSubGradientSameShapes) {
  SKIP_WITHOUT_DEVICE();
  for (const char* type : {"AddGradient", "SubGradient"}) {
    EXPECT_TRUE(oracles::DeviceChecks(MakeOp(type, {"dc", "a", "b"}, {"da", "db"}),
                                      {{"dc", Values({2, 3, 4}, -1.0f, 0.3f)},
                                       {"a", Values({2, 3, 4}, 0.5f, 0.1f)},
                                       {"b", Values({2, 3, 4}, -0.5f, 0.2f)}}))
        << type;
  }
}

TEST(DeviceChecks, AddSubGradientNumpyBroadcast) {
  SKIP_WITHOUT_DEVICE();
  for (const char* type : {"AddGradient", "SubGradient"}) {
    // A [2, 3, 4] + B [3, 1] -> C [2, 3, 4]: dB sums dC over dims 0 and 2.
    EXPECT_TRUE(oracles::DeviceChecks(MakeOp(type, {"dc", "a", "b"}, {"da", "db"}),
                                      {{"dc", Values({2, 3, 4}, -1.0f, 0.3f)},
                                       {"a", Values({2, 3, 4}, 0.5f, 0.1f)},
                                       {"b", Values({3, 1}, -0.5f, 0.2f)}}))
        << type;
    // A [3, 1] + B [2, 1, 4] -> C [2, 3, 4]: both operands broadcast.
    EXPECT_TRUE(oracles::DeviceChecks(MakeOp(type, {"dc", "a", "b"}, {"da", "db"}),
                                      {{"dc", Values({2, 3, 4}, -1.0f, 0.3f)},
                                       {"a", Values({3, 1}, 0.5f, 0.1f)},
                                       {"b", Values({2, 1, 4}, -0.5f, 0.2f)}}))
        << type << " both";
  }
}

TEST(DeviceChecks, AddSubGradientLegacyBroadcast) {
  SKIP_WITHOUT_DEVICE();
  for (const char* type : {"AddGradient", "SubGradient"}) {
    EXPECT_TRUE(oracles::DeviceChecks(
        MakeOp(type, {"dc", "a", "b"}, {"da", "db"}, {{"broadcast", 1}, {"axis", 1}}),
        {{"dc", Values({2, 3, 4}, -1.0f, 0.3f)},
         {"a", Values({2, 3, 4}, 0.5f, 0.1f)},
         {"b", Values({3}, -0.5f, 0.2f)}}))
        << type;
  }
}

// dA written in place of dC while dB still reads dC.
TEST(DeviceChecks, AddSubGradientInPlaceOfDc) {
  SKIP_WITHOUT_DEVICE();
  for (const char* type : {"AddGradient", "SubGradient"}) {
    EXPECT_TRUE(oracles::DeviceChecks(MakeOp(type, {"dc", "a", "b"}, {"dc", "db"}),
                                      {{"dc", Values({2, 3, 4}, -1.0f, 0.3f)},
                                       {"a", Values({2, 3, 4}, 0.5f, 0.1f)},
                                       {"b", Values({4}, -0.5f, 0.2f)}}))
        << type;
  }
}

}  // namespace
}  // namespace parity::testing

// MulGradient, DivGradient and SoftmaxGradient on the device (gpu/ops/grad2.cc): registered in
// CUDA builds only, and CPU vs GPU through the device oracle where a device is present (those
// tests skip with one line where none is).
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

// Divisors in [0.5, 2]: 0.5, 0.6, ..., 2.0 (17 values).
Tensor Divisors(std::vector<int64_t> dims) {
  Tensor t(DataType::kFloat, dims);
  float* data = t.mutable_data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    data[i] = 0.5f + 1.5f * static_cast<float>((i * 7) % 17) / 16.0f;
  }
  return t;
}

// C = A / B from the CPU engine (with the forward op's broadcast arguments).
Tensor DivOutput(const Tensor& a, const Tensor& b, const std::vector<TestArg>& args = {}) {
  auto ws = RunOp(MakeOp("Div", {"a", "b"}, {"c"}, args), {{"a", a}, {"b", b}});
  return ws->GetBlob("c")->GetTensor();
}

TEST(CudaRegistry, MulDivSoftmaxGradientRegisteredExactlyInCudaBuilds) {
  for (const char* type : {"MulGradient", "DivGradient", "SoftmaxGradient"}) {
    EXPECT_EQ(OperatorRegistry::HasKernel(type, kCudaDeviceType), gpu::CudaBuild()) << type;
    EXPECT_TRUE(OperatorRegistry::HasKernel(type, kCpuDeviceType)) << type;
  }
}

// (dC, A, B) -> (dA, dB) for Mul; (dC, A, B, C) -> (dA, dB) for Div.
void CheckMulDiv(const std::vector<int64_t>& a_dims, const std::vector<int64_t>& b_dims,
                 const std::vector<int64_t>& c_dims, const std::vector<TestArg>& args,
                 const std::string& what) {
  const Tensor dc = Values(c_dims, -1.0f, 0.3f);
  const Tensor a = Values(a_dims, 0.5f, 0.1f);
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("MulGradient", {"dc", "a", "b"}, {"da", "db"}, args),
                                    {{"dc", dc}, {"a", a}, {"b", Values(b_dims, -0.5f, 0.2f)}}))
      << "MulGradient " << what;
  const Tensor b = Divisors(b_dims);
  EXPECT_TRUE(
      oracles::DeviceChecks(MakeOp("DivGradient", {"dc", "a", "b", "c"}, {"da", "db"}, args),
                            {{"dc", dc}, {"a", a}, {"b", b}, {"c", DivOutput(a, b, args)}}))
      << "DivGradient " << what;
}

TEST(DeviceChecks, MulDivGradientSameShapes) {
  SKIP_WITHOUT_DEVICE();
  CheckMulDiv({2, 3, 4}, {2, 3, 4}, {2, 3, 4}, {}, "same shapes");
}

TEST(DeviceChecks, MulDivGradientNumpyBroadcast) {
  SKIP_WITHOUT_DEVICE();
  // A [2, 3, 4] * B [3, 1] -> C [2, 3, 4]: dB sums over dims 0 and 2.
  CheckMulDiv({2, 3, 4}, {3, 1}, {2, 3, 4}, {}, "B [3, 1]");
  // A [3, 1] * B [2, 1, 4] -> C [2, 3, 4]: both operands broadcast.
  CheckMulDiv({3, 1}, {2, 1, 4}, {2, 3, 4}, {}, "both broadcast");
}

TEST(DeviceChecks, MulDivGradientLegacyBroadcast) {
  SKIP_WITHOUT_DEVICE();
  CheckMulDiv({2, 3, 4}, {3}, {2, 3, 4}, {{"broadcast", 1}, {"axis", 1}}, "legacy axis 1");
}

// Div's legacy 3-input form (B, C, dC): A's dims are C's.
TEST(DeviceChecks, DivGradientLegacyInputs) {
  SKIP_WITHOUT_DEVICE();
  const Tensor a = Values({2, 3, 4}, 0.5f, 0.1f);
  const Tensor b = Divisors({4});
  EXPECT_TRUE(oracles::DeviceChecks(
      MakeOp("DivGradient", {"b", "c", "dc"}, {"da", "db"}),
      {{"b", b}, {"c", DivOutput(a, b)}, {"dc", Values({2, 3, 4}, -1.0f, 0.3f)}}));
}

// dA written in place of dC while dB still reads dC.
TEST(DeviceChecks, MulDivGradientInPlaceOfDc) {
  SKIP_WITHOUT_DEVICE();
  const Tensor dc = Values({2, 3, 4}, -1.0f, 0.3f);
  const Tensor a = Values({2, 3, 4}, 0.5f, 0.1f);
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("MulGradient", {"dc", "a", "b"}, {"dc", "db"}),
                                    {{"dc", dc}, {"a", a}, {"b", Values({4}, -0.5f, 0.2f)}}));
  const Tensor b = Divisors({4});
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("DivGradient", {"dc", "a", "b", "c"}, {"dc", "db"}),
                                    {{"dc", dc}, {"a", a}, {"b", b}, {"c", DivOutput(a, b)}}));
}

// Mismatched dC: both devices refuse (the CUDA op runs the CPU's shape inference).
TEST(DeviceChecks, MulGradientShapeMismatchFailsOnBoth) {
  SKIP_WITHOUT_DEVICE();
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("MulGradient", {"dc", "a", "b"}, {"da", "db"}),
                                    {{"dc", Values({2, 4}, -1.0f, 0.3f)},
                                     {"a", Values({2, 3}, 0.5f, 0.1f)},
                                     {"b", Values({3}, -0.5f, 0.2f)}}));
}

// (Y, dY) -> dX with Y = Softmax(X) from the CPU engine.
void CheckSoftmaxGradient(const std::vector<int64_t>& dims, int64_t axis, bool in_place) {
  const std::vector<TestArg> args = {{"axis", axis}};
  auto ws = RunOp(MakeOp("Softmax", {"x"}, {"y"}, args),
                  {{"x", RandomTensor(dims, 11 + static_cast<uint32_t>(axis), -3.0f, 3.0f)}});
  const Tensor y = ws->GetBlob("y")->GetTensor();
  EXPECT_TRUE(
      oracles::DeviceChecks(MakeOp("SoftmaxGradient", {"y", "dy"}, {in_place ? "dy" : "dx"}, args),
                            {{"y", y}, {"dy", RandomTensor(dims, 23, -1.0f, 1.0f)}}))
      << ShapeString(dims) << " axis " << axis << (in_place ? " in place" : "");
}

TEST(DeviceChecks, SoftmaxGradient) {
  SKIP_WITHOUT_DEVICE();
  CheckSoftmaxGradient({4, 7}, 1, false);
  CheckSoftmaxGradient({2, 3, 5}, 2, false);
  CheckSoftmaxGradient({2, 3, 5}, 1, false);
  CheckSoftmaxGradient({4, 7}, 1, true);
}

}  // namespace
}  // namespace parity::testing

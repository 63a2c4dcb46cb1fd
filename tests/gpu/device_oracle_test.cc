// The device oracle and the "production-cuda" backend: CPU vs GPU where a device is present
// (each such test skips with one line where none is), and clear answers where none is.
#include <gtest/gtest.h>

#include "core/operator.h"
#include "core/proto/error.h"
#include "gpu/device.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "oracles/testing/op_checks.h"
#include "tests/gpu/device_test_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

using oracles::NamedTensors;

// Kernels are registered in CUDA builds only; `parity ops` shows them in its cuda column.
TEST(CudaRegistry, KernelsRegisteredExactlyInCudaBuilds) {
  for (const char* type : {"FC", "FCTransposed", "FCGradient", "FCTransposedGradient", "MatMul",
                           "BatchMatMul", "Relu", "Add", "Div",
                           "Softmax", "ReduceSum", "ReduceMean", "CopyCPUToGPU", "CopyGPUToCPU",
                           "EnsureCPUOutput", "Conv", "ConvRelu", "ConvGradient", "MaxPool",
                           "AveragePool", "MaxPoolGradient", "AveragePoolGradient",
                           "ReluGradient", "SigmoidGradient", "TanhGradient"}) {
    EXPECT_EQ(OperatorRegistry::HasKernel(type, kCudaDeviceType), gpu::CudaBuild()) << type;
  }
  // CPU-only ops stay so (the recurrent gradient accumulates on the host).
  EXPECT_FALSE(OperatorRegistry::HasKernel("RecurrentNetworkGradient", kCudaDeviceType));
}

TEST(CudaBackend, NamesTheCpuOnlyOpBeforeLookingForADevice) {
  Case c;
  *c.mutable_net()->add_op() = MakeOp("RecurrentNetworkGradient", {"x"}, {"y"});
  oracles::BackendRun run = oracles::GetBackend("production-cuda").Run(c);
  ASSERT_TRUE(run.error.has_value());
  EXPECT_EQ(run.error->kind(), ErrorKind::kUnknownOp);
  EXPECT_NE(std::string(run.error->what()).find("RecurrentNetworkGradient has no CUDA kernel (CPU only)"),
            std::string::npos)
      << run.error->what();
}

TEST(CudaBackend, WithoutADeviceSaysSo) {
  if (gpu::DeviceCount() > 0) GTEST_SKIP() << "a CUDA device is present: nothing to refuse";
  if (!gpu::CudaBuild()) GTEST_SKIP() << "no CUDA build: every op is CPU only (test above)";
  Case c = oracles::SingleOpCase(MakeOp("Relu", {"x"}, {"y"}), {{"x", Values({2, 3}, -1, 0.2f)}});
  oracles::BackendRun run = oracles::GetBackend("production-cuda").Run(c);
  ASSERT_TRUE(run.error.has_value());
  EXPECT_EQ(run.error->kind(), ErrorKind::kUnknownOp);
  EXPECT_NE(std::string(run.error->what()).find("no CUDA device"), std::string::npos)
      << run.error->what();
}

TEST(DeviceOracle, AskedForWithoutADeviceIsABadArgument) {
  if (gpu::DeviceCount() > 0) GTEST_SKIP() << "a CUDA device is present: nothing to refuse";
  Case c = oracles::SingleOpCase(MakeOp("Relu", {"x"}, {"y"}), {{"x", Values({2, 3}, -1, 0.2f)}});
  oracles::CheckRequest request;
  request.oracles = {"device"};
  try {
    oracles::CheckCase(c, request);
    FAIL() << "the device oracle ran without a device";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadArgument);
    EXPECT_NE(std::string(e.what()).find("no CUDA device"), std::string::npos) << e.what();
  }
  // Not in the default list either.
  for (const std::string& name : oracles::DefaultOracles()) EXPECT_NE(name, "device");
}

// A CUDA backend under test (a GPU mutant, or production-cuda itself) has the case's init net run
// on the CPU before the oracles see the case, as the backend itself runs one: freezing needs no
// device.
TEST(CudaBackend, UnderTestItsInitNetIsFrozenOnTheCpu) {
  Case c = oracles::SingleOpCase(MakeOp("Relu", {"x"}, {"y"}), {});
  caffe2::OperatorDef fill = MakeOp("ConstantFill", {}, {"x"}, {{"shape", Ints{2, 3}}});
  *c.mutable_init_net()->add_op() = fill;
  oracles::CheckRequest request;
  request.oracles = {"determinism"};
  request.backend = "production-cuda";
  const CaseReport report = oracles::CheckCase(c, request);
  // The frozen case holds the fill's result as an input, made on the CPU.
  ASSERT_EQ(report.checked_case().inputs_size(), 1);
  EXPECT_EQ(report.checked_case().inputs(0).name(), "x");
  EXPECT_FALSE(report.checked_case().has_init_net());
  if (gpu::DeviceCount() == 0) {
    // Both runs on the device fail alike: bad input for this machine, not a finding.
    EXPECT_EQ(report.verdicts(0).status(), OracleVerdict::REJECTED);
  } else {
    EXPECT_EQ(report.verdicts(0).status(), OracleVerdict::OK);
  }
}

// ---- On a device: CPU vs GPU through the device oracle (compiled everywhere, run on a GPU) ----

TEST(DeviceChecks, Unary) {
  SKIP_WITHOUT_DEVICE();
  for (const char* type : {"Relu", "Sigmoid", "Tanh", "Exp", "Sqr", "Abs", "Neg", "Softsign",
                           "Sin", "Cos", "Floor", "Ceil"}) {
    EXPECT_TRUE(oracles::DeviceChecks(MakeOp(type, {"x"}, {"y"}),
                                      {{"x", Values({3, 5, 7}, -2.0f, 0.25f)}}))
        << type;
  }
  for (const char* type : {"Log", "Sqrt", "Reciprocal"}) {
    EXPECT_TRUE(oracles::DeviceChecks(MakeOp(type, {"x"}, {"y"}),
                                      {{"x", Values({4, 9}, 0.5f, 0.25f)}}))
        << type;
  }
}

TEST(DeviceChecks, BinaryWithBroadcasting) {
  SKIP_WITHOUT_DEVICE();
  for (const char* type : {"Add", "Sub", "Mul", "Div"}) {
    EXPECT_TRUE(oracles::DeviceChecks(MakeOp(type, {"a", "b"}, {"c"}),
                                      {{"a", Values({2, 3, 4}, -1.0f, 0.3f)},
                                       {"b", Values({3, 1}, 0.5f, 0.5f)}}))
        << type;
    EXPECT_TRUE(oracles::DeviceChecks(
        MakeOp(type, {"a", "b"}, {"c"}, {{"broadcast", 1}, {"axis", 1}}),
        {{"a", Values({2, 3, 4}, -1.0f, 0.3f)}, {"b", Values({3}, 0.5f, 0.5f)}}))
        << type << " legacy";
  }
}

TEST(DeviceChecks, Gemms) {
  SKIP_WITHOUT_DEVICE();
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("FC", {"x", "w", "b"}, {"y"}),
                                    {{"x", Values({4, 6}, -1, 0.1f)},
                                     {"w", Values({5, 6}, -0.5f, 0.07f)},
                                     {"b", Values({5}, 0.1f, 0.1f)}}));
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("FCTransposed", {"x", "w", "b"}, {"y"}),
                                    {{"x", Values({4, 6}, -1, 0.1f)},
                                     {"w", Values({6, 5}, -0.5f, 0.07f)},
                                     {"b", Values({5}, 0.1f, 0.1f)}}));
  EXPECT_TRUE(oracles::DeviceChecks(
      MakeOp("MatMul", {"a", "b"}, {"y"}, {{"trans_a", 1}, {"trans_b", 1}}),
      {{"a", Values({6, 4}, -1, 0.1f)}, {"b", Values({5, 6}, -0.5f, 0.07f)}}));
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("BatchMatMul", {"a", "b"}, {"y"}),
                                    {{"a", Values({3, 4, 6}, -1, 0.1f)},
                                     {"b", Values({3, 6, 5}, -0.5f, 0.07f)}}));
  EXPECT_TRUE(oracles::DeviceChecks(
      MakeOp("BatchMatMul", {"a", "b"}, {"y"}, {{"broadcast", 1}}),
      {{"a", Values({2, 1, 4, 6}, -1, 0.1f)}, {"b", Values({3, 6, 5}, -0.5f, 0.07f)}}));
}

TEST(DeviceChecks, FcGradients) {
  SKIP_WITHOUT_DEVICE();
  for (const char* type : {"FCGradient", "FCTransposedGradient"}) {
    const bool transposed = std::string(type) == "FCTransposedGradient";
    EXPECT_TRUE(oracles::DeviceChecks(
        MakeOp(type, {"x", "w", "dy"}, {"dw", "db", "dx"}),
        {{"x", Values({4, 6}, -1, 0.1f)},
         {"w", Values(transposed ? std::vector<int64_t>{6, 5} : std::vector<int64_t>{5, 6},
                      -0.5f, 0.07f)},
         {"dy", Values({4, 5}, 0.2f, -0.05f)}}))
        << type;
  }
}

TEST(DeviceChecks, SoftmaxAndReductions) {
  SKIP_WITHOUT_DEVICE();
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Softmax", {"x"}, {"y"}),
                                    {{"x", Values({4, 300}, -3, 0.4f)}}));
  for (const char* type : {"ReduceSum", "ReduceMean"}) {
    EXPECT_TRUE(oracles::DeviceChecks(
        MakeOp(type, {"x"}, {"y"}, {{"axes", Ints{0, 2}}, {"keepdims", 0}}),
        {{"x", Values({3, 4, 5, 2}, -1, 0.3f)}}))
        << type;
  }
}

TEST(DeviceChecks, ConvAndItsGradient) {
  SKIP_WITHOUT_DEVICE();
  EXPECT_TRUE(oracles::DeviceChecks(
      MakeOp("Conv", {"x", "w", "b"}, {"y"},
             {{"kernel", 3}, {"stride", 2}, {"pad", 1}, {"dilation", 1}, {"group", 2}}),
      {{"x", Values({2, 4, 9, 7}, -1, 0.1f)},
       {"w", Values({6, 2, 3, 3}, -0.5f, 0.07f)},
       {"b", Values({6}, 0.1f, 0.1f)}}));
  EXPECT_TRUE(oracles::DeviceChecks(
      MakeOp("ConvRelu", {"x", "w"}, {"y"}, {{"kernel", 1}}),
      {{"x", Values({2, 4, 5, 5}, -1, 0.1f)}, {"w", Values({3, 4, 1, 1}, -0.5f, 0.07f)}}));
  EXPECT_TRUE(oracles::DeviceChecks(
      MakeOp("ConvGradient", {"x", "w", "dy"}, {"dw", "db", "dx"},
             {{"kernel", 3}, {"pad", 1}, {"dilations", Ints{2, 1}}}),
      {{"x", Values({2, 3, 8, 6}, -1, 0.1f)},
       {"w", Values({4, 3, 3, 3}, -0.5f, 0.07f)},
       {"dy", Values({2, 4, 6, 6}, 0.2f, -0.05f)}}));
  // no_bias: (dW, dX); and a pointwise convolution (no unfolding) with groups.
  EXPECT_TRUE(oracles::DeviceChecks(
      MakeOp("ConvGradient", {"x", "w", "dy"}, {"dw", "dx"},
             {{"kernel", 1}, {"group", 2}, {"no_bias", 1}}),
      {{"x", Values({2, 4, 3, 5}, -1, 0.1f)},
       {"w", Values({6, 2, 1, 1}, -0.5f, 0.07f)},
       {"dy", Values({2, 6, 3, 5}, 0.2f, -0.05f)}}));
}

TEST(DeviceChecks, PoolsAndTheirGradients) {
  SKIP_WITHOUT_DEVICE();
  const std::vector<TestArg> args = {{"kernel", 3}, {"stride", 2}, {"pad", 1}};
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("MaxPool", {"x"}, {"y"}, args),
                                    {{"x", Values({2, 3, 9, 8}, -1, 0.1f)}}));
  EXPECT_TRUE(oracles::DeviceChecks(
      MakeOp("AveragePool", {"x"}, {"y"}, {{"kernel", 3}, {"pad", 1}, {"count_include_pad", 1}}),
      {{"x", Values({2, 3, 9, 8}, -1, 0.1f)}}));
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("AveragePool", {"x"}, {"y"}, {{"global_pooling", 1}}),
                                    {{"x", Values({2, 3, 9, 8}, -1, 0.1f)}}));
  // The gradients get the y their forward op makes, from an x without ties: with ties (Values()
  // repeats every 17 elements) the engines credit X's first maximum and the reference another
  // (measured on an H200: 8 of 432 elements, the CPU as far off as the GPU), which the fuzz specs
  // avoid the same way.
  const Tensor x = RandomTensor({2, 3, 9, 8}, 19);
  for (const char* type : {"MaxPoolGradient", "AveragePoolGradient"}) {
    const std::string forward = std::string(type) == "MaxPoolGradient" ? "MaxPool" : "AveragePool";
    const Tensor y = RunOp(MakeOp(forward, {"x"}, {"y"}, args), {{"x", x}})->GetTensor("y");
    EXPECT_TRUE(oracles::DeviceChecks(MakeOp(type, {"x", "y", "dy"}, {"dx"}, args),
                                      {{"x", x}, {"y", y}, {"dy", Values({2, 3, 5, 4}, 0.2f, -0.05f)}}))
        << type;
  }
  for (const char* type : {"ReluGradient", "SigmoidGradient", "TanhGradient"}) {
    EXPECT_TRUE(oracles::DeviceChecks(MakeOp(type, {"y", "dy"}, {"dx"}),
                                      {{"y", Values({3, 7}, -0.8f, 0.1f)},
                                       {"dy", Values({3, 7}, 0.2f, -0.05f)}}))
        << type;
  }
}

TEST(DeviceChecks, MacroRunsOrSkips) {
  EXPECT_DEVICE_CHECKS(MakeOp("Relu", {"x"}, {"y"}), {{"x", Values({2, 3}, -1, 0.3f)}});
}

}  // namespace
}  // namespace parity::testing

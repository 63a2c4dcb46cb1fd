// FCRelu, Range, Trilu, GatherElements (+ gradient) and Mod (+ gradient) on the device
// (gpu/ops/fc_relu.cc, misc.cc, mod.cc): registered in CUDA builds only, and CPU vs GPU where a
// device is present (those tests skip with one line where none is).
//
// Float cases go through the device oracle (oracles::DeviceChecks). Cases with integer inputs
// (indices, int Range / Trilu / Mod) and the cases both devices must reject go through
// DeviceJudged (device_judged.h): the oracle's own judgment, and the same message from both
// devices where both reject.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
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

TEST(CudaRegistry, MiscOpsRegisteredExactlyInCudaBuilds) {
  for (const char* type : {"FCRelu", "Range", "Trilu", "GatherElements", "GatherElementsGradient",
                           "Mod", "ModGradient"}) {
    EXPECT_EQ(OperatorRegistry::HasKernel(type, kCudaDeviceType), gpu::CudaBuild()) << type;
    EXPECT_TRUE(OperatorRegistry::HasKernel(type, kCpuDeviceType)) << type;
  }
}

TEST(DeviceChecks, FCRelu) {
  SKIP_WITHOUT_DEVICE();
  // Half the outputs negative before the Relu.
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("FCRelu", {"x", "w", "b"}, {"y"}),
                                    {{"x", RandomTensor({4, 5}, 1)},
                                     {"w", RandomTensor({3, 5}, 2)},
                                     {"b", RandomTensor({3}, 3)}}));
  // axis 2 and axis_w 1: X [2, 3, 2, 2] as [6, 4], W [2, 2, 2] as [2, 4].
  EXPECT_TRUE(
      oracles::DeviceChecks(MakeOp("FCRelu", {"x", "w", "b"}, {"y"}, {{"axis", 2}, {"axis_w", 1}}),
                            {{"x", RandomTensor({2, 3, 2, 2}, 4)},
                             {"w", RandomTensor({2, 2, 2}, 5)},
                             {"b", RandomTensor({2}, 6)}}));
  // NaN stays NaN through the Relu.
  Tensor x = RandomTensor({2, 3}, 7);
  x.mutable_data<float>()[1] = NAN;
  EXPECT_TRUE(oracles::DeviceChecks(
      MakeOp("FCRelu", {"x", "w", "b"}, {"y"}),
      {{"x", x}, {"w", RandomTensor({4, 3}, 8)}, {"b", RandomTensor({4}, 9)}}));
  // A W of another dtype: both refuse with FC's message (the CPU's order of checks).
  EXPECT_TRUE(DeviceJudged(MakeOp("FCRelu", {"x", "w", "b"}, {"y"}),
                           {{"x", RandomTensor({2, 3}, 1)},
                            {"w", MakeTensor<int32_t>({4, 3}, std::vector<int32_t>(12, 1))},
                            {"b", RandomTensor({4}, 3)}}));
  // Mismatched K: both refuse with FC's message.
  EXPECT_TRUE(
      DeviceJudged(MakeOp("FCRelu", {"x", "w", "b"}, {"y"}), {{"x", RandomTensor({2, 3}, 1)},
                                                              {"w", RandomTensor({4, 2}, 2)},
                                                              {"b", RandomTensor({4}, 3)}}));
}

TEST(DeviceChecks, Range) {
  SKIP_WITHOUT_DEVICE();
  auto scalars = [](std::vector<float> v) {
    oracles::NamedTensors in;
    for (size_t i = 0; i < v.size(); ++i) {
      in.push_back({"in" + std::to_string(i), MakeTensor<float>({}, {v[i]})});
    }
    return in;
  };
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Range", {"in0", "in1", "in2"}, {"y"}),
                                    scalars({0.5f, 4.2f, 0.3f})));
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Range", {"in0"}, {"y"}), scalars({9.0f})));
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Range", {"in0", "in1", "in2"}, {"y"}),
                                    scalars({3.0f, -2.0f, -0.5f})));
  EXPECT_TRUE(DeviceJudged(MakeOp("Range", {"a", "b", "c"}, {"y"}),
                           {{"a", MakeTensor<int32_t>({}, {10})},
                            {"b", MakeTensor<int32_t>({}, {-7})},
                            {"c", MakeTensor<int32_t>({1}, {-3})}}));
  EXPECT_TRUE(
      DeviceJudged(MakeOp("Range", {"a", "b"}, {"y"}),
                   {{"a", MakeTensor<int64_t>({}, {-4})}, {"b", MakeTensor<int64_t>({}, {20})}}));
  // Refused alike: step 0, mixed dtypes, two elements.
  EXPECT_TRUE(
      DeviceJudged(MakeOp("Range", {"in0", "in1", "in2"}, {"y"}), scalars({1.0f, 2.0f, 0.0f})));
  EXPECT_TRUE(
      DeviceJudged(MakeOp("Range", {"a", "b"}, {"y"}),
                   {{"a", MakeTensor<int64_t>({}, {0})}, {"b", MakeTensor<float>({}, {3.0f})}}));
  EXPECT_TRUE(
      DeviceJudged(MakeOp("Range", {"a"}, {"y"}), {{"a", MakeTensor<float>({2}, {1.0f, 2.0f})}}));
}

TEST(DeviceChecks, Trilu) {
  SKIP_WITHOUT_DEVICE();
  for (int upper : {0, 1}) {
    for (int64_t k : {-1, 0, 2}) {
      const std::vector<TestArg> args = {{"upper", upper}, {"k", k}};
      EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Trilu", {"x"}, {"y"}, args),
                                        {{"x", RandomTensor({2, 3, 4}, 11)}}))
          << upper << " " << k;
      EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Trilu", {"x"}, {"x"}, args),
                                        {{"x", RandomTensor({5, 3}, 12)}}))
          << "in place " << upper << " " << k;
      Tensor ints(DataType::kInt64, {3, 3});
      for (int64_t i = 0; i < 9; ++i) ints.mutable_data<int64_t>()[i] = i * 1000003 - 4;
      EXPECT_TRUE(DeviceJudged(MakeOp("Trilu", {"x"}, {"y"}, args), {{"x", ints}}))
          << "int64 " << upper << " " << k;
    }
  }
  EXPECT_TRUE(DeviceJudged(MakeOp("Trilu", {"x"}, {"y"}), {{"x", RandomTensor({4}, 13)}}));
}

TEST(DeviceChecks, GatherElementsAndGradient) {
  SKIP_WITHOUT_DEVICE();
  const Tensor data = RandomTensor({3, 4}, 21);
  // Axis 1 with repeated and negative indices; INDICES [2, 5] (fewer rows, more columns).
  const Tensor idx = MakeTensor<int64_t>({2, 5}, {0, 3, -1, 1, 1, 2, 2, -4, 0, 3});
  EXPECT_TRUE(DeviceJudged(MakeOp("GatherElements", {"d", "i"}, {"y"}, {{"axis", 1}}),
                           {{"d", data}, {"i", idx}}));
  const Tensor idx0 = MakeTensor<int32_t>({2, 4}, {0, 2, 1, -1, 2, 2, 0, 1});
  EXPECT_TRUE(DeviceJudged(MakeOp("GatherElements", {"d", "i"}, {"y"}, {{"axis", 0}}),
                           {{"d", data}, {"i", idx0}}));
  EXPECT_TRUE(
      DeviceJudged(MakeOp("GatherElementsGradient", {"d", "i", "dy"}, {"dd"}, {{"axis", 1}}),
                   {{"d", data}, {"i", idx}, {"dy", RandomTensor({2, 5}, 22)}}));
  EXPECT_TRUE(
      DeviceJudged(MakeOp("GatherElementsGradient", {"d", "i", "dy"}, {"dd"}, {{"axis", -2}}),
                   {{"d", data}, {"i", idx0}, {"dy", RandomTensor({2, 4}, 23)}}));
  // Refused alike: an index out of range, a rank mismatch, float indices.
  EXPECT_TRUE(DeviceJudged(MakeOp("GatherElements", {"d", "i"}, {"y"}, {{"axis", 1}}),
                           {{"d", data}, {"i", MakeTensor<int64_t>({1, 2}, {0, 4})}}));
  EXPECT_TRUE(DeviceJudged(MakeOp("GatherElements", {"d", "i"}, {"y"}),
                           {{"d", data}, {"i", MakeTensor<int64_t>({2}, {0, 1})}}));
  EXPECT_TRUE(
      DeviceJudged(MakeOp("GatherElementsGradient", {"d", "i", "dy"}, {"dd"}, {{"axis", 1}}),
                   {{"d", data},
                    {"i", MakeTensor<int64_t>({1, 2}, {0, -5})},
                    {"dy", RandomTensor({1, 2}, 24)}}));
}

TEST(DeviceChecks, Mod) {
  SKIP_WITHOUT_DEVICE();
  for (int python : {0, 1}) {
    const std::vector<TestArg> args = {{"sign_follow_divisor", python}};
    EXPECT_TRUE(oracles::DeviceChecks(
        MakeOp("Mod", {"a", "b"}, {"c"}, args),
        {{"a", RandomTensor({2, 3, 4}, 31, -9, 9)}, {"b", RandomTensor({3, 1}, 32, 0.5f, 3)}}))
        << python;
    Tensor a(DataType::kInt32, {2, 3});
    for (int64_t i = 0; i < 6; ++i) a.mutable_data<int32_t>()[i] = static_cast<int32_t>(i * 7 - 20);
    EXPECT_TRUE(DeviceJudged(MakeOp("Mod", {"a", "b"}, {"c"}, args),
                             {{"a", a}, {"b", MakeTensor<int32_t>({3}, {3, -4, 5})}}))
        << "int32 " << python;
    std::vector<TestArg> divisor = args;
    divisor.push_back({"divisor", int64_t{-6}});
    EXPECT_TRUE(DeviceJudged(MakeOp("Mod", {"a"}, {"c"}, divisor), {{"a", a}}))
        << "divisor " << python;
  }
  // Refused alike: an integer zero divisor, mixed dtypes, the divisor twice.
  EXPECT_TRUE(DeviceJudged(
      MakeOp("Mod", {"a", "b"}, {"c"}),
      {{"a", MakeTensor<int64_t>({2}, {5, 6})}, {"b", MakeTensor<int64_t>({2}, {2, 0})}}));
  EXPECT_TRUE(DeviceJudged(
      MakeOp("Mod", {"a", "b"}, {"c"}),
      {{"a", MakeTensor<int64_t>({2}, {5, 6})}, {"b", MakeTensor<float>({2}, {2, 1})}}));
  EXPECT_TRUE(
      DeviceJudged(MakeOp("Mod", {"a", "b"}, {"c"}, {{"divisor", int64_t{3}}}),
                   {{"a", MakeTensor<int64_t>({1}, {5})}, {"b", MakeTensor<int64_t>({1}, {2})}}));
}

// (dC, A, B, C) with C = Mod(A, B) from the CPU engine.
void CheckModGradient(const std::vector<int64_t>& a_dims, const std::vector<int64_t>& b_dims) {
  const Tensor a = RandomTensor(a_dims, 41, -9, 9);
  const Tensor b = RandomTensor(b_dims, 42, 0.5f, 3);
  auto ws = RunOp(MakeOp("Mod", {"a", "b"}, {"c"}), {{"a", a}, {"b", b}});
  const Tensor c = ws->GetBlob("c")->GetTensor();
  EXPECT_TRUE(
      oracles::DeviceChecks(MakeOp("ModGradient", {"dc", "a", "b", "c"}, {"da", "db"}),
                            {{"dc", RandomTensor(c.dims(), 43)}, {"a", a}, {"b", b}, {"c", c}}))
      << ShapeString(a_dims) << " mod " << ShapeString(b_dims);
}

TEST(DeviceChecks, ModGradient) {
  SKIP_WITHOUT_DEVICE();
  CheckModGradient({2, 3, 4}, {2, 3, 4});
  CheckModGradient({2, 3, 4}, {3, 1});
  CheckModGradient({3, 1}, {2, 1, 4});
}

}  // namespace
}  // namespace parity::testing

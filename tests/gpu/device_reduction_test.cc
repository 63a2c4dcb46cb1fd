// ReduceMax / ReduceMin / ReduceProd, the Reduce* gradients, SumElements, AveragedLoss and their
// gradients on the device (gpu/ops/reduction.cc): registered in CUDA builds only, and CPU vs GPU
// through the device oracle where a device is present (those tests skip with one line where none
// is).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/operator.h"
#include "gpu/device.h"
#include "oracles/testing/op_checks.h"
#include "tests/gpu/device_judged.h"
#include "tests/gpu/device_test_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

TEST(CudaRegistry, ReductionKernelsRegisteredExactlyInCudaBuilds) {
  for (const char* type :
       {"ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumGradient", "ReduceMeanGradient",
        "ReduceMaxGradient", "ReduceMinGradient", "ReduceProdGradient", "SumElements",
        "SumElementsGradient", "AveragedLoss", "AveragedLossGradient"}) {
    EXPECT_EQ(OperatorRegistry::HasKernel(type, kCudaDeviceType), gpu::CudaBuild()) << type;
    EXPECT_TRUE(OperatorRegistry::HasKernel(type, kCpuDeviceType)) << type;
  }
}

struct AxesCase {
  std::vector<int64_t> dims;
  std::vector<int64_t> axes;
  bool keepdims;
};

const std::vector<AxesCase> kAxesCases = {
    {{3, 4, 5}, {1}, true},    {{3, 4, 5}, {0, 2}, false}, {{3, 4, 5}, {}, false},
    {{6, 1, 7}, {0, 2}, true}, {{5, 23}, {-1}, false},
};

std::vector<TestArg> AxesArgs(const AxesCase& c) {
  return {{"axes", Ints(c.axes)}, {"keepdims", c.keepdims ? 1 : 0}};
}

TEST(DeviceChecks, ReduceMaxMinProd) {
  SKIP_WITHOUT_DEVICE();
  for (const char* type : {"ReduceMax", "ReduceMin", "ReduceProd"}) {
    for (const AxesCase& c : kAxesCases) {
      EXPECT_TRUE(oracles::DeviceChecks(MakeOp(type, {"x"}, {"y"}, AxesArgs(c)),
                                        {{"x", RandomTensor(c.dims, 5, 0.5f, 1.5f)}}))
          << type << " " << ShapeString(c.dims) << " axes " << ShapeString(c.axes);
    }
  }
}

// Max / min over an empty axis: both devices refuse.
TEST(DeviceChecks, ReduceMaxOverAnEmptyAxisFailsOnBoth) {
  SKIP_WITHOUT_DEVICE();
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("ReduceMax", {"x"}, {"y"}, {{"axes", Ints{1}}}),
                                    {{"x", Values({2, 0}, 0.0f, 1.0f)}}));
}

// (dY, X, Y) -> dX, Y from the CPU's forward op, through the device oracle: X with a zero per 17
// elements (prod), and without ties. With ties (X repeats every 17), max / min route dY to the
// first holder of the extremum where the reference follows Caffe2 (every tied element): the
// devices are held to each other there, bit for bit.
TEST(DeviceChecks, ReduceGradients) {
  SKIP_WITHOUT_DEVICE();
  for (const char* type : {"ReduceSumGradient", "ReduceMeanGradient", "ReduceMaxGradient",
                           "ReduceMinGradient", "ReduceProdGradient"}) {
    const std::string forward = std::string(type).substr(0, std::string(type).size() - 8);
    const bool routes = forward == "ReduceMax" || forward == "ReduceMin";
    for (const AxesCase& c : kAxesCases) {
      for (bool ties : {false, true}) {
        const Tensor x = ties ? Values(c.dims, -1.0f, 0.25f) : RandomTensor(c.dims, 4, -1.0f, 1.0f);
        auto ws = RunOp(MakeOp(forward, {"x"}, {"y"}, AxesArgs(c)), {{"x", x}});
        const Tensor y = ws->GetBlob("y")->GetTensor();
        const caffe2::OperatorDef op = MakeOp(type, {"dy", "x", "y"}, {"dx"}, AxesArgs(c));
        const oracles::NamedTensors inputs = {
            {"dy", RandomTensor(y.dims(), 9, -1.0f, 1.0f)}, {"x", x}, {"y", y}};
        EXPECT_TRUE(ties && routes ? SameOnBothDevices(op, inputs)
                                   : oracles::DeviceChecks(op, inputs))
            << type << " " << ShapeString(c.dims) << " axes " << ShapeString(c.axes)
            << (ties ? " with ties" : "");
      }
    }
  }
}

TEST(DeviceChecks, SumElementsAndAveragedLoss) {
  SKIP_WITHOUT_DEVICE();
  for (const auto& dims : std::vector<std::vector<int64_t>>{{3, 7}, {1000}, {}, {2, 0}}) {
    const Tensor x = RandomTensor(dims, 13, -1.0f, 1.0f);
    for (int average = 0; average < 2; ++average) {
      EXPECT_TRUE(oracles::DeviceChecks(MakeOp("SumElements", {"x"}, {"y"}, {{"average", average}}),
                                        {{"x", x}}))
          << ShapeString(dims) << " average " << average;
      EXPECT_TRUE(oracles::DeviceChecks(
          MakeOp("SumElementsGradient", {"x", "dy"}, {"dx"}, {{"average", average}}),
          {{"x", x}, {"dy", Values({}, 0.7f, 0.0f)}}))
          << ShapeString(dims) << " average " << average;
    }
    EXPECT_TRUE(oracles::DeviceChecks(MakeOp("AveragedLoss", {"x"}, {"y"}), {{"x", x}}))
        << ShapeString(dims);
    EXPECT_TRUE(oracles::DeviceChecks(MakeOp("AveragedLossGradient", {"x", "dy"}, {"dx"}),
                                      {{"x", x}, {"dy", Values({}, -1.5f, 0.0f)}}))
        << ShapeString(dims);
  }
}

// A gradient that is not a scalar: both devices refuse.
TEST(DeviceChecks, ScalarGradientOfTwoElementsFailsOnBoth) {
  SKIP_WITHOUT_DEVICE();
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("AveragedLossGradient", {"x", "dy"}, {"dx"}),
                                    {{"x", Values({3}, 1.0f, 1.0f)}, {"dy", Values({2}, 1, 1)}}));
}

}  // namespace
}  // namespace parity::testing

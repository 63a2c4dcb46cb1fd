// Max, Min, Mean, MaxGradient, MinGradient and MeanGradient on the device (gpu/ops/variadic.cc):
// registered in CUDA builds only, and CPU vs GPU through the device oracle where a device is
// present (those tests skip with one line where none is).
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

TEST(CudaRegistry, VariadicKernelsRegisteredExactlyInCudaBuilds) {
  for (const char* type : {"Max", "Min", "Mean", "MaxGradient", "MinGradient", "MeanGradient"}) {
    EXPECT_EQ(OperatorRegistry::HasKernel(type, kCudaDeviceType), gpu::CudaBuild()) << type;
    EXPECT_TRUE(OperatorRegistry::HasKernel(type, kCpuDeviceType)) << type;
  }
}

// Inputs x0, x1, ... of `shapes`, ramps that tie across inputs now and then.
oracles::NamedTensors Ramps(const std::vector<std::vector<int64_t>>& shapes,
                            std::vector<std::string>* names) {
  oracles::NamedTensors inputs;
  for (size_t i = 0; i < shapes.size(); ++i) {
    names->push_back("x" + std::to_string(i));
    inputs.push_back({names->back(), Values(shapes[i], -1.0f + 0.25f * i, 0.25f)});
  }
  return inputs;
}

// Sets of input shapes: equal ones, which the f64 reference (Caffe2's Max / Min: no broadcasting)
// judges through the device oracle, and broadcasting ones, which only parity's engines run: their
// values are exact, so the CPU and the GPU must agree bit for bit.
const std::vector<std::vector<std::vector<int64_t>>> kShapeSets = {
    {{2, 3, 4}},
    {{2, 3, 4}, {2, 3, 4}, {2, 3, 4}},
    {{2, 3, 4}, {3, 1}, {4}},
    {{3, 1}, {1, 5}},
    {{5}, {2, 5}, {5}, {2, 5}, {5}, {2, 5}, {5}, {2, 5}, {5}, {2, 5}},  // two launches
    {{2, 5}, {2, 5}, {2, 5}, {2, 5}, {2, 5}, {2, 5}, {2, 5}, {2, 5}, {2, 5}},
};

bool Broadcasts(const std::vector<std::vector<int64_t>>& shapes) {
  for (const auto& shape : shapes) {
    if (shape != shapes.front()) return true;
  }
  return false;
}

::testing::AssertionResult OnTheDevice(const caffe2::OperatorDef& op,
                                       const oracles::NamedTensors& inputs, bool broadcasts) {
  return broadcasts ? SameOnBothDevices(op, inputs) : oracles::DeviceChecks(op, inputs);
}

TEST(DeviceChecks, MaxMin) {
  SKIP_WITHOUT_DEVICE();
  for (const char* type : {"Max", "Min"}) {
    for (const auto& shapes : kShapeSets) {
      std::vector<std::string> names;
      const oracles::NamedTensors inputs = Ramps(shapes, &names);
      EXPECT_TRUE(OnTheDevice(MakeOp(type, names, {"y"}), inputs, Broadcasts(shapes)))
          << type << " of " << shapes.size();
    }
  }
}

TEST(DeviceChecks, MaxInPlaceOfInput0) {
  SKIP_WITHOUT_DEVICE();
  for (const auto& shapes : std::vector<std::vector<std::vector<int64_t>>>{
           {{2, 3, 4}, {4}}, {{2, 3, 4}, {2, 3, 4}}}) {
    std::vector<std::string> names;
    const oracles::NamedTensors inputs = Ramps(shapes, &names);
    EXPECT_TRUE(OnTheDevice(MakeOp("Max", names, {"x0"}), inputs, Broadcasts(shapes)))
        << shapes.size();
  }
}

TEST(DeviceChecks, MaxGradientMinGradient) {
  SKIP_WITHOUT_DEVICE();
  for (const char* type : {"Max", "Min"}) {
    for (const auto& shapes : kShapeSets) {
      std::vector<std::string> names;
      oracles::NamedTensors inputs = Ramps(shapes, &names);
      std::map<std::string, Tensor> fwd_inputs(inputs.begin(), inputs.end());
      auto ws = RunOp(MakeOp(type, names, {"y"}), fwd_inputs);
      const Tensor y = ws->GetBlob("y")->GetTensor();
      std::vector<std::string> in = {"y", "dy"}, out;
      for (const std::string& name : names) {
        in.push_back(name);
        out.push_back("d" + name);
      }
      inputs.push_back({"y", y});
      inputs.push_back({"dy", RandomTensor(y.dims(), 3, -1.0f, 1.0f)});
      EXPECT_TRUE(OnTheDevice(MakeOp(std::string(type) + "Gradient", in, out), inputs,
                              Broadcasts(shapes)))
          << type << "Gradient of " << shapes.size();
    }
  }
}

TEST(DeviceChecks, MeanAndMeanGradient) {
  SKIP_WITHOUT_DEVICE();
  for (int n : {1, 3, 9}) {
    std::vector<std::string> names, outs;
    const oracles::NamedTensors inputs =
        Ramps(std::vector<std::vector<int64_t>>(n, {3, 5}), &names);
    EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Mean", names, {"y"}), inputs)) << n;
    EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Mean", names, {"x0"}), inputs)) << n << " in place";
    for (int i = 0; i < n; ++i) outs.push_back("dx" + std::to_string(i));
    EXPECT_TRUE(oracles::DeviceChecks(MakeOp("MeanGradient", {"dy"}, outs),
                                      {{"dy", Values({3, 5}, 0.5f, -0.125f)}}))
        << n;
    outs[0] = "dy";
    EXPECT_TRUE(oracles::DeviceChecks(MakeOp("MeanGradient", {"dy"}, outs),
                                      {{"dy", Values({3, 5}, 0.5f, -0.125f)}}))
        << n << " in place";
  }
}

// Shapes that do not broadcast: both devices refuse.
TEST(DeviceChecks, MaxOfIncompatibleShapesFailsOnBoth) {
  SKIP_WITHOUT_DEVICE();
  std::vector<std::string> names;
  EXPECT_TRUE(
      oracles::DeviceChecks(MakeOp("Max", {"x0", "x1"}, {"y"}), Ramps({{2, 3}, {4}}, &names)));
}

}  // namespace
}  // namespace parity::testing

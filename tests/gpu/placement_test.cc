// gpu/placement.h: where a CUDA run places a net's inputs, and the nets that cannot run on the
// device without a cross-device copy (plain C++: runs on every machine).
#include "gpu/placement.h"

#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace parity::testing {
namespace {

using gpu::PlanCudaPlacement;

caffe2::NetDef Net(std::vector<caffe2::OperatorDef> ops) {
  caffe2::NetDef net;
  for (auto& op : ops) *net.add_op() = op;
  return net;
}

TEST(CudaPlacement, AnInputOfCopyCpuToGpuStaysOnTheHost) {
  const auto plan =
      PlanCudaPlacement(Net({MakeOp("CopyCPUToGPU", {"x"}, {"x_gpu"}),
                             MakeOp("Relu", {"x_gpu"}, {"y"}), MakeOp("Add", {"y", "b"}, {"z"})}));
  EXPECT_EQ(plan.host_inputs, std::set<std::string>{"x"});
  EXPECT_EQ(plan.problem, "");
}

TEST(CudaPlacement, ADeviceOpReadingWhatCopyGpuToCpuMadeIsAProblem) {
  const auto plan = PlanCudaPlacement(
      Net({MakeOp("CopyGPUToCPU", {"x"}, {"t"}), MakeOp("Sigmoid", {"t"}, {"y"})}));
  EXPECT_TRUE(plan.host_inputs.empty());
  EXPECT_EQ(plan.problem,
            "op #1 (Sigmoid) reads 't' on the device, but op #0 (CopyGPUToCPU) put it on the "
            "host: on CUDA the net needs a copy there (Caffe2 inserts none)");
}

TEST(CudaPlacement, AnInputReadOnBothSidesIsAProblem) {
  const auto plan =
      PlanCudaPlacement(Net({MakeOp("Relu", {"x"}, {"y"}), MakeOp("CopyCPUToGPU", {"x"}, {"z"})}));
  EXPECT_NE(plan.problem.find("op #1 (CopyCPUToGPU) reads 'x' on the host"), std::string::npos)
      << plan.problem;
}

TEST(CudaPlacement, HostSideShapesAndEitherSideReadersAreFine) {
  // Reshape's old_shape lives on the host and the next Reshape reads its shape input anywhere;
  // EnsureCPUOutput takes either side, and a copy back to the device makes a device tensor again.
  const auto plan = PlanCudaPlacement(Net({
      MakeOp("Reshape", {"x"}, {"r", "old_shape"}, {{"shape", Ints{-1}}}),
      MakeOp("Reshape", {"r", "old_shape"}, {"back", "unused"}),
      MakeOp("EnsureCPUOutput", {"back"}, {"host"}),
      MakeOp("EnsureCPUOutput", {"host"}, {"host2"}),
      MakeOp("CopyCPUToGPU", {"host2"}, {"device"}),
      MakeOp("Relu", {"device"}, {"y"}),
  }));
  EXPECT_EQ(plan.problem, "");
  EXPECT_TRUE(plan.host_inputs.empty());
}

TEST(CudaPlacement, CopyCpuToGpuOfADeviceTensorIsAProblem) {
  const auto plan =
      PlanCudaPlacement(Net({MakeOp("Relu", {"x"}, {"y"}), MakeOp("CopyCPUToGPU", {"y"}, {"z"})}));
  EXPECT_EQ(plan.problem,
            "op #1 (CopyCPUToGPU) reads 'y' on the host, but op #0 (Relu) put it on the device: "
            "on CUDA the net needs a copy there (Caffe2 inserts none)");
}

}  // namespace
}  // namespace parity::testing

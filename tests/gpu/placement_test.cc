// gpu/placement.h: where a CUDA run places a net's inputs, and the nets that cannot run on the
// device without a cross-device copy (plain C++: runs on every machine).
#include "gpu/placement.h"

#include <gtest/gtest.h>

#include "tests/control/control_util.h"

namespace parity::testing {
namespace {

using gpu::PlanCudaPlacement;

// A net named "net".
caffe2::NetDef Ops(const std::vector<caffe2::OperatorDef>& ops) { return Net("net", ops); }

TEST(CudaPlacement, AnInputOfCopyCpuToGpuStaysOnTheHost) {
  const auto plan =
      PlanCudaPlacement(Ops({MakeOp("CopyCPUToGPU", {"x"}, {"x_gpu"}),
                             MakeOp("Relu", {"x_gpu"}, {"y"}), MakeOp("Add", {"y", "b"}, {"z"})}));
  EXPECT_EQ(plan.host_inputs, std::set<std::string>{"x"});
  EXPECT_EQ(plan.problem, "");
}

TEST(CudaPlacement, ADeviceOpReadingWhatCopyGpuToCpuMadeIsAProblem) {
  const auto plan = PlanCudaPlacement(
      Ops({MakeOp("CopyGPUToCPU", {"x"}, {"t"}), MakeOp("Sigmoid", {"t"}, {"y"})}));
  EXPECT_TRUE(plan.host_inputs.empty());
  EXPECT_EQ(plan.problem,
            "op #1 (Sigmoid) reads 't' on the device, but op #0 (CopyGPUToCPU) put it on the "
            "host: on CUDA the net needs a copy there (Caffe2 inserts none)");
}

TEST(CudaPlacement, AnInputReadOnBothSidesIsAProblem) {
  const auto plan =
      PlanCudaPlacement(Ops({MakeOp("Relu", {"x"}, {"y"}), MakeOp("CopyCPUToGPU", {"x"}, {"z"})}));
  EXPECT_NE(plan.problem.find("op #1 (CopyCPUToGPU) reads 'x' on the host"), std::string::npos)
      << plan.problem;
}

TEST(CudaPlacement, HostSideShapesAndEitherSideReadersAreFine) {
  // Reshape's old_shape lives on the host and the next Reshape reads its shape input anywhere;
  // EnsureCPUOutput takes either side, and a copy back to the device makes a device tensor again.
  const auto plan = PlanCudaPlacement(Ops({
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
      PlanCudaPlacement(Ops({MakeOp("Relu", {"x"}, {"y"}), MakeOp("CopyCPUToGPU", {"y"}, {"z"})}));
  EXPECT_EQ(plan.problem,
            "op #1 (CopyCPUToGPU) reads 'y' on the host, but op #0 (Relu) put it on the device: "
            "on CUDA the net needs a copy there (Caffe2 inserts none)");
}

// Control ops: their inputs are bindings or a condition read on either side; their subnets'
// ops are followed as if inline.
TEST(CudaPlacement, ASubnetReadingAHostTensorIsAProblem) {
  caffe2::OperatorDef op = MakeOp("If", {"cond", "t"}, {"y"});
  op = WithNet(op, "then_net", Ops({MakeOp("Relu", {"t"}, {"y"})}));
  const auto plan = PlanCudaPlacement(Ops({MakeOp("CopyGPUToCPU", {"x"}, {"t"}), op}));
  EXPECT_EQ(plan.problem,
            "op #1 (If) then_net: op #0 (Relu) reads 't' on the device, but op #0 (CopyGPUToCPU) "
            "put it on the host: on CUDA the net needs a copy there (Caffe2 inserts none)");
}

TEST(CudaPlacement, AConditionMayBeOnEitherSide) {
  caffe2::OperatorDef op = MakeOp("If", {"cond", "x"}, {"y"});
  op = WithNet(op, "then_net", Ops({MakeOp("Relu", {"x"}, {"y"})}));
  // HasScope's flag is on the host, LT's on the device: If reads either.
  const auto plan = PlanCudaPlacement(
      Ops({MakeOp("CreateScope", {}, {"scope"}), MakeOp("HasScope", {"scope"}, {"cond"}), op,
           MakeOp("LT", {"x", "y"}, {"cond"}), op, MakeOp("Relu", {"y"}, {"z"})}));
  EXPECT_EQ(plan.problem, "");
  EXPECT_TRUE(plan.host_inputs.empty());
}

TEST(CudaPlacement, ADeviceOpReadingHasScopesFlagIsAProblem) {
  const auto plan = PlanCudaPlacement(
      Ops({MakeOp("CreateScope", {}, {"scope"}), MakeOp("HasScope", {"scope"}, {"has"}),
           MakeOp("Not", {"has"}, {"hasnt"})}));
  EXPECT_NE(plan.problem.find("op #2 (Not) reads 'has' on the device, but op #1 (HasScope) put "
                              "it on the host"),
            std::string::npos)
      << plan.problem;
}

TEST(CudaPlacement, DoFollowsItsBindingsAndKeepsItsLocalsApart) {
  // The body reads the outer host tensor 't' under the inner name 'a': a problem. Its local 'x'
  // is not the outer 'x' (a host input of CopyCPUToGPU outside).
  const caffe2::NetDef body = Ops({MakeOp("Relu", {"a"}, {"x"}), MakeOp("Relu", {"x"}, {"out"})});
  const auto plan = PlanCudaPlacement(Ops(
      {MakeOp("CopyCPUToGPU", {"x"}, {"xd"}), MakeOp("CopyGPUToCPU", {"xd"}, {"t"}),
       MakeOp("CreateScope", {}, {"scope"}), MakeDo({"t"}, {"y"}, {"a"}, {"out"}, "scope", body)}));
  EXPECT_EQ(plan.host_inputs, std::set<std::string>{"x"});
  EXPECT_NE(plan.problem.find("op #3 (Do) net: op #0 (Relu) reads 't' on the device"),
            std::string::npos)
      << plan.problem;

  const auto fine = PlanCudaPlacement(Ops({MakeOp("CreateScope", {}, {"scope"}),
                                           MakeDo({"w"}, {"y"}, {"a"}, {"out"}, "scope", body),
                                           MakeOp("CopyCPUToGPU", {"x"}, {"z"})}));
  EXPECT_EQ(fine.problem, "");
  EXPECT_EQ(fine.host_inputs, std::set<std::string>{"x"});
}

TEST(CudaPlacement, WhilesSecondPassReadsWhatTheFirstWrote) {
  // Pass 1 reads 'h' as an input on the device; its end puts 'h' on the host for pass 2.
  caffe2::OperatorDef loop = MakeOp("While", {"cond", "h"}, {"h"});
  loop = WithNet(loop, "loop_net",
                 Ops({MakeOp("Relu", {"h"}, {"r"}), MakeOp("CopyGPUToCPU", {"r"}, {"h"})}));
  const auto plan = PlanCudaPlacement(Ops({loop}));
  EXPECT_NE(plan.problem.find("op #0 (While) loop_net: op #0 (Relu) reads 'h' on the device, but "
                              "op #0 (While) loop_net: op #1 (CopyGPUToCPU) put it on the host"),
            std::string::npos)
      << plan.problem;
}

}  // namespace
}  // namespace parity::testing

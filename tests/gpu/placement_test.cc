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

// If's branches start alike; a blob they leave on different sides is placed by the run.
TEST(CudaPlacement, ABlobIfsBranchesLeaveApartIsAProblemForAStrictReader) {
  caffe2::OperatorDef op = MakeOp("If", {"cond", "x"}, {"t"});
  op = WithNet(op, "then_net", Ops({MakeOp("EnsureCPUOutput", {"x"}, {"t"})}));
  op = WithNet(op, "else_net", Ops({MakeOp("Scale", {"x"}, {"t"})}));
  const auto plan =
      PlanCudaPlacement(Ops({op, MakeOp("NegativeLogLikelihoodLoss", {"t", "label"}, {"loss"})}));
  EXPECT_EQ(plan.problem,
            "op #1 (NegativeLogLikelihoodLoss) reads 't' on the device, but op #0 (If) leaves it "
            "on the host or on the device, by the run, so on CUDA the net runs or not by its "
            "data (Caffe2 inserts no copy)");
  // Read on either side (EnsureCPUOutput), or not at all, it is fine.
  EXPECT_EQ(PlanCudaPlacement(Ops({op, MakeOp("EnsureCPUOutput", {"t"}, {"u"})})).problem, "");
  EXPECT_EQ(PlanCudaPlacement(Ops({op})).problem, "");
}

TEST(CudaPlacement, TheElseBranchDoesNotSeeWhatTheThenBranchWrote) {
  // Before: the else branch read 't' as the then branch left it, on the host.
  caffe2::OperatorDef op = MakeOp("If", {"cond", "x"}, {"y"});
  op = WithNet(op, "then_net", Ops({MakeOp("CopyGPUToCPU", {"x"}, {"t"})}));
  op = WithNet(op, "else_net",
               Ops({MakeOp("Relu", {"x"}, {"t"}), MakeOp("Relu", {"t"}, {"y"})}));
  const auto plan = PlanCudaPlacement(Ops({op}));
  EXPECT_EQ(plan.problem, "");
  EXPECT_TRUE(plan.host_inputs.empty());
}

TEST(CudaPlacement, AWhileThatMayNotLoopLeavesItsBlobWhereItWas) {
  // Zero passes leave 'h' on the device; one or more put it on the host.
  caffe2::OperatorDef loop = MakeOp("While", {"cond", "h"}, {"h"});
  loop = WithNet(loop, "loop_net", Ops({MakeOp("EnsureCPUOutput", {"h"}, {"h"})}));
  const auto plan = PlanCudaPlacement(Ops({MakeOp("Relu", {"x"}, {"h"}), loop,
                                           MakeOp("Sigmoid", {"h"}, {"y"})}));
  EXPECT_NE(plan.problem.find("op #2 (Sigmoid) reads 'h' on the device, but op #1 (While) leaves "
                              "it on the host or on the device, by the run"),
            std::string::npos)
      << plan.problem;
}

// A RecurrentNetwork's step net: `links` are views of device tensors.
caffe2::OperatorDef Recurrent(const caffe2::NetDef& step) {
  caffe2::OperatorDef op = MakeOp("RecurrentNetwork", {"x", "h0", "w"}, {"out", "states"});
  op = WithStrings(op, "link_internal", {"input_t", "o"});
  op = WithStrings(op, "link_external", {"x", "states"});
  return WithNet(op, "step_net", step);
}

TEST(CudaPlacement, AStepOpMayNotPutALinkOnTheHost) {
  const auto plan = PlanCudaPlacement(Ops({Recurrent(Net(
      "step", {MakeOp("Tanh", {"input_t"}, {"u"}), MakeOp("EnsureCPUOutput", {"u"}, {"o"})}))}));
  EXPECT_EQ(plan.problem,
            "op #0 (RecurrentNetwork) step_net: op #1 (EnsureCPUOutput) writes 'o' on the host, "
            "but it is op #0 (RecurrentNetwork), a link to rows of 'states', on the device: on "
            "CUDA a step may not move it (Caffe2 inserts no copy)");
}

TEST(CudaPlacement, StepOpsReadTheirOwnBlobsAndTheOpsWorkspace) {
  // 'u' is the step's own (on the device): CopyCPUToGPU may not read it. 'w' is the outer
  // workspace's, read on the device.
  const auto bad = PlanCudaPlacement(Ops({Recurrent(Net(
      "step", {MakeOp("Tanh", {"input_t"}, {"u"}), MakeOp("CopyCPUToGPU", {"u"}, {"o"})}))}));
  EXPECT_NE(bad.problem.find("op #0 (RecurrentNetwork) step_net: op #1 (CopyCPUToGPU) reads "
                             "'op #0 (RecurrentNetwork) step_net/u' on the host"),
            std::string::npos)
      << bad.problem;
  const caffe2::NetDef step =
      Net("step", {MakeOp("Mul", {"input_t", "w"}, {"u"}), MakeOp("Tanh", {"u"}, {"o"})});
  EXPECT_EQ(PlanCudaPlacement(Ops({Recurrent(step), MakeOp("Relu", {"u"}, {"v"})})).problem, "");
  const auto host_weight = PlanCudaPlacement(
      Ops({MakeOp("EnsureCPUOutput", {"w0"}, {"w"}), Recurrent(step)}));
  EXPECT_NE(host_weight.problem.find("op #1 (RecurrentNetwork) reads 'w' on the device, but op #0 "
                                     "(EnsureCPUOutput) put it on the host"),
            std::string::npos)
      << host_weight.problem;
}

}  // namespace
}  // namespace parity::testing

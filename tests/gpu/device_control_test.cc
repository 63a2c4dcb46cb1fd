// Control flow on the device (gpu/ops/control.cc): Do, If, While, CreateScope and HasScope are
// registered for CUDA in CUDA builds, the CUDA backend puts the ops of their nested nets on the
// device and names a CPU-only op inside them, and, where a device is present, control-flow nets
// pass the device oracle (their bodies run on the GPU; the conditions are read through a host
// copy). The tests that need a device skip with one line where none is.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/operator.h"
#include "core/tensor_proto.h"
#include "gpu/device.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "oracles/describe.h"
#include "tests/control/control_util.h"
#include "tests/gpu/device_test_util.h"

namespace parity::testing {
namespace {

TEST(CudaRegistry, ControlOpsRegisteredExactlyInCudaBuilds) {
  for (const char* type : {"Do", "If", "While", "CreateScope", "HasScope"}) {
    EXPECT_EQ(OperatorRegistry::HasKernel(type, kCudaDeviceType), gpu::CudaBuild()) << type;
  }
}

Case MakeCase(const caffe2::NetDef& net, const std::vector<std::pair<std::string, Tensor>>& in) {
  Case c;
  *c.mutable_net() = net;
  for (const auto& [name, tensor] : in) {
    *c.add_inputs() = TensorToProto(tensor, name);
    c.mutable_net()->add_external_input(name);
  }
  c.set_seed(1);
  return c;
}

// The device oracle's verdict must be OK: a finding or "not applicable" fails, with its reason.
void ExpectDeviceOk(const Case& c, const std::string& what) {
  oracles::CheckRequest request;
  request.oracles = {"device"};
  const CaseReport report = oracles::CheckCase(c, request);
  ASSERT_EQ(report.verdicts_size(), 1) << what;
  const OracleVerdict& verdict = report.verdicts(0);
  EXPECT_EQ(verdict.status(), OracleVerdict::OK)
      << what << ": " << verdict.reason()
      << (verdict.has_finding() ? oracles::DescribeFinding(verdict.finding()) : "");
}

// y = Relu(x) * w when cond, else Sigmoid(x) + w, written by the branch into the outer workspace.
caffe2::NetDef IfNet() {
  caffe2::OperatorDef op = MakeOp("If", {"cond", "x", "w"}, {"y"});
  op = WithNet(op, "then_net",
               Net("then", {MakeOp("Relu", {"x"}, {"r"}), MakeOp("Mul", {"r", "w"}, {"y"})}));
  op = WithNet(op, "else_net",
               Net("else", {MakeOp("Sigmoid", {"x"}, {"s"}), MakeOp("Add", {"s", "w"}, {"y"})}));
  caffe2::NetDef net = Net("if", {op});
  net.add_external_output("y");
  return net;
}

TEST(CudaBackend, NamesACpuOnlyOpInsideANestedNet) {
  caffe2::OperatorDef op = MakeOp("If", {"cond", "x"}, {"y"});
  op = WithNet(op, "then_net", Net("then", {MakeOp("RecurrentNetwork", {"x"}, {"y"})}));
  const Case c = MakeCase(Net("if", {op}), {{"cond", MakeTensor<bool>({1}, {true})},
                                            {"x", Values({2, 3}, -1.0f, 0.25f)}});
  const oracles::BackendRun run = oracles::GetBackend(oracles::kProductionCuda).Run(c, {});
  ASSERT_TRUE(run.error.has_value());
  EXPECT_EQ(run.error->kind(), ErrorKind::kUnknownOp);
  EXPECT_NE(std::string(run.error->what())
                .find("op #0 (If): net 'then_net': op #0 (RecurrentNetwork): RecurrentNetwork "
                      "has no CUDA kernel (CPU only)"),
            std::string::npos)
      << run.error->what();
}

TEST(DeviceControl, IfRunsEitherBranchOnTheDevice) {
  SKIP_WITHOUT_DEVICE();
  for (bool cond : {true, false}) {
    ExpectDeviceOk(MakeCase(IfNet(), {{"cond", MakeTensor<bool>({1}, {cond})},
                                      {"x", Values({3, 5}, -2.0f, 0.25f)},
                                      {"w", Values({3, 5}, 0.5f, 0.125f)}}),
                   cond ? "If, then branch" : "If, else branch");
  }
}

TEST(DeviceControl, DoBindsOuterBlobsToItsDeviceBody) {
  SKIP_WITHOUT_DEVICE();
  const caffe2::NetDef body =
      Net("body", {MakeOp("Mul", {"a", "b"}, {"t"}), MakeOp("Tanh", {"t"}, {"out"})});
  caffe2::NetDef net = Net("do", {MakeOp("CreateScope", {}, {"scope"}),
                                  MakeDo({"x", "w"}, {"y"}, {"a", "b"}, {"out"}, "scope", body)});
  net.add_external_output("y");
  ExpectDeviceOk(
      MakeCase(net, {{"x", Values({4, 6}, -1.0f, 0.125f)}, {"w", Values({4, 6}, 0.25f, 0.0625f)}}),
      "Do");
}

// x <- x * w while i < k, the counter and its comparison on the device as well.
TEST(DeviceControl, WhileLoopsWithAConditionMadeOnTheDevice) {
  SKIP_WITHOUT_DEVICE();
  caffe2::OperatorDef loop =
      MakeOp("While", {"cond", "x", "w", "i", "k", "one"}, {"x", "i", "cond"});
  loop = WithNet(loop, "loop_net", Net("loop", {MakeOp("Mul", {"x", "w"}, {"x"})}));
  loop = WithNet(
      loop, "cond_net",
      Net("cond", {MakeOp("Add", {"i", "one"}, {"i"}), MakeOp("LE", {"i", "k"}, {"cond"})}));
  caffe2::NetDef net = Net("power", {loop});
  net.add_external_output("x");
  for (int32_t k : {0, 3}) {
    ExpectDeviceOk(MakeCase(net, {{"cond", MakeTensor<bool>({1}, {true})},
                                  {"x", Values({3}, 0.5f, 0.5f)},
                                  {"w", Values({3}, 1.5f, -0.75f)},
                                  {"i", MakeTensor<int32_t>({1}, {0})},
                                  {"k", MakeTensor<int32_t>({1}, {k})},
                                  {"one", MakeTensor<int32_t>({1}, {1})}}),
                   "While, k = " + std::to_string(k));
  }
}

}  // namespace
}  // namespace parity::testing

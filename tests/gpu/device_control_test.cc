// Control flow and recurrent nets on the device (gpu/ops/device_agnostic.cc): Do, If, While,
// CreateScope, HasScope, RecurrentNetwork and rnn_internal_apply_link are registered for CUDA in
// CUDA builds, the CUDA backend puts the ops of their nested nets on the device and names a
// CPU-only op inside them, and, where a device is present, such nets pass the device oracle (their
// bodies and step nets run on the GPU; conditions are read through a host copy). The tests that
// need a device skip with one line where none is.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/operator.h"
#include "core/rnn/rnn_cell.h"
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
  for (const char* type : {"Do", "If", "While", "CreateScope", "HasScope", "RecurrentNetwork",
                           "rnn_internal_apply_link"}) {
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
  op = WithNet(op, "then_net", Net("then", {MakeOp("RecurrentNetworkGradient", {"x"}, {"y"})}));
  const Case c = MakeCase(Net("if", {op}), {{"cond", MakeTensor<bool>({1}, {true})},
                                            {"x", Values({2, 3}, -1.0f, 0.25f)}});
  const oracles::BackendRun run = oracles::GetBackend(oracles::kProductionCuda).Run(c, {});
  ASSERT_TRUE(run.error.has_value());
  EXPECT_EQ(run.error->kind(), ErrorKind::kUnknownOp);
  // A build without nvcc has no CUDA kernel at all: If itself is the op named.
  const std::string expected =
      gpu::CudaBuild() ? "op #0 (If): net 'then_net': op #0 (RecurrentNetworkGradient): "
                         "RecurrentNetworkGradient has no CUDA kernel (CPU only)"
                       : "op #0 (If): If has no CUDA kernel (CPU only)";
  EXPECT_NE(std::string(run.error->what()).find(expected), std::string::npos) << run.error->what();
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

// A forward-only LSTM (FC over the sequence, then a RecurrentNetwork whose step is FC + Sum +
// LSTMUnit): every step runs on the device, the initial states copied into the state tensors
// there, the rows of the sequence seen through links.
TEST(DeviceControl, LstmStepsRunOnTheDevice) {
  SKIP_WITHOUT_DEVICE();
  const int64_t steps = 4, batch = 3, dim_in = 5, hidden = 6;
  for (int init_rank : {1, 3}) {
    caffe2::NetDef net;
    net.set_name("lstm");
    LstmSpec spec;
    spec.dim_in = dim_in;
    spec.dim_out = hidden;
    spec.forget_bias = 1.0f;
    spec.forward_only = true;
    const LstmOutputs out = Lstm(&net, spec);
    for (const std::string& o : {out.hidden_all, out.hidden_last, out.cell_all, out.cell_last}) {
      net.add_external_output(o);
    }
    const std::vector<int64_t> state_dims =
        init_rank == 1 ? std::vector<int64_t>{hidden} : std::vector<int64_t>{1, batch, hidden};
    std::vector<std::pair<std::string, Tensor>> in = {
        {"input", Values({steps, batch, dim_in}, -1.0f, 0.125f)},
        {"seq_lengths", MakeTensor<int32_t>({batch}, {4, 3, 2})},
        {"hidden_init", Values(state_dims, -0.5f, 0.0625f)},
        {"cell_init", Values(state_dims, 0.25f, -0.03125f)}};
    float start = -0.3f;
    for (const RnnParameter& param : out.parameters) {
      in.push_back({param.name, Values(param.dims, start, 0.0375f)});
      start += 0.1f;
    }
    ExpectDeviceOk(MakeCase(net, in), "LSTM, initial states of rank " + std::to_string(init_rank));
  }
}

// The link op on its own, as the campaign draws it: its timestep is read through a host copy
// wherever the case put it (on the device, it once read a device pointer on the host).
TEST(DeviceControl, ApplyLinkOnItsOwnReadsItsTimestepWhereverItIs) {
  SKIP_WITHOUT_DEVICE();
  for (int32_t t : {0, 2}) {
    const caffe2::OperatorDef op =
        MakeOp("rnn_internal_apply_link", {"t", "x"}, {"view", "x"},
               {{"offset", int64_t{1}}, {"window", int64_t{2}}});
    ExpectDeviceOk(MakeCase(Net("link", {op}), {{"t", MakeTensor<int32_t>({1}, {t})},
                                                {"x", Values({5, 2, 3}, -1.0f, 0.25f)}}),
                   "timestep " + std::to_string(t));
  }
}

}  // namespace
}  // namespace parity::testing

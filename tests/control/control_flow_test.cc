// Do, If and While on the production engine, forward and backward, against the same computation
// written without control flow or against closed forms.
#include <cmath>

#include "core/grad/backward.h"
#include "tests/control/control_util.h"

namespace parity::testing {
namespace {

std::unique_ptr<Workspace> RunNet(const caffe2::NetDef& net,
                                  const std::map<std::string, Tensor>& in) {
  auto ws = std::make_unique<Workspace>();
  for (const auto& [name, tensor] : in) ws->CreateTensor(name)->CopyFrom(tensor);
  ws->RunNetOnce(net);
  return ws;
}

Tensor Bool(bool value) { return MakeTensor<bool>({1}, {value}); }
Tensor Int(int32_t value) { return MakeTensor<int32_t>({1}, {value}); }

// x <- x * w, k times: While(cond) { Do(x, w) { x_in = Copy(x); x = Mul(x_in, w) } }, with the
// pass counter in cond_net (i = i + 1; cond = i <= k).
caffe2::NetDef PowerLoop() {
  caffe2::NetDef body =
      Net("body", {MakeOp("Copy", {"x"}, {"x_in"}), MakeOp("Mul", {"x_in", "w"}, {"x"})});
  caffe2::NetDef loop = Net("loop", {MakeDo({"x", "w"}, {"x"}, {"x", "w"}, {"x"}, "ws", body)});
  caffe2::NetDef cond =
      Net("cond", {MakeOp("Add", {"i", "one"}, {"i"}), MakeOp("LE", {"i", "k"}, {"cond"})});
  caffe2::OperatorDef loop_op =
      MakeOp("While", {"cond", "x", "w", "ws", "i", "k", "one"}, {"x", "ws", "i", "cond"});
  loop_op = WithNet(WithNet(loop_op, "loop_net", loop), "cond_net", cond);
  return Net("power", {MakeOp("CreateScope", {}, {"ws"}), loop_op});
}

std::map<std::string, Tensor> PowerInputs(int k) {
  return {{"x", MakeTensor<float>({3}, {0.5f, -1.5f, 2.0f})},
          {"w", MakeTensor<float>({3}, {1.5f, 0.75f, -0.5f})},
          {"cond", Bool(true)},
          {"i", Int(0)},
          {"k", Int(k)},
          {"one", Int(1)}};
}

TEST(While, DoBodyComputesThePowerAndLeavesOneWorkspacePerPass) {
  for (int k : {0, 1, 3}) {
    auto ws = RunNet(PowerLoop(), PowerInputs(k));
    const std::vector<float> x = {0.5f, -1.5f, 2.0f}, w = {1.5f, 0.75f, -0.5f};
    std::vector<float> got = Values<float>(ws->GetTensor("x"));
    for (int e = 0; e < 3; ++e) {
      EXPECT_FLOAT_EQ(got[e], x[e] * std::pow(w[e], k)) << "k=" << k << " element " << e;
    }
    EXPECT_EQ(Values<int32_t>(ws->GetTensor("i"))[0], k + 1);
  }
}

TEST(While, GradientOfThePowerLoopMatchesTheClosedForm) {
  for (int k : {0, 1, 3}) {
    caffe2::NetDef net = PowerLoop();
    AddGradientOperators(&net, {{"x", ""}});
    auto ws = RunNet(net, PowerInputs(k));
    const std::vector<float> x = {0.5f, -1.5f, 2.0f}, w = {1.5f, 0.75f, -0.5f};
    std::vector<float> dx = Values<float>(ws->GetTensor("x_grad"));
    std::vector<float> dw = Values<float>(ws->GetTensor("w_grad"));
    for (int e = 0; e < 3; ++e) {
      // d(x w^k)/dx = w^k; d/dw = k x w^(k-1) (0 when k = 0).
      EXPECT_NEAR(dx[e], std::pow(w[e], k), 1e-5) << "k=" << k << " element " << e;
      const float expected_dw = k == 0 ? 0.0f : k * x[e] * std::pow(w[e], k - 1);
      EXPECT_NEAR(dw[e], expected_dw, 1e-5) << "k=" << k << " element " << e;
    }
  }
}

TEST(While, ThatNeverEndsIsAResourceLimitError) {
  caffe2::OperatorDef forever = WithNet(MakeOp("While", {"cond", "x"}, {"x"}), "loop_net",
                                        Net("loop", {MakeOp("Relu", {"x"}, {"x"})}));
  caffe2::Argument* cap = forever.add_arg();
  cap->set_name("max_iterations");
  cap->set_i(1000);
  try {
    RunNet(Net("forever", {forever}), {{"cond", Bool(true)}, {"x", MakeTensor<float>({1}, {1})}});
    FAIL() << "an endless While must stop with an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kResourceLimit);
    EXPECT_NE(std::string(e.what()).find("cap of 1000 iterations"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("While"), std::string::npos) << e.what();
  }
}

TEST(While, GradientNeedsASingleDoBody) {
  caffe2::NetDef net = Net(
      "n", {WithNet(MakeOp("While", {"cond", "x"}, {"x"}), "loop_net",
                    Net("loop", {MakeOp("Relu", {"x"}, {"y"}), MakeOp("Copy", {"y"}, {"x"})}))});
  try {
    AddGradientOperators(&net, {{"x", ""}});
    FAIL() << "a While body that is not a single Do has no gradient";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadArgument);
    EXPECT_NE(std::string(e.what()).find("single Do"), std::string::npos) << e.what();
  }
}

// If(c, x, w) -> (t, y): then { t = Mul(x, w); y = Sigmoid(t) } else { y = Tanh(x) }.
caffe2::NetDef Branches() {
  caffe2::OperatorDef op = MakeOp("If", {"c", "x", "w"}, {"t", "y"});
  op = WithNet(op, "then_net",
               Net("then", {MakeOp("Mul", {"x", "w"}, {"t"}), MakeOp("Sigmoid", {"t"}, {"y"})}));
  op = WithNet(op, "else_net", Net("else", {MakeOp("Tanh", {"x"}, {"y"})}));
  return Net("branches", {op});
}

TEST(If, EachBranchAndItsGradientEqualTheBranchWrittenOut) {
  const std::vector<float> x = {0.3f, -0.8f}, w = {2.0f, 0.5f};
  for (bool cond : {true, false}) {
    caffe2::NetDef net = Branches();
    AddGradientOperators(&net, {{"y", ""}});
    auto ws = RunNet(
        net,
        {{"c", Bool(cond)}, {"x", MakeTensor<float>({2}, x)}, {"w", MakeTensor<float>({2}, w)}});
    std::vector<float> y = Values<float>(ws->GetTensor("y"));
    std::vector<float> dx = Values<float>(ws->GetTensor("x_grad"));
    std::vector<float> dw = Values<float>(ws->GetTensor("w_grad"));
    for (int e = 0; e < 2; ++e) {
      if (cond) {
        const double s = 1.0 / (1.0 + std::exp(-static_cast<double>(x[e]) * w[e]));
        EXPECT_NEAR(y[e], s, 1e-6);
        EXPECT_NEAR(dx[e], s * (1 - s) * w[e], 1e-6);
        EXPECT_NEAR(dw[e], s * (1 - s) * x[e], 1e-6);
      } else {
        const double t = std::tanh(static_cast<double>(x[e]));
        EXPECT_NEAR(y[e], t, 1e-6);
        EXPECT_NEAR(dx[e], 1 - t * t, 1e-6);
        EXPECT_EQ(dw[e], 0.0f) << "the else branch does not read w: its gradient is zero-filled";
      }
    }
  }
}

// y = Copy(z); If(c, x, w, y) -> y { t = Mul(x, w); y = Sum(y, t) } with no else: when the
// condition is false, the generated else zero-fills the gradients only the then branch computes.
TEST(If, WithoutElseTheGradientsOnlyThenComputesAreZeroFilled) {
  caffe2::OperatorDef op = MakeOp("If", {"c", "x", "w", "y"}, {"t", "y"});
  op = WithNet(op, "then_net",
               Net("then", {MakeOp("Mul", {"x", "w"}, {"t"}), MakeOp("Sum", {"y", "t"}, {"y"})}));
  for (bool cond : {true, false}) {
    caffe2::NetDef net = Net("n", {MakeOp("Copy", {"z"}, {"y"}), op});
    AddGradientOperators(&net, {{"y", ""}});
    auto ws = RunNet(net, {{"c", Bool(cond)},
                           {"x", MakeTensor<float>({2}, {3.0f, 4.0f})},
                           {"w", MakeTensor<float>({2}, {5.0f, 6.0f})},
                           {"z", MakeTensor<float>({2}, {1.0f, 2.0f})}});
    using V = std::vector<float>;
    EXPECT_EQ(Values<float>(ws->GetTensor("y")), (cond ? V{16.0f, 26.0f} : V{1.0f, 2.0f}));
    EXPECT_EQ(Values<float>(ws->GetTensor("x_grad")), (cond ? V{5.0f, 6.0f} : V{0.0f, 0.0f}));
    EXPECT_EQ(Values<float>(ws->GetTensor("w_grad")), (cond ? V{3.0f, 4.0f} : V{0.0f, 0.0f}));
    EXPECT_EQ(Values<float>(ws->GetTensor("z_grad")), (V{1.0f, 1.0f}));
  }
}

// Do(x, w) -> (y) { h = Mul(a, b); out = Tanh(h) } against the same two ops in the outer net.
TEST(Do, ForwardAndGradientEqualTheInnerNetRunInline) {
  caffe2::NetDef inner =
      Net("inner", {MakeOp("Mul", {"a", "b"}, {"h"}), MakeOp("Tanh", {"h"}, {"out"})});
  caffe2::NetDef with_do =
      Net("with_do", {MakeOp("CreateScope", {}, {"ws"}),
                      MakeDo({"x", "w"}, {"y"}, {"a", "b"}, {"out"}, "ws", inner)});
  caffe2::NetDef inline_net =
      Net("inline", {MakeOp("Mul", {"x", "w"}, {"h"}), MakeOp("Tanh", {"h"}, {"y"})});
  AddGradientOperators(&with_do, {{"y", ""}});
  AddGradientOperators(&inline_net, {{"y", ""}});
  const std::map<std::string, Tensor> in = {
      {"x", MakeTensor<float>({2, 2}, {0.1f, -0.4f, 0.9f, 2.0f})},
      {"w", MakeTensor<float>({2, 2}, {1.5f, 0.3f, -0.7f, 0.2f})}};
  auto a = RunNet(with_do, in);
  auto b = RunNet(inline_net, in);
  for (const char* name : {"y", "x_grad", "w_grad"}) {
    EXPECT_EQ(Values<float>(a->GetTensor(name)), Values<float>(b->GetTensor(name))) << name;
  }
  // The inner intermediate stayed in the child workspace: the outer one never sees "h".
  EXPECT_FALSE(a->HasBlob("h"));
}

TEST(Do, BindingAnOuterBlobTwiceIsABadArgument) {
  caffe2::OperatorDef op = MakeOp("Do", {"x", "ws"}, {"y", "ws"});
  op = WithStrings(op, "inner_blobs", {"a", "b", "c"});
  caffe2::Argument* idx = op.add_arg();
  idx->set_name("outer_blobs_idx");
  for (int64_t i : {0, 0, 1}) idx->add_ints(i);
  op = WithNet(op, "net", Net("inner", {MakeOp("Relu", {"a"}, {"c"})}));
  try {
    RunNet(Net("n", {MakeOp("CreateScope", {}, {"ws"}), op}), {{"x", MakeTensor<float>({1}, {1})}});
    FAIL() << "a Do binding one outer blob twice must be rejected";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadArgument);
    EXPECT_NE(std::string(e.what()).find("outer blob 'x' is bound twice"), std::string::npos)
        << e.what();
  }
}

TEST(Do, GradientWithoutItsForwardWorkspaceIsABadArgument) {
  caffe2::OperatorDef grad = MakeDo({"y_grad"}, {"x_grad"}, {"g"}, {"gx"}, "ws",
                                    Net("inner", {MakeOp("Copy", {"g"}, {"gx"})}));
  grad.set_is_gradient_op(true);
  try {
    RunNet(Net("n", {MakeOp("CreateScope", {}, {"ws"}), grad}),
           {{"y_grad", MakeTensor<float>({1}, {1})}});
    FAIL() << "a gradient Do on an empty stack must be rejected";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadArgument);
    EXPECT_NE(std::string(e.what()).find("stack is empty"), std::string::npos) << e.what();
  }
}

TEST(HasScope, SaysWhetherTheStackHoldsAWorkspace) {
  caffe2::NetDef net = Net(
      "n", {MakeOp("CreateScope", {}, {"ws"}), MakeOp("HasScope", {"ws"}, {"before"}),
            MakeDo({"x"}, {"y"}, {"a"}, {"b"}, "ws", Net("inner", {MakeOp("Relu", {"a"}, {"b"})})),
            MakeOp("HasScope", {"ws"}, {"after"})});
  auto ws = RunNet(net, {{"x", MakeTensor<float>({1}, {-1})}});
  EXPECT_FALSE(Values<bool>(ws->GetTensor("before"))[0]);
  EXPECT_TRUE(Values<bool>(ws->GetTensor("after"))[0]);
  EXPECT_EQ(Values<float>(ws->GetTensor("y"))[0], 0.0f);
}

}  // namespace
}  // namespace parity::testing

// Control flow with scoping: CreateScope, HasScope, Do, If, While.
#include "tests/reference/test_util.h"

namespace parity::reference::testing {
namespace {

TEST(Control, IfRunsOneBranchInTheSameWorkspace) {
  const auto then_net = MakeNet({Op("Add", {"a", "b"}, {"y"})});
  const auto else_net = MakeNet({Op("Sub", {"a", "b"}, {"y"})});
  const auto op =
      Op("If", {"cond", "a", "b"}, {"y"}).Net("then_net", then_net).Net("else_net", else_net);
  const Tensors base = {{"a", F({1}, {5})}, {"b", F({1}, {3})}};
  Tensors t = base, f = base;
  t["cond"] = Bool({1}, {1});
  f["cond"] = Bool({1}, {0});
  EXPECT_VALUES_NEAR(RunOp(op, t, "y"), (std::vector<double>{8}), 0);
  EXPECT_VALUES_NEAR(RunOp(op, f, "y"), (std::vector<double>{2}), 0);
  // No else_net: nothing runs.
  RunResult r = RunOps({Op("If", {"cond"}, {}).Net("then_net", then_net)}, f);
  EXPECT_EQ(r.blobs.count("y"), 0u);
  Tensors bad = base;
  bad["cond"] = Bool({2}, {1, 1});
  ExpectError([&] { RunOps({op}, bad); }, ErrorKind::kShapeMismatch);
  // Errors inside a branch name both ops.
  const std::string msg = ExpectError(
      [&] {
        RunOps({Op("If", {"cond"}, {}).Net("then_net", MakeNet({Op("Add", {"a", "zz"}, {"y"})}))},
               t);
      },
      ErrorKind::kMissingBlob);
  EXPECT_NE(msg.find("op #0 (If): op #0 (Add)"), std::string::npos) << msg;
}

// i = 0; while (i < 5) { i = i + 1; acc = acc + x }  ->  i = 5, acc = 5x.
TEST(Control, WhileLoopsUntilTheConditionFails) {
  const auto cond_net = MakeNet({Op("LT", {"i", "limit"}, {"cond"})});
  const auto loop_net = MakeNet({Op("Add", {"i", "one"}, {"i"}), Op("Add", {"acc", "x"}, {"acc"})});
  const auto op =
      Op("While", {"cond"}, {"i", "acc"}).Net("loop_net", loop_net).Net("cond_net", cond_net);
  const Tensors in = {{"i", Int({1}, {0})},    {"limit", Int({1}, {5})}, {"one", Int({1}, {1})},
                      {"acc", F({2}, {0, 0})}, {"x", F({2}, {1.5, -2})}, {"cond", Bool({1}, {1})}};
  RunResult r = RunOps({op}, in);
  EXPECT_EQ(IntValues(r.blobs.at("i")), (std::vector<int64_t>{5}));
  EXPECT_VALUES_NEAR(r.blobs.at("acc"), (std::vector<double>{7.5, -10}), 0);
  // The cap: a condition that never fails.
  RunOptions o;
  o.max_loop_iterations = 10;
  ExpectError(
      [&] { RunNet(MakeNet({Op("While", {"cond"}, {}).Net("loop_net", loop_net)}), in, o); },
      ErrorKind::kResourceLimit);
  // Exactly at the cap is fine: 5 passes with a cap of 5.
  o.max_loop_iterations = 5;
  EXPECT_EQ(IntValues(RunNet(MakeNet({op}), in, o).blobs.at("i")), (std::vector<int64_t>{5}));
}

TEST(Control, DoBindsBlobsIntoAChildScope) {
  // outer: x, y (output), ws. inner names ix -> x (idx 0), iy -> y (idx 1).
  const auto inner =
      MakeNet({Op("Relu", {"ix"}, {"tmp"}), Op("Scale", {"tmp"}, {"iy"}).F("scale", 2)});
  const auto do_op = Op("Do", {"x", "ws"}, {"y", "ws"})
                         .Net("net", inner)
                         .Strs("inner_blobs", {"ix", "iy"})
                         .Ints("outer_blobs_idx", {0, 1});
  RunResult r = RunOps({Op("CreateScope", {}, {"ws"}), do_op, Op("HasScope", {"ws"}, {"has"})},
                       {{"x", F({2}, {-1, 3})}});
  EXPECT_VALUES_NEAR(r.blobs.at("y"), (std::vector<double>{0, 6}), 0);
  EXPECT_EQ(r.blobs.count("tmp"), 0u);  // inner locals stay in the child workspace
  EXPECT_EQ(r.blobs.count("ws"), 0u);   // a scope is not a tensor
  EXPECT_EQ(IntValues(r.blobs.at("has")), (std::vector<int64_t>{1}));
  RunResult fresh = RunOps({Op("CreateScope", {}, {"ws"}), Op("HasScope", {"ws"}, {"has"})}, {});
  EXPECT_EQ(IntValues(fresh.blobs.at("has")), (std::vector<int64_t>{0}));
  // The child sees only bound blobs: reading an outer blob by name fails.
  const auto peek = Op("Do", {"x", "ws"}, {"y", "ws"})
                        .Net("net", MakeNet({Op("Add", {"ix", "z"}, {"iy"})}))
                        .Strs("inner_blobs", {"ix", "iy"})
                        .Ints("outer_blobs_idx", {0, 1});
  ExpectError(
      [&] {
        RunOps({Op("CreateScope", {}, {"ws"}), peek}, {{"x", F({1}, {1})}, {"z", F({1}, {1})}});
      },
      ErrorKind::kMissingBlob);
  // Every outer blob must be bound.
  const auto unbound = Op("Do", {"x", "ws"}, {"y", "ws"})
                           .Net("net", inner)
                           .Strs("inner_blobs", {"ix"})
                           .Ints("outer_blobs_idx", {0});
  ExpectError(
      [&] {
        RunOps({Op("CreateScope", {}, {"ws"}), unbound}, {{"x", F({1}, {1})}});
      },
      ErrorKind::kBadArgument);
  // A gradient Do pops the workspace its forward Do left: on a fresh stack there is none.
  ExpectError(
      [&] {
        RunOps({Op("CreateScope", {}, {"ws"}), Op(do_op).Gradient()}, {{"x", F({1}, {1})}});
      },
      ErrorKind::kBadArgument);
}

TEST(Control, GradientDoPopsTheForwardWorkspaceAndReadsItsLocals) {
  // Forward: tmp = Relu(ix) stays local in the child. The gradient Do reads tmp there (a saved
  // forward blob) and its own binding g -> y_grad, and writes gx -> x_grad; then the stack is empty.
  const auto forward = Op("Do", {"x", "ws"}, {"y", "ws"})
                           .Net("net", MakeNet({Op("Relu", {"ix"}, {"tmp"}),
                                                Op("Scale", {"tmp"}, {"iy"}).F("scale", 2)}))
                           .Strs("inner_blobs", {"ix", "iy"})
                           .Ints("outer_blobs_idx", {0, 1});
  const auto backward = Op("Do", {"y_grad", "ws"}, {"x_grad", "ws"})
                            .Net("net", MakeNet({Op("Mul", {"g", "tmp"}, {"gx"})}))
                            .Strs("inner_blobs", {"g", "gx"})
                            .Ints("outer_blobs_idx", {0, 1})
                            .Gradient();
  RunResult r = RunOps({Op("CreateScope", {}, {"ws"}), forward, backward,
                        Op("HasScope", {"ws"}, {"has"})},
                       {{"x", F({2}, {-1, 3})}, {"y_grad", F({2}, {10, 10})}});
  EXPECT_VALUES_NEAR(r.blobs.at("x_grad"), (std::vector<double>{0, 30}), 0);
  EXPECT_EQ(IntValues(r.blobs.at("has")), (std::vector<int64_t>{0}));
}

TEST(Control, DoReuseWorkspaceKeepsLocals) {
  // First Do creates a local `acc` = x in the child; a second Do with reuse_workspace=1 runs in
  // the same child and sees it: y = acc + x = 2x. Without reuse it would push a fresh child.
  const auto first = Op("Do", {"x", "ws"}, {"ws"})
                         .Net("net", MakeNet({Op("Copy", {"ix"}, {"acc"})}))
                         .Strs("inner_blobs", {"ix"})
                         .Ints("outer_blobs_idx", {0});
  const auto second_net = MakeNet({Op("Add", {"acc", "ix"}, {"iy"})});
  auto second = [&](int reuse) {
    return Op("Do", {"x", "ws"}, {"y", "ws"})
        .Net("net", second_net)
        .Strs("inner_blobs", {"ix", "iy"})
        .Ints("outer_blobs_idx", {0, 1})
        .I("reuse_workspace", reuse);
  };
  const Tensors in = {{"x", F({1}, {4})}};
  RunResult r = RunOps({Op("CreateScope", {}, {"ws"}), first, second(1)}, in);
  EXPECT_VALUES_NEAR(r.blobs.at("y"), (std::vector<double>{8}), 0);
  ExpectError(
      [&] {
        RunOps({Op("CreateScope", {}, {"ws"}), first, second(0)}, in);
      },
      ErrorKind::kMissingBlob);
}

}  // namespace
}  // namespace parity::reference::testing

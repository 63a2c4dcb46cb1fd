// The parallel executor: dependency edges, equality with SimpleNet, errors.
#include "core/dag_net.h"

#include "core/tensor_proto.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

caffe2::OperatorDef Fill(const std::string& out, float value, int64_t size = 4) {
  return MakeOp("ConstantFill", {}, {out}, {{"shape", Ints{size}}, {"value", value}});
}

TEST(DagDependencies, ReadAfterWriteWriteAfterReadWriteAfterWrite) {
  caffe2::NetDef net;
  *net.add_op() = Fill("a", 1);                     // 0
  *net.add_op() = Fill("b", 2);                     // 1: independent of 0
  *net.add_op() = MakeOp("Copy", {"a"}, {"c"});     // 2: RAW on a
  *net.add_op() = Fill("a", 3);                     // 3: WAW with 0, WAR with 2
  *net.add_op() = MakeOp("Copy", {"b"}, {"b2"});    // 4: RAW on b only
  auto deps = ComputeOpDependencies(net);
  EXPECT_EQ(deps[0], (std::vector<int>{}));
  EXPECT_EQ(deps[1], (std::vector<int>{}));
  EXPECT_EQ(deps[2], (std::vector<int>{0}));
  EXPECT_EQ(deps[3], (std::vector<int>{0, 2}));
  EXPECT_EQ(deps[4], (std::vector<int>{1}));
}

TEST(DagDependencies, AliasSharesStorageAndControlInputsOrder) {
  caffe2::NetDef net;
  *net.add_op() = Fill("x", 1);                    // 0
  *net.add_op() = MakeOp("Alias", {"x"}, {"v"});   // 1
  *net.add_op() = MakeOp("Copy", {"x"}, {"r"});    // 2: reads x
  *net.add_op() = Fill("v", 5);                    // 3: writes v == x's storage: after 2 (WAR)
  *net.add_op() = Fill("z", 0);                    // 4
  net.mutable_op(4)->add_control_input("r");       //    ordered after 2 by control_input
  auto deps = ComputeOpDependencies(net);
  EXPECT_EQ(deps[3], (std::vector<int>{1, 2}));
  EXPECT_EQ(deps[4], (std::vector<int>{2}));
}

TEST(DagDependencies, NestedNetOpsAreBarriers) {
  caffe2::NetDef net;
  *net.add_op() = Fill("a", 1);
  *net.add_op() = Fill("b", 1);
  caffe2::OperatorDef nested = MakeOp("Copy", {"a"}, {"c"});
  caffe2::Argument* arg = nested.add_arg();
  arg->set_name("net");
  arg->mutable_n()->set_name("inner");
  *net.add_op() = nested;
  *net.add_op() = Fill("d", 1);
  auto deps = ComputeOpDependencies(net);
  EXPECT_EQ(deps[2], (std::vector<int>{0, 1}));
  EXPECT_EQ(deps[3], (std::vector<int>{2}));
}

TEST(DagNet, EqualsSimpleNetOnBranchyNet) {
  caffe2::NetDef net;
  net.set_name("branches");
  for (int b = 0; b < 8; ++b) {
    std::string x = "x" + std::to_string(b);
    *net.add_op() = Fill(x, static_cast<float>(b), 1000);
    for (int k = 0; k < 5; ++k) {
      *net.add_op() = MakeOp("Copy", {x}, {x + "_" + std::to_string(k)});
      x = x + "_" + std::to_string(k);
    }
  }
  *net.add_op() = Fill("x0", 42, 10);  // overwrites a blob others read: WAR edges
  Workspace simple_ws, dag_ws;
  simple_ws.RunNetOnce(net);
  net.set_type("dag");
  net.set_num_workers(4);
  NetBase* dag = dag_ws.CreateNet(net);
  for (int run = 0; run < 20; ++run) dag->Run();
  for (const std::string& blob : simple_ws.Blobs()) {
    EXPECT_EQ(TensorToProto(simple_ws.GetTensor(blob)).SerializeAsString(),
              TensorToProto(dag_ws.GetTensor(blob)).SerializeAsString())
        << blob;
  }
}

TEST(DagNet, ErrorNamesTheFailingOp) {
  caffe2::NetDef net;
  net.set_name("d");
  net.set_type("dag");
  *net.add_op() = Fill("a", 1);
  *net.add_op() = MakeOp("GivenTensorFill", {}, {"bad"}, {{"shape", Ints{2}}, {"values", Floats{1}}});
  *net.add_op() = MakeOp("Copy", {"bad"}, {"after"});
  Workspace ws;
  NetBase* dag = ws.CreateNet(net);
  ExpectError([&] { dag->Run(); }, ErrorKind::kShapeMismatch, {"net 'd': op #1 (GivenTensorFill)"});
  // The op after the failure did not run.
  EXPECT_TRUE(ws.GetBlob("after")->IsEmpty());
  // The net stays usable.
  ExpectError([&] { dag->Run(); }, ErrorKind::kShapeMismatch, {"op #1"});
}

TEST(DagNet, OfTwoFailingOpsTheFirstInTheNetIsReportedAsSimpleNetDoes) {
  // Op #2 fails at once; op #1 fails too, but only after op #0's long fill. SimpleNet stops at op
  // #1, and so must the DAG executor, whichever failure comes first in time (a campaign's
  // determinism oracle found the two executors naming different ops).
  caffe2::NetDef net;
  net.set_name("d");
  net.set_type("dag");
  net.set_num_workers(4);
  *net.add_op() = Fill("a", 1, 4000000);
  *net.add_op() = MakeOp("Reshape", {"a"}, {"r"}, {{"shape", Ints{3}}});
  *net.add_op() = MakeOp("GivenTensorFill", {}, {"bad"}, {{"shape", Ints{2}}, {"values", Floats{1}}});
  Workspace ws;
  NetBase* dag = ws.CreateNet(net);
  for (int run = 0; run < 10; ++run) {
    ExpectError([&] { dag->Run(); }, ErrorKind::kShapeMismatch, {"net 'd': op #1 (Reshape)"});
  }
}

TEST(DagNet, CaffeParallelNetTypesMapToDag) {
  for (const char* type : {"dag", "async_dag", "async_scheduling", "async_simple"}) {
    caffe2::NetDef net;
    net.set_type(type);
    *net.add_op() = Fill("a", 2);
    Workspace ws;
    ws.RunNetOnce(net);
    ExpectTensorNear(ws.GetTensor("a"), {4}, {2, 2, 2, 2});
  }
}

}  // namespace
}  // namespace parity::testing

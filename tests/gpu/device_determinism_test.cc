// The device oracle's run-twice check (oracles/device_determinism.h) on synthetic runs: two
// BackendRuns built on the host stand for two runs of one case on the GPU, so the comparison,
// the declared-nondeterministic ops and the blame are tested on every machine, device or not.
#include "oracles/device_determinism.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "core/proto/error.h"
#include "core/tensor_proto.h"
#include "oracles/testing/op_checks.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

using oracles::BackendRun;
using oracles::CompareDeviceRuns;

caffe2::TensorProto Proto(const std::string& name, std::vector<float> values) {
  return TensorToProto(MakeTensor<float>({static_cast<int64_t>(values.size())}, values), name);
}

// x -> A -> a -> B -> b, and x -> C -> c: b reads what A wrote; c does not.
Case ChainCase() {
  Case c;
  caffe2::NetDef& net = *c.mutable_net();
  *net.add_op() = MakeOp("Relu", {"x"}, {"a"});
  *net.add_op() = MakeOp("Sigmoid", {"a"}, {"b"});
  *net.add_op() = MakeOp("Tanh", {"x"}, {"c"});
  *c.add_inputs() = Proto("x", {1, 2, 3});
  return c;
}

// A run of ChainCase with these outputs; traced: one OpTrace per op.
BackendRun Chain(std::vector<float> a, std::vector<float> b, std::vector<float> c, bool traced) {
  BackendRun run;
  run.blobs["x"] = Proto("x", {1, 2, 3});
  run.blobs["a"] = Proto("a", a);
  run.blobs["b"] = Proto("b", b);
  run.blobs["c"] = Proto("c", c);
  if (traced) {
    const char* types[] = {"Relu", "Sigmoid", "Tanh"};
    const char* outs[] = {"a", "b", "c"};
    for (int i = 0; i < 3; ++i) {
      oracles::OpTrace entry;
      entry.op_index = i;
      entry.op_type = types[i];
      entry.outputs[outs[i]] = run.blobs[outs[i]];
      run.trace.push_back(entry);
    }
  }
  return run;
}

TEST(DeviceDeterminism, NoCudaKernelIsDeclaredNondeterministicToday) {
  // No kernel in gpu/kernels/ uses atomics; one that does is declared with its reason.
  EXPECT_TRUE(oracles::CudaNondeterministicOps().empty());
}

TEST(DeviceDeterminism, IdenticalRunsAgree) {
  const Case c = ChainCase();
  EXPECT_FALSE(CompareDeviceRuns(c, Chain({1}, {2}, {3}, true), Chain({1}, {2}, {3}, true), {}));
  // NaN and infinities compare by their bits, so equal bits agree.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(CompareDeviceRuns(c, Chain({nan}, {inf}, {-inf}, false),
                                 Chain({nan}, {inf}, {-inf}, false), {}));
}

TEST(DeviceDeterminism, OneUlpIsAFindingBlamingTheFirstDifferingOp) {
  const Case c = ChainCase();
  const float moved = std::nextafter(2.0f, 3.0f);
  const auto finding =
      CompareDeviceRuns(c, Chain({1}, {2}, {3}, true), Chain({1}, {moved}, {3}, true), {});
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->oracle(), "device");
  EXPECT_EQ(finding->signature().error_class(), oracles::kDeviceNondeterminism);
  EXPECT_EQ(finding->blamed_op_index(), 1);
  EXPECT_EQ(finding->blamed_op_type(), "Sigmoid");
  EXPECT_NE(finding->message().find("blob 'b' differs between the runs"), std::string::npos)
      << finding->message();
}

TEST(DeviceDeterminism, SignedZerosDifferInBits) {
  const auto finding =
      CompareDeviceRuns(ChainCase(), Chain({0.0f}, {2}, {3}, false), Chain({-0.0f}, {2}, {3}, false),
                        {});
  ASSERT_TRUE(finding.has_value());
  // Without traces nothing is blamed: the finding still says which blob moved.
  EXPECT_FALSE(finding->has_blamed_op_index());
  EXPECT_NE(finding->message().find("blob 'a'"), std::string::npos) << finding->message();
}

TEST(DeviceDeterminism, DeclaredOpsAndWhatTheyFeedAreNotComparedBitForBit) {
  const Case c = ChainCase();
  EXPECT_EQ(oracles::NondeterministicBlobs(c.net(), {"Relu"}),
            (std::set<std::string>{"a", "b"}));
  EXPECT_TRUE(oracles::NondeterministicBlobs(c.net(), {}).empty());
  // a and b move: Relu is declared, Sigmoid reads it.
  EXPECT_FALSE(
      CompareDeviceRuns(c, Chain({1}, {2}, {3}, true), Chain({1.5f}, {2.5f}, {3}, true), {"Relu"}));
  // c does not read a declared op's result: still bit for bit.
  const auto finding =
      CompareDeviceRuns(c, Chain({1}, {2}, {3}, true), Chain({1.5f}, {2}, {3.5f}, true), {"Relu"});
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->blamed_op_type(), "Tanh");
}

TEST(DeviceDeterminism, ABlobMissingFromOneRunIsAFinding) {
  BackendRun second = Chain({1}, {2}, {3}, false);
  second.blobs.erase("c");
  const auto finding = CompareDeviceRuns(ChainCase(), Chain({1}, {2}, {3}, false), second, {});
  ASSERT_TRUE(finding.has_value());
  EXPECT_NE(finding->message().find("'c' is missing from one run"), std::string::npos)
      << finding->message();
}

TEST(DeviceDeterminism, ErrorsMustRepeatToo) {
  const Case c = ChainCase();
  BackendRun failed = Chain({1}, {2}, {3}, false);
  Error late = MakeError(ErrorKind::kBadArgument, "late error");
  late.AddContext("op #2 (Tanh)");
  failed.error = late;
  // The same error twice is the case's, not the device's nondeterminism.
  EXPECT_FALSE(CompareDeviceRuns(c, failed, failed, {}));
  const auto finding = CompareDeviceRuns(c, Chain({1}, {2}, {3}, false), failed, {});
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->signature().error_class(), oracles::kDeviceNondeterminism);
  EXPECT_NE(finding->message().find("one run failed and the other did not"), std::string::npos)
      << finding->message();
  EXPECT_EQ(finding->blamed_op_type(), "Tanh");
}

}  // namespace
}  // namespace parity::testing

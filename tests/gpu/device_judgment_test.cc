// The device oracle's judgment (oracles/device_oracle.h) on synthetic runs: truth, f32 reference,
// CPU and GPU results built on the host, so what the oracle calls a finding (NaN and +-Inf by
// position, the tolerance sized by the f32 reference, errors on one side) is tested on every
// machine, device or not.
#include "oracles/device_oracle.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/proto/error.h"
#include "core/tensor_proto.h"
#include "oracles/backend.h"
#include "oracles/localize.h"
#include "oracles/oracle.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

using oracles::BackendRun;
using oracles::OracleResult;

const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// One op, x -> y; the runs below hold y.
Case OneOpCase() {
  Case c;
  *c.mutable_net()->add_op() = MakeOp("Exp", {"x"}, {"y"});
  return c;
}

BackendRun Holding(std::vector<float> y) {
  BackendRun run;
  run.blobs["y"] = TensorToProto(MakeTensor<float>({static_cast<int64_t>(y.size())}, y), "y");
  return run;
}

// The oracle's verdict with the f32 reference `f32` and the default tolerance class
// (k = 4, floors 1e-6 absolute and 1e-5 relative).
OracleResult Judge(const BackendRun& truth, const BackendRun& f32, const BackendRun& cpu,
                   const BackendRun& gpu) {
  return oracles::JudgeDeviceRuns(
      OneOpCase(), truth, cpu, gpu, [&]() -> const BackendRun& { return f32; },
      oracles::GetToleranceClass("default"));
}

std::string ErrorClass(const OracleResult& r) {
  return r.finding ? r.finding->signature().error_class() : "";
}

TEST(DeviceJudgment, WithinKTimesTheF32ErrorPasses) {
  const BackendRun truth = Holding({1.0f, 2.0f});
  // The f32 reference is 1e-3 off: k = 4 allows the GPU 4e-3 (plus the floors).
  const BackendRun f32 = Holding({1.001f, 2.001f});
  EXPECT_FALSE(Judge(truth, f32, truth, Holding({1.003f, 2.003f})).finding);
  const OracleResult out = Judge(truth, f32, truth, Holding({1.003f, 2.01f}));
  ASSERT_TRUE(out.finding);
  EXPECT_EQ(ErrorClass(out), "value mismatch");
  EXPECT_EQ(out.finding->oracle(), "device");
  EXPECT_NE(out.finding->message().find("blob 'y' on the GPU"), std::string::npos)
      << out.finding->message();
  EXPECT_NE(out.finding->message().find("(the CPU agrees with the truth)"), std::string::npos)
      << out.finding->message();
}

TEST(DeviceJudgment, AnExactF32ReferenceStillLeavesTheFloors) {
  const BackendRun truth = Holding({1.0f});
  // Nothing to scale by k: the GPU gets the floors, 1e-6 + 1e-5 * |t|.
  EXPECT_FALSE(Judge(truth, truth, truth, Holding({1.0f + 5e-6f})).finding);
  EXPECT_TRUE(Judge(truth, truth, truth, Holding({1.0f + 1e-4f})).finding);
}

TEST(DeviceJudgment, SaysWhenTheCpuIsOutOfToleranceToo) {
  const BackendRun truth = Holding({1.0f});
  const BackendRun wrong = Holding({1.5f});
  const OracleResult out = Judge(truth, truth, wrong, wrong);
  ASSERT_TRUE(out.finding);
  EXPECT_NE(out.finding->message().find("(the CPU is out of tolerance too)"), std::string::npos)
      << out.finding->message();
}

TEST(DeviceJudgment, NanAndInfinitiesMatchByPositionAndSign) {
  const BackendRun truth = Holding({kNan, kInf, -kInf, 1.0f});
  EXPECT_FALSE(Judge(truth, truth, truth, Holding({kNan, kInf, -kInf, 1.0f})).finding);
  // A NaN moved to another position, a NaN where the truth is finite, an infinity's sign.
  for (const BackendRun& gpu : {Holding({1.0f, kInf, -kInf, kNan}),
                                Holding({kNan, kInf, -kInf, kNan}),
                                Holding({kNan, kInf, kInf, 1.0f}),
                                Holding({kNan, 3e38f, -kInf, 1.0f})}) {
    const OracleResult out = Judge(truth, truth, truth, gpu);
    ASSERT_TRUE(out.finding);
    EXPECT_EQ(ErrorClass(out), "nan/inf mismatch") << out.finding->message();
  }
}

TEST(DeviceJudgment, AMissingOutputIsAFinding) {
  const BackendRun truth = Holding({1.0f});
  BackendRun gpu;
  const OracleResult out = Judge(truth, truth, truth, gpu);
  ASSERT_TRUE(out.finding);
  EXPECT_EQ(ErrorClass(out), "missing output");
  EXPECT_NE(out.finding->message().find("the GPU did not produce 'y'"), std::string::npos)
      << out.finding->message();
}

TEST(DeviceJudgment, ErrorsOnOneSideBothSidesOrTheReference) {
  const BackendRun truth = Holding({1.0f});
  BackendRun failed;
  Error error = MakeError(ErrorKind::kBadArgument, "bad launch");
  error.AddContext("op #0 (Exp)");
  failed.error = error;
  // Both engines refuse: bad input, not a discrepancy.
  OracleResult out = Judge(truth, truth, failed, failed);
  EXPECT_FALSE(out.finding);
  EXPECT_TRUE(out.rejected.has_value());
  // One side refuses: an error mismatch, blamed by the error's context.
  out = Judge(truth, truth, truth, failed);
  ASSERT_TRUE(out.finding);
  EXPECT_EQ(ErrorClass(out), "error mismatch");
  EXPECT_NE(out.finding->message().find("the GPU rejected the net and the CPU ran it"),
            std::string::npos)
      << out.finding->message();
  EXPECT_EQ(out.finding->blamed_op_type(), "Exp");
  out = Judge(truth, truth, failed, truth);
  ASSERT_TRUE(out.finding);
  EXPECT_NE(out.finding->message().find("the CPU rejected the net and the GPU ran it"),
            std::string::npos)
      << out.finding->message();
  // The reference refuses alone: nothing to judge by.
  out = Judge(failed, truth, truth, truth);
  EXPECT_FALSE(out.finding);
  EXPECT_NE(out.not_applicable.find("the reference cannot run this net"), std::string::npos);
}

// The dtype gate is per kernel: a CUDA op without a kernel for its inputs (a float-only kernel
// given int32) raises kUnknownOp, which makes the case not applicable where the CPU ran it, with
// the op's own message. Both refusing is still bad input, and any other kind on the GPU alone is
// still an error mismatch.
TEST(DeviceJudgment, AGpuUnknownOpWhereTheCpuRanIsNotApplicable) {
  const BackendRun truth = Holding({1.0f});
  BackendRun no_kernel;
  Error error = MakeError(ErrorKind::kUnknownOp,
                          "Exp: the CUDA kernel takes float only, but input 'x' is int32 [1] "
                          "(run the op on the CPU)");
  error.AddContext("op #0 (Exp)");
  no_kernel.error = error;
  OracleResult out = Judge(truth, truth, truth, no_kernel);
  EXPECT_FALSE(out.finding);
  EXPECT_FALSE(out.rejected.has_value());
  EXPECT_NE(out.not_applicable.find("the GPU has no kernel for this net"), std::string::npos)
      << out.not_applicable;
  EXPECT_NE(out.not_applicable.find("op #0 (Exp): Exp: the CUDA kernel takes float only"),
            std::string::npos)
      << out.not_applicable;
  // The CPU refusing too: bad input, as for any other kind.
  BackendRun cpu_failed;
  cpu_failed.error = MakeError(ErrorKind::kShapeMismatch, "Exp: unsupported dtype");
  out = Judge(truth, truth, cpu_failed, no_kernel);
  EXPECT_FALSE(out.finding);
  EXPECT_TRUE(out.rejected.has_value());
  EXPECT_TRUE(out.not_applicable.empty());
  // kUnknownOp on the CPU alone is the CPU's problem: still an error mismatch.
  out = Judge(truth, truth, no_kernel, truth);
  ASSERT_TRUE(out.finding);
  EXPECT_EQ(ErrorClass(out), "error mismatch");
  // Another kind on the GPU alone (a wrong dtype check, a kernel's complaint): a finding.
  BackendRun gpu_shape;
  gpu_shape.error = MakeError(ErrorKind::kShapeMismatch, "expected a tensor of float, got int32");
  out = Judge(truth, truth, truth, gpu_shape);
  ASSERT_TRUE(out.finding);
  EXPECT_EQ(ErrorClass(out), "error mismatch");
}

TEST(DeviceJudgment, TheF32ReferenceRunsOnlyWhenValuesAreJudged) {
  const BackendRun truth = Holding({1.0f});
  BackendRun failed;
  failed.error = MakeError(ErrorKind::kBadArgument, "bad launch");
  int asked = 0;
  auto judge = [&](const BackendRun& cpu, const BackendRun& gpu) {
    return oracles::JudgeDeviceRuns(
        OneOpCase(), truth, cpu, gpu,
        [&]() -> const BackendRun& {
          ++asked;
          return truth;
        },
        oracles::GetToleranceClass("default"));
  };
  judge(truth, failed);
  judge(failed, failed);
  EXPECT_EQ(asked, 0);
  judge(truth, truth);
  EXPECT_EQ(asked, 1);
}

// A GPU campaign's case (device run 2 of 2026-11-26, reduced to 4 ops): a While of three passes of
// x -> Exp(x / a), then Tan. With a = 0.569 the third pass reaches 1.7e20, where one f32 ulp is
// 1.6e13: Tan of it is noise on every device. The H100 gave 40.47 at element 16 where the f64
// truth is -0.444, 92x the f32 reference's lucky error and still 3x the largest of four sampled
// ones (SampledRounding cannot bound noise with tan's tails). Localization blames Tan, whose
// input agreed with the truth within tolerance; the device oracle then replays Tan on the GPU's
// own input (OpRightOnItsInputs), finds it right, and calls the case not applicable.
constexpr const char* kExpLoopIntoTan = R"pb(
  net {
    name: "fuzz_net"
    op {
      output: "ws2"
      type: "CreateScope"
    }
    op {
      input: "p0"
      input: "t1"
      input: "p1"
      input: "ws2"
      input: "p3"
      input: "p4"
      input: "p5"
      output: "t1"
      output: "ws2"
      output: "p3"
      output: "p0"
      type: "While"
      arg {
        name: "loop_net"
        n {
          name: "loop"
          op {
            input: "t1"
            input: "p1"
            input: "ws2"
            output: "t1"
            output: "ws2"
            type: "Do"
            arg {
              name: "net"
              n {
                name: "loop_body"
                op { input: "a0" output: "xin" type: "Copy" }
                op { input: ["xin", "a2"] output: "h0" type: "Div" }
                op { input: "h0" output: "res" type: "Exp" }
                op { input: "res" output: "a0" type: "Copy" }
              }
            }
            arg { name: "inner_blobs" strings: ["a0", "a2"] }
            arg { name: "outer_blobs_idx" ints: [0, 1] }
          }
        }
      }
      arg {
        name: "cond_net"
        n {
          name: "cond"
          op { input: ["p3", "p5"] output: "p3" type: "Add" }
          op { input: ["p3", "p4"] output: "p0" type: "LE" }
        }
      }
    }
    op { input: ["t1", "p6"] output: "t4" type: "ResizeLike" }
    op { input: "t4" output: "t10" type: "Tan" }
    external_input: "p0"
    external_input: "p1"
    external_input: "p3"
    external_input: "p4"
    external_input: "p5"
    external_input: "p6"
    external_input: "t1"
    external_output: "p0"
    external_output: "p3"
    external_output: "t10"
  }
  inputs { dims: 1 data_type: BOOL int32_data: 1 name: "p0" }
  inputs { dims: [3, 1, 1] data_type: FLOAT float_data: [1.13975, 1.8125, 0.569] name: "p1" }
  inputs { dims: 1 data_type: INT32 int32_data: 0 name: "p3" }
  inputs { dims: 1 data_type: INT32 int32_data: 3 name: "p4" }
  inputs { dims: 1 data_type: INT32 int32_data: 1 name: "p5" }
  inputs { dims: 24 data_type: FLOAT float_data: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] name: "p6" }
  inputs { dims: [3, 2, 4] data_type: FLOAT float_data: [-0.4305, -0.1995, 0.285, 0.889, 0.611, 0.945, 0.001, 0.984, -0.093, -0.0265, 0.037, 0.204, -0.487, 0.681, -0.46, 0.52, 0.355, 0.155, -0.195, 0.142, -0.194, 0.248, -0.3765, 0.018] name: "t1" }
  seed: 9873817542413246707
)pb";

TEST(DeviceJudgment, AnOpIsReplayedOnTheInputsItGot) {
  Case c;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kExpLoopIntoTan, &c));
  const oracles::ToleranceClass& tolerance = oracles::GetToleranceClass("transcendental");
  const BackendRun traced = oracles::GetBackend(oracles::kProduction).Run(c, {true, ""});
  ASSERT_FALSE(traced.error);
  ASSERT_EQ(traced.trace.size(), 4u);
  // Tan (op #3) and ResizeLike (op #2) on what they got: right.
  EXPECT_TRUE(oracles::OpRightOnItsInputs(c, 3, traced, tolerance));
  EXPECT_TRUE(oracles::OpRightOnItsInputs(c, 2, traced, tolerance));
  // Tan's element 16 as the H100 had it, from another input than this run's: wrong here.
  BackendRun tampered = traced;
  caffe2::TensorProto& t10 = tampered.trace[3].outputs.at("t10");
  ASSERT_EQ(t10.float_data_size(), 24);
  EXPECT_NE(t10.float_data(16), 40.4654884f);
  t10.set_float_data(16, 40.4654884f);
  EXPECT_FALSE(oracles::OpRightOnItsInputs(c, 3, tampered, tolerance));
  // The While reads a workspace stack (CreateScope's), which no trace holds: no replay.
  EXPECT_FALSE(oracles::OpRightOnItsInputs(c, 1, traced, tolerance));
  EXPECT_FALSE(oracles::OpRightOnItsInputs(c, 4, traced, tolerance));
}

}  // namespace
}  // namespace parity::testing

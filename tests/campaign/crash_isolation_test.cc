// Crash isolation in `parity fuzz`, as a user runs it: against test engines whose Relu segfaults,
// hangs or allocates a GiB (tests/campaign/faulty_engines.cc), the campaign goes on to its budget,
// every case it ran is counted, each failing case is one crash / hang / resource finding naming the
// Relu, and `parity repro` replays a saved one.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/io.h"
#include "core/proto/parity.pb.h"
#include "fuzz/sandbox.h"
#include "tests/cli/cli_util.h"

namespace parity::testing {
namespace {

constexpr char kBinary[] = "tests/campaign/parity_with_faulty_engines";

nlohmann::json Summary(const std::string& out) {
  return nlohmann::json::parse(ReadFileBytes(out + "/summary.json"));
}

// The saved findings of a campaign with one signature: its first and its smallest case.
std::vector<std::string> SavedFindings(const std::string& out) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(out + "/findings")) {
    files.push_back(entry.path().string() + "/case.pb");
    files.push_back(entry.path().string() + "/smallest.pb");
  }
  return files;
}

TEST(CrashIsolation, ASegfaultingKernelIsACrashFindingAndTheCampaignGoesOn) {
  const std::string out = TestTmp() + "/segfault";
  const CliResult run =
      RunCli(kBinary, "fuzz --engine test-segfault --ops Relu --cases 40 --jobs 2 --out " + out);
  ASSERT_EQ(run.exit_code, 1) << run.output;
  const nlohmann::json summary = Summary(out);
  EXPECT_EQ(summary["cases"], 40) << "every case is accounted for, crashed or not";
  ASSERT_EQ(summary["signatures"].size(), 1u) << summary.dump(1);
  const nlohmann::json& signature = summary["signatures"][0];
  EXPECT_EQ(signature["oracle"], "crash");
  EXPECT_EQ(signature["blamed_op"], "Relu");
  EXPECT_EQ(signature["error_class"], "SIGSEGV");
  EXPECT_NE(signature["signature"].get<std::string>().find("SegfaultingRelu::Run()"),
            std::string::npos)
      << "the top frame of the stack is part of the signature: " << signature["signature"];
  EXPECT_EQ(signature["reduced"]["reproduced"], true) << "the crash was reduced and still crashes";
  EXPECT_EQ(signature["reduced"]["ops_after"], 1);
  const int crashes = signature["count"];
  EXPECT_GT(crashes, 0);
  EXPECT_LT(crashes, 40) << "the Relu crashes on some inputs only";
  EXPECT_EQ(summary["findings"], crashes);

  // The saved crashes hold the case their worker died on: a single-op case's input starts
  // negative, which is exactly when the engine's Relu writes through its wild pointer, or ends
  // negative (the determinism oracle runs the net again on every floating input reversed).
  const std::vector<std::string> saved = SavedFindings(out);
  ASSERT_EQ(saved.size(), 2u);
  int single_op = 0;
  for (const std::string& file : saved) {
    Finding finding;
    LoadProtoFile(file, &finding);
    EXPECT_EQ(finding.oracle(), "crash");
    EXPECT_EQ(finding.blamed_op_type(), "Relu");
    EXPECT_GT(finding.stack_size(), 0);
    if (finding.case_().net().op_size() != 1) continue;
    ++single_op;
    ASSERT_EQ(finding.case_().inputs_size(), 1);
    const caffe2::TensorProto& x = finding.case_().inputs(0);
    ASSERT_GT(x.float_data_size(), 0);
    EXPECT_TRUE(x.float_data(0) < 0 || x.float_data(x.float_data_size() - 1) < 0)
        << file << ": " << x.ShortDebugString();
  }
  EXPECT_GT(single_op, 0) << "the smallest crashing case is a single Relu";

  // One worker, the same crashes: which case a worker died on does not depend on the job count.
  const CliResult one_job = RunCli(
      kBinary, "fuzz --engine test-segfault --ops Relu --cases 40 --jobs 1 --out " + out + "-1");
  EXPECT_EQ(one_job.exit_code, 1) << one_job.output;
  nlohmann::json with_one_job = Summary(out + "-1")["signatures"];
  ASSERT_EQ(with_one_job.size(), 1u);
  for (const char* key : {"signature", "count", "first_seed"}) {
    EXPECT_EQ(with_one_job[0][key], signature[key]) << key;
  }

  // The saved crash replays in a worker: it reproduces on its engine, not on production.
  const CliResult repro = RunCli(kBinary, "repro " + saved[0]);
  EXPECT_EQ(repro.exit_code, 1) << repro.output;
  EXPECT_TRUE(Contains(repro.output, "[crash] SIGSEGV")) << repro.output;
  EXPECT_TRUE(Contains(repro.output, "SegfaultingRelu::Run()")) << repro.output;
  const CliResult fixed = RunCli(kBinary, "repro --engine production " + saved[0]);
  EXPECT_EQ(fixed.exit_code, 0) << fixed.output;
  EXPECT_TRUE(Contains(fixed.output, "no longer reproduces")) << fixed.output;
}

TEST(CrashIsolation, AnEndlessLoopIsAHangFindingAndTheCampaignEndsOnTime) {
  const std::string out = TestTmp() + "/hang";
  const auto start = std::chrono::steady_clock::now();
  const CliResult run = RunCli(kBinary,
                               "fuzz --engine test-hang --ops Relu --seconds 3 --case-timeout 0.5 "
                               "--jobs 2 --reduce-seconds 0 --out " +
                                   out);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(run.exit_code, 1) << run.output;
  // The budget, plus at most one case timeout for the cases in flight when it ran out, plus the
  // binary's start: far below what one endless case would take. Without reduction, whose every
  // attempt at a hang waits out a case timeout (2 s of them made an ASan run on a busy machine
  // miss the bound).
  EXPECT_LT(seconds, 3 + 0.5 + 4) << run.output;
  const nlohmann::json summary = Summary(out);
  ASSERT_EQ(summary["signatures"].size(), 1u) << summary.dump(1);
  const nlohmann::json& signature = summary["signatures"][0];
  EXPECT_EQ(signature["oracle"], "hang");
  EXPECT_EQ(signature["blamed_op"], "Relu");
  EXPECT_EQ(signature["error_class"], "timeout");
  EXPECT_GT(summary["cases"].get<int>(), signature["count"].get<int>())
      << "cases that did not hang ran too";
  const CliResult repro = RunCli(kBinary, "repro " + SavedFindings(out)[0]);
  EXPECT_EQ(repro.exit_code, 1) << repro.output;
  EXPECT_TRUE(Contains(repro.output, "[hang] timeout")) << repro.output;
}

TEST(CrashIsolation, ARunawayAllocationPastCaseMemoryIsAResourceFinding) {
  if (!fuzz::SandboxEnforcesMemoryLimits()) {
    GTEST_SKIP() << "memory limits are not enforced under AddressSanitizer";
  }
  const std::string out = TestTmp() + "/hog";
  const CliResult run =
      RunCli(kBinary, "fuzz --engine test-hog --ops Relu --cases 6 --case-memory 256 --out " + out);
  ASSERT_EQ(run.exit_code, 1) << run.output;
  const nlohmann::json summary = Summary(out);
  ASSERT_EQ(summary["signatures"].size(), 1u) << summary.dump(1);
  EXPECT_EQ(summary["signatures"][0]["oracle"], "resource");
  EXPECT_EQ(summary["signatures"][0]["blamed_op"], "Relu");
  EXPECT_EQ(summary["signatures"][0]["error_class"], "std::bad_alloc");
  EXPECT_EQ(summary["signatures"][0]["count"], 6);
  // The GiB is never touched: without the limit the same campaign is clean.
  const CliResult unlimited =
      RunCli(kBinary, "fuzz --engine test-hog --ops Relu --cases 6 --out " + out + "-free");
  EXPECT_EQ(unlimited.exit_code, 0) << unlimited.output;
}

}  // namespace
}  // namespace parity::testing

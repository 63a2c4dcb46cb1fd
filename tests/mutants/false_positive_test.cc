// Zero false positives: with no mutant, generated cases (single ops and whole nets, as a campaign
// draws them) give no finding from any oracle — at least kCasesPerOracle checked cases for each
// default oracle (a 32nd of that for the builder oracle, which only the builders' nets meet). The mutants test (mutants_test.cc) shows the same
// oracles do find bugs; together they measure the oracles' power and their precision.
//
// The case indices are split into kSlices slices (one index of every block of kSlices), one gtest
// test per slice.
// gtest honours Bazel's TEST_TOTAL_SHARDS / TEST_SHARD_INDEX (and touches
// TEST_SHARD_STATUS_FILE) by running slice s on shard s % TEST_TOTAL_SHARDS, so the BUILD's
// shard_count spreads the slices over the machine's cores. Each slice checks its share of every
// oracle's quota, so the totals hold for any shard count.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "fuzz/campaign.h"
#include "oracles/check.h"
#include "oracles/describe.h"

namespace parity::fuzz {
namespace {

constexpr int64_t kCasesPerOracle = 10000;
constexpr int kSlices = 8;
const std::vector<std::string>& kOracles = oracles::DefaultOracles();

// Per slice and oracle; PARITY_FP_CASES_PER_ORACLE raises the total for longer manual runs. The
// builder oracle applies only to the nets cell builders make, one campaign case in 64: its quota
// is a 32nd of the others'.
int64_t Quota(const std::string& oracle) {
  int64_t total = kCasesPerOracle;
  if (const char* env = std::getenv("PARITY_FP_CASES_PER_ORACLE")) {
    total = std::max<int64_t>(total, std::atoll(env));
  }
  if (oracle == "builder") total /= 32;
  return (total + kSlices - 1) / kSlices;
}

// The k-th case index of `slice`: block k holds indices [k * kSlices, (k + 1) * kSlices), one per
// slice, rotated so that every slice alternates single-op cases (even) and nets (odd).
int64_t CaseIndex(int slice, int64_t k) { return k * kSlices + (slice + k) % kSlices; }
class FalsePositives : public ::testing::TestWithParam<int> {};

TEST_P(FalsePositives, NoFindingWithoutMutants) {
  const int slice = GetParam();
  const int64_t kQuota = Quota("forward");  // the largest
  CampaignOptions options;
  options.seed = 1;
  oracles::CheckTally tally;
  const auto start = std::chrono::steady_clock::now();
  // The oracles whose share of this slice is not done yet.
  auto pending = [&] {
    std::vector<std::string> out;
    for (const auto& oracle : kOracles) {
      if (tally.checked[oracle] < Quota(oracle)) out.push_back(oracle);
    }
    return out;
  };
  // Enough indices for every oracle's quota unless some oracle almost never applies.
  const int64_t max_cases = kQuota * 20;
  for (int64_t k = 0; !pending().empty() && k < max_cases; ++k) {
    const int64_t index = CaseIndex(slice, k);
    const Case c = CampaignCase(options, index);
    oracles::CheckRequest request;
    request.oracles = pending();
    const CaseReport report = oracles::CheckCase(c, request);
    const int64_t before = tally.findings;
    tally.Add(c, report);
    if (tally.findings > before && before < 5) {
      for (const Finding& finding : oracles::Findings(report)) {
        ADD_FAILURE() << "false positive at campaign index " << index << " (seed 1):\n"
                      << oracles::DescribeFinding(finding) << "\ncase:\n"
                      << c.DebugString();
      }
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("slice %d: %lld cases in %.1f s, findings %lld; checked", slice,
              static_cast<long long>(tally.cases), seconds, static_cast<long long>(tally.findings));
  for (const auto& oracle : kOracles) {
    std::printf(" %s %lld (n/a %lld)", oracle.c_str(),
                static_cast<long long>(tally.checked[oracle]),
                static_cast<long long>(tally.not_applicable[oracle]));
  }
  std::printf("\n");
  EXPECT_EQ(tally.findings, 0);
  for (const auto& oracle : kOracles) {
    EXPECT_GE(tally.checked[oracle], Quota(oracle)) << oracle << " applied to too few cases";
  }
}

INSTANTIATE_TEST_SUITE_P(Slices, FalsePositives, ::testing::Range(0, kSlices));

}  // namespace
}  // namespace parity::fuzz

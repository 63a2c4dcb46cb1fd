// CheckCase: the one entry point that runs oracles (XLA's RunAndCompare). The campaign,
// `parity check`, `parity repro`, the property and spec tests, the false-positive and mutant tests,
// EXPECT_*_CHECKS and the benches all call it, so a verdict, a finding, its signature and the exit
// code are the same from every entry point.
//
//   CheckRequest request;                       // every default oracle, on "production"
//   request.backend = "MUTANT_fc_drop_bias";    // any registered backend (oracles/backend.h)
//   CaseReport report = CheckCase(c, request);
//   for (const Finding& f : Findings(report)) ...
#ifndef PARITY_ORACLES_CHECK_H_
#define PARITY_ORACLES_CHECK_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/proto/parity.pb.h"

namespace parity::oracles {

// The oracles a check runs when none are named: validity, forward, gradient, determinism,
// roundtrip, shape, transform, and device where a CUDA device is present.
const std::vector<std::string>& DefaultOracles();
// The same in words, without asking the driver (help text: a CUDA query takes seconds on a GPU
// machine, before a command has installed its signal handlers).
std::string DescribeDefaultOracles();

struct CheckRequest {
  std::vector<std::string> oracles;    // empty: DefaultOracles()
  std::string backend = "production";  // the backend under test, by registered name
  std::string tolerance;               // a tolerance class; "": the loosest class of the case's ops
  bool full_jacobian = false;          // gradient: every input element on its own, too
  bool localize = true;                // blame the first diverging op
  // Determinism: when > 1, also compare the case run with ops on 1 compute thread and on this
  // many (core/threads.h; elementwise ops, reductions, softmax, norms and gather split large
  // tensors across threads and must not change a bit). Not for nets whose kernels split sums by
  // team size (oneDNN's convolutions and GEMMs: Conv, FC, MatMul, ...), which round differently.
  int compare_threads = 0;
  // Set (by a signal handler) to stop between oracles: the rest are NOT_APPLICABLE, "interrupted".
  const std::atomic<bool>* stop = nullptr;
};

// kBadArgument naming the first of `names` that is not a registered oracle, and the known ones.
void EnforceKnownOracles(const std::vector<std::string>& names);

// Runs every requested oracle on `c`. An oracle that the case's op specs skip, or that does not
// apply, gets a NOT_APPLICABLE verdict with the reason; one whose backends all reject the case gets
// REJECTED with the error (bad input); an oracle that throws gives a finding of error class
// "oracle error" (a bug of the workbench or the engine, not of the input). An unknown oracle or
// backend name is kBadArgument.
//
// A case with an init net is checked as the init net leaves it: the init net runs once on the
// backend under test (random fills without a seed of their own get one derived from the case's
// seed and their position, so two fills never draw the same numbers), and every tensor it leaves
// becomes an input. Every backend then starts from identical values; the report's checked_case
// is that case. An init net that fails is bad input: the error is thrown.
CaseReport CheckCase(const Case& c, const CheckRequest& request = {});

// The case with its init net run once and its results made inputs (see CheckCase).
Case FreezeInitNet(const Case& c, const std::string& backend);

// The findings of a report, in oracle order.
std::vector<Finding> Findings(const CaseReport& report);
// The command-line exit code of a report: 1 when it holds a finding, 2 when the case was rejected
// as bad input and nothing was found, else 0.
int ExitCode(const CaseReport& report);

// Counts over many reports (campaigns, the false-positive test, benches).
struct CheckTally {
  int64_t cases = 0;
  int64_t findings = 0;
  std::map<std::string, int64_t> checked;         // oracle -> cases it gave a verdict on
  std::map<std::string, int64_t> not_applicable;  // oracle -> cases it did not apply to
  std::map<std::string, int64_t> by_signature;    // SignatureKey -> findings
  std::map<std::string, int64_t> by_op;           // op type -> cases that held it
  // op type -> oracle -> cases holding the op that the oracle gave a verdict on (coverage).
  std::map<std::string, std::map<std::string, int64_t>> by_op_oracle;

  void Add(const Case& c, const CaseReport& report);
};

}  // namespace parity::oracles

#endif  // PARITY_ORACLES_CHECK_H_

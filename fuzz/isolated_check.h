// Checking cases in sandboxed workers (fuzz/sandbox.h): what a worker sends back for a case, and
// the Finding a case becomes when its worker crashes, hangs or runs out of memory on it.
#ifndef PARITY_FUZZ_ISOLATED_CHECK_H_
#define PARITY_FUZZ_ISOLATED_CHECK_H_

#include <string>
#include <vector>

#include "core/proto/parity.pb.h"
#include "fuzz/sandbox.h"
#include "oracles/check.h"

namespace parity::fuzz {

// The oracles' names for what a dead worker means: "crash", "hang", "resource".
bool IsWorkerOracle(const std::string& oracle);

// A worker's answer for a checked case: the report (its findings hold their cases) and the case's
// op types (what the campaign's tally counts), not the whole case.
std::string EncodeCheckedCase(const Case& c, const CaseReport& report);
// The inverse: `ops` gets a case with only the op types.
void DecodeCheckedCase(const std::string& bytes, Case* ops, CaseReport* report);

// The finding for case `c`, whose worker ended with `outcome` (not kOk) on `backend`. Its
// signature: oracle crash/hang/resource, the op that was running, the error class (the signal,
// "timeout", the exception type), and for signals the top frames of our own code.
Finding OutcomeFinding(const Case& c, const SandboxOutcome& outcome, const std::string& backend,
                       const SandboxLimits& limits);

// The limits a crash, hang or resource finding was found under (its case timeout, its memory
// limit), over `defaults`: what a replay or a reduction of it runs with.
SandboxLimits LimitsOf(const Finding& finding, SandboxLimits defaults = {});

// Checks `c` with `request` in a fresh worker: the report, or a report holding one crash, hang or
// resource finding when the worker died.
CaseReport CheckCaseIsolated(const Case& c, const oracles::CheckRequest& request,
                             const SandboxLimits& limits);

}  // namespace parity::fuzz

#endif  // PARITY_FUZZ_ISOLATED_CHECK_H_

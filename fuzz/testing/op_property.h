// The property every op must satisfy: single-op cases generated from the op's test spec
// (fuzz/specs/) pass every applicable oracle — forward, gradient, determinism, round-trip — with
// the spec's tolerance class, through CheckCase (oracles/check.h).
//
// Every registered spec is already checked by the suite generated from the spec registry
// (tests/fuzz/spec_property_test.cc): registering a spec is enough. An op author's own test file
// can state it for one op too:
//
//   #include "fuzz/testing/op_property.h"   // dep: //fuzz/testing:op_property
//   PARITY_OP_PROPERTY(Relu);
//
// RapidCheck draws the cases (derandomized under `bazel test`, see .bazelrc) and shrinks a failing
// one to a small net, printed with the finding.
#ifndef PARITY_FUZZ_TESTING_OP_PROPERTY_H_
#define PARITY_FUZZ_TESTING_OP_PROPERTY_H_

#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "fuzz/generators.h"
#include "fuzz/spec.h"
#include "oracles/check.h"
#include "oracles/describe.h"

namespace parity::fuzz {

// Inside a RapidCheck property. A case the gradient oracle finds not smooth (a point where a
// higher derivative jumps, such as Softsign at 0) or not finite (an Exp chain overflowing even in
// f64) is discarded: no verdict, and RapidCheck's
// discard limit still fails a spec that lands on kinks all the time. An oracle the spec skips is
// fine, and so is the transform oracle's: a graph transform rewrites nets, and most passes have
// nothing to rewrite in a single op (it judges the op where a pass does). Any other "not
// applicable" fails. `backend` is the backend under test.
inline void CheckOpProperty(const std::string& type, const std::string& backend = "production") {
  const OpSpec* spec = SpecRegistry::Find(type);
  RC_ASSERT(spec != nullptr);
  const Case c = *OpCaseGen(*spec);
  oracles::CheckRequest request;
  request.backend = backend;
  for (const std::string& oracle : oracles::DefaultOracles()) {
    // A case whose spec marks no input for the gradient check (e.g. int32 Add) has no gradient;
    // a single op is no cell builder's net.
    if (oracle == "gradient" && c.grad_inputs_size() == 0) continue;
    if (oracle == "builder") continue;
    request.oracles.push_back(oracle);
  }
  const CaseReport report = oracles::CheckCase(c, request);
  for (const OracleVerdict& verdict : report.verdicts()) {
    if (verdict.status() == OracleVerdict::FINDING) {
      RC_FAIL(oracles::DescribeFinding(verdict.finding()) + c.net().ShortDebugString());
    }
    // The device oracle (where a GPU is present) does not apply to CPU-only ops, to inputs a CUDA
    // kernel does not take (its kUnknownOp, e.g. a float-only kernel given int32) and to the
    // forward oracle's skips: `parity ops` lists the ops with CUDA kernels.
    if (verdict.status() != OracleVerdict::NOT_APPLICABLE || spec->Skips(verdict.oracle()) ||
        verdict.oracle() == "transform" || verdict.oracle() == "device") {
      continue;
    }
    RC_PRE(!(verdict.oracle() == "gradient" && (verdict.reason().rfind("not smooth", 0) == 0 ||
                                                verdict.reason().rfind("not finite", 0) == 0)));
    RC_FAIL(verdict.oracle() + " oracle: " + verdict.reason());
  }
}

}  // namespace parity::fuzz

#define PARITY_OP_PROPERTY(OpType) \
  RC_GTEST_PROP(OpProperty, OpType, ()) { ::parity::fuzz::CheckOpProperty(#OpType); }

#endif  // PARITY_FUZZ_TESTING_OP_PROPERTY_H_

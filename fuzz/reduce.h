// Reducing a finding to a small case with the same signature (C-Reduce, Polygraphy `debug reduce`,
// XLA's hlo_bisect): delta debugging over the ops, then over the dims, then over values and
// arguments, round after round until nothing shrinks or the time box runs out.
//
// * Ops: chunks of ops are removed, halving the chunk down to single ops. The consumers of a
//   removed op read the values it produced (taken from a traced run of the production engine), as
//   new external inputs, so every op that stays computes what it computed before.
// * Dims: a dim size shared by inputs shrinks everywhere at once (to 1, to half, by one), then each
//   input's own axes; tensors keep their leading elements.
// * Values: an input becomes all zeros, or rounded to integers or to one decimal.
// * Arguments: each one removed, so the op takes its default.
//
// Every candidate is checked in a worker process (fuzz/sandbox.h): a candidate that crashes does
// not take the reducer down, and a crash or hang finding is reduced by the same rule. A candidate
// is kept when its check gives a finding with the original's signature.
#ifndef PARITY_FUZZ_REDUCE_H_
#define PARITY_FUZZ_REDUCE_H_

#include "core/proto/parity.pb.h"
#include "fuzz/corpus.h"
#include "fuzz/sandbox.h"

namespace parity::fuzz {

struct ReduceOptions {
  double seconds = 10;   // the time box
  SandboxLimits limits;  // for each check (a crash or hang finding keeps the limits it was found
                         // with)
};

struct ReduceResult {
  bool reproduced = false;  // the finding's own case still gives its signature
  Finding reduced;          // the smallest case that does, as its check reported it
  CaseSize before, after;
  int checks = 0;  // candidates checked
  int kept = 0;    // candidates that kept the signature
  double seconds = 0;
  bool timed_out = false;
};

ReduceResult ReduceFinding(const Finding& finding, const ReduceOptions& options);

}  // namespace parity::fuzz

#endif  // PARITY_FUZZ_REDUCE_H_

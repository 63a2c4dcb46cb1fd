// RapidCheck generators of Cases: tensors from input specs, single-op cases from op specs, and
// whole shape-valid nets built NNSmith-style (each new op consumes an existing blob, checked by the
// production schemas' shape inference). Every case is reproducible from (generator version, seed)
// and shrinks with RapidCheck (fewer ops, smaller dims, simpler values).
#ifndef PARITY_FUZZ_GENERATORS_H_
#define PARITY_FUZZ_GENERATORS_H_

#include <rapidcheck.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/proto/parity.pb.h"
#include "fuzz/spec.h"

namespace parity::fuzz {

constexpr char kGeneratorVersion[] = "parity-gen-10";

// Values for `spec` (draws; call inside rc::gen::exec).
caffe2::TensorProto DrawTensor(const std::string& name, const InputSpec& spec);

// Every float input of `c` as a double of the same value; returns how many. Every op's production
// kernel and the reference take doubles (tests/coverage/dtypes_test.cc), and a net fed doubles
// computes in double, a path of each kernel no float case reaches.
int FeedDoubles(Case* c);

// A one-op case of `spec`; its inputs are named after the op's schema docs or in0, in1, ...
rc::Gen<Case> OpCaseGen(const OpSpec& spec);

struct NetGenOptions {
  int min_ops = 1;
  int max_ops = 15;
  int64_t max_elements = 4096;   // per blob
  std::vector<std::string> ops;  // allowed op types (empty: every spec that consumes intermediates)
};
rc::Gen<Case> NetCaseGen(const NetGenOptions& options);

// RapidCheck's size for the case of `seed`: uniform in [0, 100], as RapidCheck's own runs sweep
// it. The size scales every rc::gen::inRange a spec draws (ranks, dims, op counts, which variant of
// an op): at a fixed size the upper part of each range would never be drawn.
int SizeForSeed(uint64_t seed);
constexpr int kSizeFromSeed = -1;

// Deterministic sample of `gen` for `seed` (campaigns): same generator version + seed, same case.
// nullopt when 100 draws all fail (a narrow --ops set whose ops rarely chain into a net).
std::optional<Case> TrySampleCase(const rc::Gen<Case>& gen, uint64_t seed,
                                  int size = kSizeFromSeed);
// TrySampleCase, or kInternal when it fails.
Case SampleCase(const rc::Gen<Case>& gen, uint64_t seed, int size = kSizeFromSeed);

}  // namespace parity::fuzz

#endif  // PARITY_FUZZ_GENERATORS_H_

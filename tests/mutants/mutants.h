// The mutant catalogue: deliberately wrong kernels, each registered under its own test-only engine
// "MUTANT_<name>", that the oracles must find (anchors.md point 10: parity measures its own power).
//
// Each mutant is also a registered backend of that name (oracles/backend.h).
//
// A mutant wraps the real default-engine kernel of its op: it may run it on replaced inputs
// (scratch blobs), with edited arguments, and post-process its outputs. Engines fall back to the
// default kernel for ops without a kernel under that engine, so running a whole case under
// "MUTANT_<name>" changes only the mutated op.
//
// Each mutant says which oracle must kill it and where its cases come from: a net builder, a
// private single-op spec, or else the registered spec of `spec_type` (fuzz::SpecRegistry).
#ifndef PARITY_TESTS_MUTANTS_MUTANTS_H_
#define PARITY_TESTS_MUTANTS_MUTANTS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/proto/parity.pb.h"
#include "fuzz/spec.h"

namespace parity::mutants {

struct Mutant {
  std::string name;         // the engine is "MUTANT_" + name
  std::string op_type;      // the kernel it replaces (a forward or a gradient op)
  std::string oracle;       // the oracle that must kill it: forward, gradient, shape, validity
  std::string description;  // the bug, in words
  std::string family;       // op family (linalg, conv, pool, shape, reduce, norm, loss, rnn, ...)
  // Where cases come from, first match wins: `build` (nets), `make` (a private single-op spec),
  // else the registered spec of `spec_type` (default: op_type).
  std::function<Case(uint64_t seed)> build;
  fuzz::MakeFunction make;
  std::string spec_type;
  // The op type a killing finding must name when it is not op_type (or op_type's gradient): a bug
  // that needs state carried from one pass of a loop to the next is blamed on the loop, since the
  // localizer cuts out one pass as a case of its own (oracles/subnet_localize.h).
  std::string blamed_as;
  std::string
      tolerance;  // tolerance class for private cases ("" = the loosest class of the case's ops)
  // Mutants of what is not a kernel (a gradient maker, a shape function, a schema's validation)
  // swap a registry entry process-wide: `install` plants the bug and returns what undoes it. They
  // run on the production backend while installed (MutantScope); kernel mutants have no install
  // and run on their own backend, engine().
  std::function<std::function<void()>()> install;
  // "cuda": the mutant wraps the op's CUDA kernel (registered in CUDA builds only, under
  // (op_type, CUDA, engine())) and its backend is the production engine on the device
  // (oracles::MakeCudaBackend); only the device oracle meets it, so a machine without a CUDA
  // device skips its hunt ("skipped: no CUDA device") instead of calling it killed or survived.
  std::string device = "cpu";

  std::string engine() const { return "MUTANT_" + name; }
  // The backend a case runs on to meet this mutant.
  std::string backend() const { return install ? "production" : engine(); }
  // Whether hunting it needs a CUDA device.
  bool needs_device() const { return device == "cuda"; }
};

// Installs a mutant's registry swap (if it has one) for the scope's lifetime.
class MutantScope {
 public:
  explicit MutantScope(const Mutant& mutant);
  ~MutantScope();
  MutantScope(const MutantScope&) = delete;
  MutantScope& operator=(const MutantScope&) = delete;

 private:
  std::function<void()> undo_;
};

// Every mutant, in catalogue order (their kernels are registered at static-init time).
const std::vector<Mutant>& Catalogue();

// The case for `seed` (reproducible): from `build`, `make` or the registered spec. Throws
// parity::Error when the mutant has no source of cases.
Case MutantCase(const Mutant& mutant, uint64_t seed);

}  // namespace parity::mutants

#endif  // PARITY_TESTS_MUTANTS_MUTANTS_H_

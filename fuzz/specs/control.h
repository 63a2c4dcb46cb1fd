// The While spec's draw with its structural choices open to a caller: the mutant catalogue fixes
// them to build cases of the one loop shape a bug shows in (an If instance that runs on every
// pass). The registered While spec draws every choice.
#ifndef PARITY_FUZZ_SPECS_CONTROL_H_
#define PARITY_FUZZ_SPECS_CONTROL_H_

#include <cstdint>
#include <optional>

#include "fuzz/spec.h"

namespace parity::fuzz {

// Each choice left empty is drawn as the registered spec draws it.
struct WhileChoices {
  // The loop body holds an If between two chains (control flow nested) rather than one chain.
  std::optional<bool> nested_if;
  // The body's Do reruns one workspace on every pass (reuse_workspace, forward only: Caffe2's
  // While gradient needs a workspace per pass), so one instance of each body op runs every pass.
  std::optional<bool> reuse_workspace;
  // The loop's pass count k (0..3) and, with the If, the first pass that takes else (1..3).
  std::optional<int64_t> passes;
  std::optional<int64_t> else_from_pass;
};

// Draws; call inside a spec's Make or rc::gen::exec.
std::optional<OpInstance> DrawWhile(const Primary* primary, const WhileChoices& choices);

}  // namespace parity::fuzz

#endif  // PARITY_FUZZ_SPECS_CONTROL_H_

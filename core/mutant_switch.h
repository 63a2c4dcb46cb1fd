// The run-time switch of `parity mutate`'s mutant schemata (tools/mutate). A mutated source file is
// compiled once with every one of its mutants behind `::parity::mutant::On(id)`; the environment
// picks which one is live:
//   PARITY_MUTANT=<id>              mutant <id> is on (unset, empty or 0: every switch is off)
//   PARITY_MUTANT_COVERAGE=<file>   one byte per mutant id, mapped MAP_SHARED: On(id) sets byte id,
//                                   so the sites a forked (even SIGKILLed) worker reached stay marked
// Nothing in the normal build calls On(): only the files tools/mutate rewrites include this header.
#ifndef PARITY_CORE_MUTANT_SWITCH_H_
#define PARITY_CORE_MUTANT_SWITCH_H_

#include <cstddef>

namespace parity {
namespace mutant {

struct SwitchState {
  int active = 0;                    // PARITY_MUTANT, 0 when none
  unsigned char* coverage = nullptr;  // the mapped PARITY_MUTANT_COVERAGE file, or null
  std::size_t coverage_size = 0;
};

// Reads the environment once (a function-local static: safe from any static initializer).
const SwitchState& State();

// Whether mutant `id` is the live one; records that its site ran. Without PARITY_MUTANT and
// PARITY_MUTANT_COVERAGE this is a guarded static load and two predictable branches.
inline bool On(int id) {
  const SwitchState& state = State();
  if (state.coverage != nullptr && static_cast<std::size_t>(id) < state.coverage_size) {
    state.coverage[id] = 1;  // a byte per id: racing writers all store the same value
  }
  return id == state.active;
}

}  // namespace mutant
}  // namespace parity

#endif  // PARITY_CORE_MUTANT_SWITCH_H_

// Process-wide caches (plans keyed by an op's shapes and arguments, such as oneDNN's convolution
// plans in core/ops/conv/conv_dnnl.cc) register how to empty themselves here. Emptying them all is
// how a checker shows that a cache's key holds everything its value depends on: run a case on
// empty caches, then run a neighbouring case (one argument changed) and the case again; a key that
// misses the argument hands the neighbour's plan to the case, and its results change. Results
// never depend on what a cache holds, so emptying them is always safe; ops keep the entries they
// already hold (shared_ptr), only later lookups rebuild.
#ifndef PARITY_CORE_PROCESS_CACHES_H_
#define PARITY_CORE_PROCESS_CACHES_H_

#include <functional>
#include <string>

namespace parity {

// Registers a cache by name with a function that empties it (thread-safe; the function must take
// the cache's own lock). Returns true, for use in a static initializer.
bool RegisterProcessCache(const std::string& name, std::function<void()> clear);

// Empties every registered cache.
void ClearProcessCaches();

}  // namespace parity

#endif  // PARITY_CORE_PROCESS_CACHES_H_

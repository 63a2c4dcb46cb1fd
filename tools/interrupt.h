// SIGINT / SIGTERM during a long command (fuzz, check) stop it between cases, not in the middle of
// a write: the handler only sets a flag that the loops poll, so the command prints its summary so
// far and every finding already saved stays saved.
#ifndef PARITY_TOOLS_INTERRUPT_H_
#define PARITY_TOOLS_INTERRUPT_H_

#include <atomic>

namespace parity::tools {

// Installs the handlers (once) and returns the flag they set.
const std::atomic<bool>& InstallInterruptHandlers();

}  // namespace parity::tools

#endif  // PARITY_TOOLS_INTERRUPT_H_

#include "tools/interrupt.h"

#include <csignal>

namespace parity::tools {
namespace {

std::atomic<bool> interrupted{false};

extern "C" void OnSignal(int signal) {
  // A second signal kills at once: the user insists.
  if (interrupted.exchange(true)) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
  }
}

}  // namespace

const std::atomic<bool>& InstallInterruptHandlers() {
  static const bool installed = [] {
    struct sigaction action {};
    action.sa_handler = OnSignal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    return true;
  }();
  (void)installed;
  return interrupted;
}

}  // namespace parity::tools

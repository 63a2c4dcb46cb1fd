#include "core/process_caches.h"

#include <map>
#include <mutex>
#include <utility>

namespace parity {
namespace {

std::mutex& Mutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}

std::map<std::string, std::function<void()>>& Caches() {
  static auto* caches = new std::map<std::string, std::function<void()>>();
  return *caches;
}

}  // namespace

bool RegisterProcessCache(const std::string& name, std::function<void()> clear) {
  std::lock_guard<std::mutex> lock(Mutex());
  Caches()[name] = std::move(clear);
  return true;
}

void ClearProcessCaches() {
  std::map<std::string, std::function<void()>> caches;
  {
    std::lock_guard<std::mutex> lock(Mutex());
    caches = Caches();
  }
  for (const auto& [name, clear] : caches) clear();
}

}  // namespace parity

#include "gpu/caching_allocator.h"

namespace parity::gpu {

CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> lock(mutex_);
  EmptyCacheLocked();
}

void* CachingAllocator::Allocate(size_t bytes) {
  const size_t rounded = (bytes == 0 ? 1 : bytes + kRoundBytes - 1) / kRoundBytes * kRoundBytes;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = free_.lower_bound(rounded);
  if (it != free_.end() && it->first / 2 <= rounded) {
    const size_t size = it->first;
    void* ptr = it->second;
    free_.erase(it);
    in_use_[ptr] = size;
    ++stats_.cache_hits;
    stats_.bytes_cached -= size;
    stats_.bytes_in_use += size;
    return ptr;
  }
  void* ptr = backend_.allocate(rounded);
  if (ptr == nullptr && !free_.empty()) {
    // The device is full, partly of our cached blocks: give them back and try once more.
    EmptyCacheLocked();
    ptr = backend_.allocate(rounded);
  }
  if (ptr == nullptr) return nullptr;
  ++stats_.device_allocations;
  in_use_[ptr] = rounded;
  stats_.bytes_in_use += rounded;
  return ptr;
}

bool CachingAllocator::Release(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = in_use_.find(ptr);
  if (it == in_use_.end()) return false;
  free_.emplace(it->second, ptr);
  stats_.bytes_in_use -= it->second;
  stats_.bytes_cached += it->second;
  in_use_.erase(it);
  return true;
}

void CachingAllocator::EmptyCache() {
  std::lock_guard<std::mutex> lock(mutex_);
  EmptyCacheLocked();
}

void CachingAllocator::EmptyCacheLocked() {
  for (const auto& [size, ptr] : free_) {
    backend_.release(ptr);
    ++stats_.device_releases;
  }
  free_.clear();
  stats_.bytes_cached = 0;
}

CachingAllocator::Stats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace parity::gpu

// A caching allocator: freed blocks are kept by size and handed out again, so a net run many times
// (oracles, campaigns, benchmarks) calls cudaMalloc only while warming up. Plain host code over two
// callbacks, so its bookkeeping is tested on machines without a GPU (tests/gpu).
//
// Blocks are rounded up to kRoundBytes; a request takes the smallest cached block that fits and is
// at most twice its size (a small tensor does not pin a huge block). When the device refuses, the
// cache is emptied and the request tried once more. Reuse is safe without events because every
// kernel of a device runs on its one stream (gpu/context.h): a block freed by the host is reused
// only by work enqueued after the work that last used it.
#ifndef PARITY_GPU_CACHING_ALLOCATOR_H_
#define PARITY_GPU_CACHING_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <unordered_map>

namespace parity::gpu {

class CachingAllocator {
 public:
  static constexpr size_t kRoundBytes = 512;

  struct Backend {
    std::function<void*(size_t bytes)> allocate;  // null when the device is out of memory
    std::function<void(void* ptr)> release;
  };
  struct Stats {
    int64_t device_allocations = 0;  // calls to backend.allocate that succeeded
    int64_t device_releases = 0;
    int64_t cache_hits = 0;
    size_t bytes_in_use = 0;  // handed out and not yet released
    size_t bytes_cached = 0;  // kept for reuse
  };

  explicit CachingAllocator(Backend backend) : backend_(std::move(backend)) {}
  ~CachingAllocator();  // returns the cached blocks; blocks still in use are the owners' to free
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // A block of at least `bytes` (0 counts as 1), or null when the device has no room even after
  // emptying the cache.
  void* Allocate(size_t bytes);
  // Returns a block from Allocate to the cache; an unknown pointer is ignored and reported false.
  bool Release(void* ptr);
  // Gives every cached block back to the device.
  void EmptyCache();
  Stats stats() const;

 private:
  void EmptyCacheLocked();

  Backend backend_;
  mutable std::mutex mutex_;
  std::multimap<size_t, void*> free_;          // cached blocks by size
  std::unordered_map<void*, size_t> in_use_;  // handed-out blocks and their sizes
  Stats stats_;
};

}  // namespace parity::gpu

#endif  // PARITY_GPU_CACHING_ALLOCATOR_H_

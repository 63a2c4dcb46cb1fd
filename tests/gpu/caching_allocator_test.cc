// The caching allocator's bookkeeping over a fake device (host memory with a byte budget), so it
// runs on every machine.
#include "gpu/caching_allocator.h"

#include <cstdlib>

#include <gtest/gtest.h>

namespace parity::gpu {
namespace {

struct FakeDevice {
  size_t budget = 1 << 20;
  size_t used = 0;
  int allocations = 0;
  CachingAllocator::Backend Backend() {
    return {[this](size_t bytes) -> void* {
              if (used + bytes > budget) return nullptr;
              used += bytes;
              ++allocations;
              return std::malloc(bytes);
            },
            [this](void* ptr) {
              // Sizes are not tracked here; the allocator's stats are checked instead.
              std::free(ptr);
            }};
  }
};

TEST(CachingAllocatorTest, RepeatedRunsReuseBlocksWithoutNewDeviceAllocations) {
  FakeDevice device;
  CachingAllocator allocator(device.Backend());
  for (int run = 0; run < 5; ++run) {
    void* a = allocator.Allocate(1000);
    void* b = allocator.Allocate(4096);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(allocator.Release(a));
    EXPECT_TRUE(allocator.Release(b));
  }
  const CachingAllocator::Stats stats = allocator.stats();
  EXPECT_EQ(stats.device_allocations, 2);
  EXPECT_EQ(stats.cache_hits, 8);
  EXPECT_EQ(stats.bytes_in_use, 0u);
  EXPECT_EQ(stats.bytes_cached, 1024u + 4096u);  // 1000 rounded up to 512-byte units
}

TEST(CachingAllocatorTest, SmallRequestDoesNotTakeAMuchLargerBlock) {
  FakeDevice device;
  CachingAllocator allocator(device.Backend());
  allocator.Release(allocator.Allocate(64 * 1024));
  void* small = allocator.Allocate(512);
  EXPECT_EQ(allocator.stats().cache_hits, 0);
  EXPECT_EQ(allocator.stats().device_allocations, 2);
  allocator.Release(small);
}

TEST(CachingAllocatorTest, FullDeviceEmptiesTheCacheAndRetries) {
  FakeDevice device;
  device.budget = 8192;
  CachingAllocator allocator(device.Backend());
  allocator.Release(allocator.Allocate(4096));
  device.used = 4096;  // the cached block still holds its bytes on the device
  void* big = allocator.Allocate(8192);
  EXPECT_EQ(big, nullptr);  // even the emptied cache leaves too little: null, not a crash
  EXPECT_EQ(allocator.stats().device_releases, 1);
  EXPECT_EQ(allocator.stats().bytes_cached, 0u);
}

TEST(CachingAllocatorTest, UnknownPointerIsRefused) {
  FakeDevice device;
  CachingAllocator allocator(device.Backend());
  int local = 0;
  EXPECT_FALSE(allocator.Release(&local));
}

}  // namespace
}  // namespace parity::gpu

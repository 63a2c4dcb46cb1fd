// Seeds for consecutive positions (campaign cases, fills of an init net) that are independent of
// each other: SplitMix64's finalizer (Steele, Lea, Flood 2014) spreads consecutive integers over
// the whole 64-bit range.
#ifndef PARITY_ORACLES_SEEDS_H_
#define PARITY_ORACLES_SEEDS_H_

#include <cstdint>

namespace parity::oracles {

inline uint64_t MixSeed(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The seed of item `index` of a sequence seeded by `seed`.
inline uint64_t SeedAt(uint64_t seed, uint64_t index) { return MixSeed(seed * 1000003ull + index); }

}  // namespace parity::oracles

#endif  // PARITY_ORACLES_SEEDS_H_

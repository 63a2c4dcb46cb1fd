// What the benchmark binaries share: inputs fed into a workspace.
#ifndef PARITY_BENCH_BENCH_UTIL_H_
#define PARITY_BENCH_BENCH_UTIL_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/workspace.h"

namespace parity::bench {

// Creates float blob `name` of `dims` in `ws`, uniform in [low, high) from a generator seeded
// with `seed` (the same values on every run and machine).
inline void FeedUniform(Workspace* ws, const std::string& name, const std::vector<int64_t>& dims,
                        uint32_t seed, float low, float high) {
  Tensor* t = ws->CreateTensor(name);
  t->Resize(dims);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(low, high);
  float* data = t->mutable_data<float>();
  for (int64_t i = 0; i < t->numel(); ++i) data[i] = dist(gen);
}

}  // namespace parity::bench

#endif  // PARITY_BENCH_BENCH_UTIL_H_

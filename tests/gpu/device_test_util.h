// What the device tests of tests/gpu share: the skip where no device is present (one line, as
// EXPECT_DEVICE_CHECKS skips) and a float ramp that repeats every 17 elements.
#ifndef PARITY_TESTS_GPU_DEVICE_TEST_UTIL_H_
#define PARITY_TESTS_GPU_DEVICE_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "gpu/device.h"

#define SKIP_WITHOUT_DEVICE() \
  if (::parity::gpu::DeviceCount() == 0) GTEST_SKIP() << "no CUDA device: skipped"

namespace parity::testing {

// start, start + step, ..., start + 16 step, then again from start.
inline Tensor Values(std::vector<int64_t> dims, float start, float step) {
  Tensor t(DataType::kFloat, dims);
  float* data = t.mutable_data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) data[i] = start + step * static_cast<float>(i % 17);
  return t;
}

}  // namespace parity::testing

#endif  // PARITY_TESTS_GPU_DEVICE_TEST_UTIL_H_

// The reduction kernel's body (gpu/kernels/reduce_body.h) on the host, with the geometry the CUDA
// op builds (PlanReduce, then ReduceGeometryOf), against the CPU engine's ReduceSum / ReduceMean on
// several shapes and axis sets. The inputs are multiples of 1/8 in [-4, 4]: every partial sum is
// then exact in float whatever the order, so the body's serial sum and the CPU's vectorized one
// must agree bit for bit (and the mean is the same division of the same exact sum); a wrong
// stride or kept/reduced split sums other elements and shows. A second test uses general floats,
// where the orders differ, within a tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/ops/reduce/reduce.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/host_device.h"
#include "gpu/kernels/reduce_body.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

struct Case {
  std::vector<int64_t> dims;
  std::vector<int64_t> axes;
  bool keepdims;
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {{3, 4, 5, 2}, {0, 2}, false},  // alternating kept / reduced
      {{3, 4, 5, 2}, {1, 3}, true},
      {{3, 4, 5}, {}, false},         // everything
      {{3, 4, 5}, {2}, false},        // trailing: contiguous rows
      {{3, 4, 5}, {0}, true},         // leading: strided columns
      {{6, 1, 7}, {-1}, false},       // size-1 dim skipped, negative axis
      {{2, 3, 2, 3, 2, 3}, {0, 2, 4}, false},
      {{37, 33}, {0, 1}, false},      // long rows: the CPU's 32-wide path
      {{5, 0, 3}, {1}, false},        // empty reduction: 0 (sum), NaN (mean)
  };
  return cases;
}

// Runs the op on the CPU and the body on the host; returns (CPU, body) outputs.
std::pair<std::vector<float>, std::vector<float>> RunBoth(const char* type, const Case& c,
                                                          const Tensor& x) {
  const bool mean = std::string(type) == "ReduceMean";
  auto ws = RunOp(MakeOp(type, {"x"}, {"y"},
                         {{"axes", Ints(c.axes)}, {"keepdims", c.keepdims ? 1 : 0}}),
                  {{"x", x}});
  const Tensor& expected = ws->GetBlob("y")->GetTensor();
  const reduce_util::ReducePlan plan = reduce_util::PlanReduce(c.dims, c.axes, c.keepdims, type);
  EXPECT_EQ(plan.out_dims, expected.dims()) << type;
  const gpu::kernels::ReduceGeometry g = gpu::ReduceGeometryOf(type, c.dims, plan.reduced);
  std::vector<float> y(static_cast<size_t>(expected.numel()), -12345.0f);
  gpu::kernels::RunBodyOnHost(expected.numel(), [&](int64_t o) {
    gpu::kernels::ReduceSumBody(x.data<float>(), y.data(), plan.count, mean, g, o);
  });
  return {Values<float>(expected), y};
}

TEST(ReduceBody, ExactSumsMatchTheCpuEngineBitForBit) {
  uint32_t seed = 7;
  for (const char* type : {"ReduceSum", "ReduceMean"}) {
    for (const Case& c : Cases()) {
      const auto [cpu, body] = RunBoth(type, c, EighthsTensor(c.dims, seed++));
      ASSERT_EQ(cpu.size(), body.size());
      for (size_t i = 0; i < cpu.size(); ++i) {
        EXPECT_TRUE(std::memcmp(&cpu[i], &body[i], sizeof(float)) == 0 ||
                    (std::isnan(cpu[i]) && std::isnan(body[i])))
            << type << " " << ShapeString(c.dims) << " axes " << ShapeString(c.axes)
            << " element " << i << ": CPU " << cpu[i] << ", body " << body[i];
      }
    }
  }
}

// General floats: the CPU sums 8 or 32 lanes at once, the body serially, so the results differ
// by rounding: at most a few ulps of the sum of |x| for these counts (<= 1221 terms of |x| < 1).
TEST(ReduceBody, GeneralFloatsWithinSummationRounding) {
  uint32_t seed = 70;
  for (const char* type : {"ReduceSum", "ReduceMean"}) {
    for (const Case& c : Cases()) {
      const auto [cpu, body] = RunBoth(type, c, RandomTensor(c.dims, seed++));
      ASSERT_EQ(cpu.size(), body.size());
      for (size_t i = 0; i < cpu.size(); ++i) {
        if (std::isnan(cpu[i])) {
          EXPECT_TRUE(std::isnan(body[i])) << type << " element " << i;
          continue;
        }
        EXPECT_NEAR(body[i], cpu[i], 1e-4f) << type << " " << ShapeString(c.dims) << " element "
                                            << i;
      }
    }
  }
}

// Hand-worked: [2, 3] summed over axis 0 keeps dim 1 (stride 1) and reduces dim 0 (stride 3).
TEST(ReduceBody, HandWorkedColumnSums) {
  const gpu::kernels::ReduceGeometry g = gpu::ReduceGeometryOf("ReduceSum", {2, 3}, {true, false});
  ASSERT_EQ(g.kept_rank, 1);
  EXPECT_EQ(g.kept_strides[0], 1);
  ASSERT_EQ(g.reduced_rank, 1);
  EXPECT_EQ(g.reduced_strides[0], 3);
  const float x[] = {1, 2, 3, 10, 20, 30};
  float y[3] = {};
  gpu::kernels::RunBodyOnHost(3, [&](int64_t o) {
    gpu::kernels::ReduceSumBody(x, y, 2, false, g, o);
  });
  EXPECT_EQ(std::vector<float>(y, y + 3), (std::vector<float>{11, 22, 33}));
  gpu::kernels::RunBodyOnHost(3, [&](int64_t o) {
    gpu::kernels::ReduceSumBody(x, y, 2, true, g, o);
  });
  EXPECT_EQ(std::vector<float>(y, y + 3), (std::vector<float>{5.5f, 11, 16.5f}));
}

}  // namespace
}  // namespace parity::testing

// The binary kernels' body (gpu/kernels/elementwise_body.h) on the host, with the geometry the
// CUDA op builds (BinaryDims, then BroadcastGeometryOf), against the CPU engine's Add / Sub / Mul /
// Div: numpy broadcasting and Caffe2's legacy broadcast=1 with an axis. Each output is one IEEE
// operation on the same two floats on both sides, so the bits must be equal: a wrong stride or a
// misaligned operand picks another element and shows.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/ops/elementwise/binary.h"
#include "core/schema.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/elementwise_body.h"
#include "gpu/kernels/host_device.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

using gpu::kernels::Binary;

struct Case {
  std::vector<int64_t> a, b;
  std::vector<TestArg> args;
};

void ExpectBodyMatchesCpu(const char* type, Binary fn, const Case& c, uint32_t seed) {
  const caffe2::OperatorDef def = MakeOp(type, {"a", "b"}, {"y"}, c.args);
  // Divisors kept away from 0 so Div compares finite values (bits of inf/NaN would match too,
  // but say less about the indexing).
  const Tensor a = RandomTensor(c.a, seed, -2.0f, 2.0f);
  const Tensor b = RandomTensor(c.b, seed + 1, 0.5f, 3.0f);
  auto ws = RunOp(def, {{"a", a}, {"b", b}});
  const Tensor& expected = ws->GetBlob("y")->GetTensor();

  const BroadcastArgs bargs =
      ReadBroadcastArgs(def, ArgumentHelper(def, OpSchemaRegistry::Find(type)));
  std::vector<int64_t> out, b_plan;
  BinaryDims(bargs, c.a, c.b, type, &out, &b_plan);
  ASSERT_EQ(out, expected.dims()) << type;
  const gpu::kernels::BroadcastGeometry g = gpu::BroadcastGeometryOf(type, out, c.a, b_plan);
  std::vector<float> y(static_cast<size_t>(expected.numel()), -12345.0f);
  gpu::kernels::RunBodyOnHost(expected.numel(), [&](int64_t i) {
    gpu::kernels::BinaryBody(fn, a.data<float>(), b.data<float>(), y.data(), g, i);
  });
  for (int64_t i = 0; i < expected.numel(); ++i) {
    const float want = expected.data<float>()[i];
    ASSERT_EQ(std::memcmp(&y[i], &want, sizeof(float)), 0)
        << type << " A " << ShapeString(c.a) << " B " << ShapeString(c.b) << " element " << i
        << ": body " << y[i] << ", CPU " << want;
  }
}

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {{2, 3, 4}, {2, 3, 4}, {}},             // same shape
      {{2, 3, 4}, {4}, {}},                   // suffix
      {{2, 3, 4}, {3, 1}, {}},                // inner broadcast in B
      {{2, 1, 4}, {3, 1}, {}},                // both operands broadcast
      {{1, 5}, {3, 1}, {}},                   // outer product shape
      {{3, 1, 5, 1}, {1, 4, 1, 2}, {}},       // alternating
      {{2, 3, 4, 5}, {}, {}},                 // scalar B
      {{7}, {1}, {}},
      {{2, 3, 4, 5}, {3, 4}, {{"broadcast", 1}, {"axis", 1}}},  // legacy, middle axis
      {{2, 3, 4}, {3}, {{"broadcast", 1}, {"axis", 1}}},
      {{2, 3, 4}, {2}, {{"broadcast", 1}, {"axis", 0}}},        // legacy, leading axis
      {{2, 3, 4}, {4}, {{"broadcast", 1}}},                      // legacy suffix
      {{2, 3, 1, 4, 2, 1, 3, 2}, {1, 3, 1, 4, 1, 2, 3, 1}, {}},  // rank 8, the kernel's limit
  };
  return cases;
}

TEST(ElementwiseBody, AddMatchesTheCpuEngineBitForBit) {
  uint32_t seed = 1;
  for (const Case& c : Cases()) ExpectBodyMatchesCpu("Add", Binary::kAdd, c, seed += 2);
}

TEST(ElementwiseBody, SubMulDivMatchTheCpuEngineBitForBit) {
  uint32_t seed = 100;
  for (const Case& c : Cases()) {
    ExpectBodyMatchesCpu("Sub", Binary::kSub, c, seed += 2);
    ExpectBodyMatchesCpu("Mul", Binary::kMul, c, seed += 2);
    ExpectBodyMatchesCpu("Div", Binary::kDiv, c, seed += 2);
  }
}

// Hand-worked: A [2, 3] + B [3] (suffix): B's stride is 0 along dim 0 and 1 along dim 1.
TEST(ElementwiseBody, HandWorkedGeometry) {
  const gpu::kernels::BroadcastGeometry g = gpu::BroadcastGeometryOf("Add", {2, 3}, {2, 3}, {3});
  ASSERT_EQ(g.rank, 2);
  EXPECT_EQ(g.a_strides[0], 3);
  EXPECT_EQ(g.a_strides[1], 1);
  EXPECT_EQ(g.b_strides[0], 0);
  EXPECT_EQ(g.b_strides[1], 1);
  const float a[] = {1, 2, 3, 4, 5, 6}, b[] = {10, 20, 30};
  float y[6] = {};
  gpu::kernels::RunBodyOnHost(6, [&](int64_t i) {
    gpu::kernels::BinaryBody(Binary::kAdd, a, b, y, g, i);
  });
  EXPECT_EQ(std::vector<float>(y, y + 6), (std::vector<float>{11, 22, 33, 14, 25, 36}));
}

TEST(ElementwiseBody, BeyondTheKernelRankIsUnknownOp) {
  ExpectError([] { gpu::BroadcastGeometryOf("Add", std::vector<int64_t>(9, 2),
                                            std::vector<int64_t>(9, 2), {2}); },
              ErrorKind::kUnknownOp, {"Add", "up to rank 8"});
}

}  // namespace
}  // namespace parity::testing

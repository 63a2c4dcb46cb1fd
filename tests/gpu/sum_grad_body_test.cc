// The Sum kernel's body (gpu/kernels/sum_body.h, with the launcher's chunking ForEachSumChunk) and
// the reduction AddGradient / SubGradient run on the device (ReduceSumBody with
// BroadcastReduceGeometryOf, gpu/ops/sum_grad.cc), on the host, against the CPU engine and a
// naive loop. Sum adds in the CPU's order, so it must match bit for bit on general floats; the
// gradients are checked on multiples of 1/8 (every partial sum exact in float whatever the
// order), so a wrong stride or a wrong kept / reduced split shows as a different value.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/ops/elementwise/binary.h"
#include "core/schema.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/host_device.h"
#include "gpu/kernels/reduce_body.h"
#include "gpu/kernels/sum_body.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

using gpu::kernels::RunBodyOnHost;

// What gpu::kernels::SumFloat does, on the host.
std::vector<float> SumOnHost(const std::vector<Tensor>& xs) {
  std::vector<const float*> ptrs;
  for (const Tensor& x : xs) ptrs.push_back(x.data<float>());
  std::vector<float> y(static_cast<size_t>(xs[0].numel()), -12345.0f);
  int launches = 0;
  gpu::kernels::ForEachSumChunk(
      ptrs.data(), static_cast<int>(ptrs.size()), y.data(), [&](const gpu::kernels::SumInputs& in) {
        ++launches;
        EXPECT_LE(in.count, gpu::kernels::kMaxSumInputs);
        RunBodyOnHost(xs[0].numel(), [&](int64_t i) { gpu::kernels::SumBody(in, y.data(), i); });
      });
  const int n = static_cast<int>(xs.size());
  EXPECT_EQ(launches, n <= 8 ? 1 : 1 + (n - 8 + 6) / 7) << n << " inputs";
  return y;
}

TEST(SumBody, MatchesTheCpuEngineAndANaiveLoopBitForBit) {
  for (int count : {1, 2, 4, 8, 9, 15, 16, 17}) {
    const std::vector<int64_t> dims = {3, 5, 7};
    std::vector<Tensor> xs;
    std::map<std::string, Tensor> feed;
    std::vector<std::string> names;
    for (int k = 0; k < count; ++k) {
      xs.push_back(RandomTensor(dims, 100 + k, -3.0f, 3.0f));
      names.push_back("x" + std::to_string(k));
      feed[names.back()] = xs.back();
    }
    auto ws = RunOp(MakeOp("Sum", names, {"y"}), feed);
    const std::vector<float> cpu = Values<float>(ws->GetBlob("y")->GetTensor());
    const std::vector<float> body = SumOnHost(xs);
    ASSERT_EQ(cpu.size(), body.size());
    for (size_t i = 0; i < cpu.size(); ++i) {
      float naive = xs[0].data<float>()[i];
      for (int k = 1; k < count; ++k) naive += xs[k].data<float>()[i];
      EXPECT_EQ(std::memcmp(&cpu[i], &body[i], sizeof(float)), 0)
          << count << " inputs, element " << i << ": CPU " << cpu[i] << ", body " << body[i];
      EXPECT_EQ(std::memcmp(&naive, &body[i], sizeof(float)), 0) << count << " inputs, " << i;
    }
  }
}

TEST(SumBody, OneInputIsACopyKeepingNegativeZero) {
  const Tensor x = MakeTensor<float>({3}, {-0.0f, 1.5f, -2.0f});
  const std::vector<float> y = SumOnHost({x});
  EXPECT_TRUE(std::signbit(y[0]));
  EXPECT_EQ(y[1], 1.5f);
  EXPECT_EQ(y[2], -2.0f);
}

TEST(SumBody, InPlaceOfInputZeroAcrossChunks) {
  // y is x0 itself: every launch reads y[i] before writing it.
  std::vector<Tensor> xs;
  for (int k = 0; k < 11; ++k) xs.push_back(EighthsTensor({4, 6}, 40 + k));
  std::vector<float> expected(24);
  for (int i = 0; i < 24; ++i) {
    float s = xs[0].data<float>()[i];
    for (int k = 1; k < 11; ++k) s += xs[k].data<float>()[i];
    expected[i] = s;
  }
  std::vector<const float*> ptrs;
  for (const Tensor& x : xs) ptrs.push_back(x.data<float>());
  float* y = xs[0].mutable_data<float>();
  gpu::kernels::ForEachSumChunk(ptrs.data(), 11, y, [&](const gpu::kernels::SumInputs& in) {
    RunBodyOnHost(24, [&](int64_t i) { gpu::kernels::SumBody(in, y, i); });
  });
  EXPECT_EQ(std::vector<float>(y, y + 24), expected);
}

struct GradCase {
  std::vector<int64_t> a, b;
  bool legacy = false;
  int64_t axis = -1;  // legacy only
};

const std::vector<GradCase>& GradCases() {
  static const std::vector<GradCase> cases = {
      {{2, 3}, {2, 3}},                 // no broadcast: copies
      {{2, 3, 4}, {3, 1}},              // numpy: B over dims 0 and 2
      {{2, 3, 4}, {4}},                 // numpy: trailing
      {{3, 1}, {2, 3, 4}},              // numpy: A broadcasts
      {{2, 1, 4}, {1, 3, 1}},           // numpy: both broadcast
      {{2, 3, 4}, {}},                  // scalar B
      {{2, 3, 4}, {3}, true, 1},        // legacy, axis 1
      {{2, 3, 4}, {3, 4}, true, -1},    // legacy, suffix
      {{2, 3, 4}, {2}, true, 0},        // legacy, axis 0
      {{2, 3, 4, 5}, {3, 4}, true, 1},  // legacy, middle dims
      {{0, 3}, {3}},                    // empty output: dB is zeros
  };
  return cases;
}

caffe2::OperatorDef GradOp(const char* type, const GradCase& c) {
  std::vector<TestArg> args;
  if (c.legacy) {
    args.push_back({"broadcast", 1});
    if (c.axis >= 0) args.push_back({"axis", c.axis});
  }
  return MakeOp(type, {"dc", "a", "b"}, {"da", "db"}, args);
}

// dA or dB as the CUDA op computes it: dC itself (negated) without broadcast copies, else the
// reduction over the broadcast dims (negated).
std::vector<float> ReduceOnHost(const std::string& label, const Tensor& dc,
                                const std::vector<int64_t>& out,
                                const std::vector<int64_t>& operand_plan, int64_t n, bool negate) {
  std::vector<float> y(static_cast<size_t>(n), -12345.0f);
  const float* x = dc.data<float>();
  if (n == dc.numel()) {
    for (int64_t i = 0; i < n; ++i) y[i] = negate ? -x[i] : x[i];
    return y;
  }
  int64_t count = 0;
  const gpu::kernels::ReduceGeometry g =
      gpu::BroadcastReduceGeometryOf(label, out, operand_plan, &count);
  RunBodyOnHost(n,
                [&](int64_t o) { gpu::kernels::ReduceSumBody(x, y.data(), count, false, g, o); });
  if (negate) {
    for (float& v : y) v = -v;
  }
  return y;
}

TEST(AddSubGradientBody, MatchesTheCpuEngineOnExactSums) {
  uint32_t seed = 1;
  for (const char* type : {"AddGradient", "SubGradient"}) {
    const bool negate_b = std::string(type) == "SubGradient";
    for (const GradCase& c : GradCases()) {
      const caffe2::OperatorDef def = GradOp(type, c);
      const BroadcastArgs bargs =
          ReadBroadcastArgs(def, ArgumentHelper(def, OpSchemaRegistry::Find(type)));
      std::vector<int64_t> out, b_plan;
      BinaryDims(bargs, c.a, c.b, type, &out, &b_plan);
      const Tensor dc = EighthsTensor(out, seed++);
      auto ws = RunOp(
          def, {{"dc", dc}, {"a", EighthsTensor(c.a, seed++)}, {"b", EighthsTensor(c.b, seed++)}});
      const Tensor& da = ws->GetBlob("da")->GetTensor();
      const Tensor& db = ws->GetBlob("db")->GetTensor();
      EXPECT_EQ(da.dims(), c.a);
      EXPECT_EQ(db.dims(), c.b);
      const std::string what = std::string(type) + " A " + ShapeString(c.a) + " B " +
                               ShapeString(c.b) + (c.legacy ? " legacy" : "");
      EXPECT_EQ(ReduceOnHost(type, dc, out, c.a, da.numel(), false), Values<float>(da)) << what;
      EXPECT_EQ(ReduceOnHost(type, dc, out, b_plan, db.numel(), negate_b), Values<float>(db))
          << what;
    }
  }
}

// Hand-worked: dC [2, 3] = 1..6 reduced to B [3] (numpy) is the column sums; to B [2] (legacy,
// axis 0, b_plan [2, 1]) the row sums.
TEST(AddSubGradientBody, HandWorkedColumnAndRowSums) {
  const Tensor dc = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(ReduceOnHost("AddGradient", dc, {2, 3}, {3}, 3, false), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(ReduceOnHost("SubGradient", dc, {2, 3}, {2, 1}, 2, true),
            (std::vector<float>{-6, -15}));
  int64_t count = 0;
  gpu::BroadcastReduceGeometryOf("AddGradient", {2, 3, 4}, {3, 1}, &count);
  EXPECT_EQ(count, 8);
}

}  // namespace
}  // namespace parity::testing

// The variadic kernels' bodies (gpu/kernels/variadic_body.h) on the host, driven as the CUDA ops in
// gpu/ops/variadic.cc drive them (chunks of inputs, BroadcastReduceGeometryOf), against the CPU
// engine's Max, Min, Mean, MaxGradient, MinGradient and MeanGradient, bit for bit (NaN by
// position), the sign of a max(+0, -0) included. Input counts past kMaxVariadicInputs cover the
// chunking, broadcast shapes the strides, the CPU's packet blocks and the gradients' sums.
#include "gpu/kernels/variadic_body.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gpu/kernel_geometry.h"
#include "gpu/kernels/host_device.h"
#include "gpu/kernels/sum_body.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

namespace k = gpu::kernels;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

bool SameBits(float a, float b) {
  return std::memcmp(&a, &b, sizeof(float)) == 0 || (std::isnan(a) && std::isnan(b));
}

void ExpectSame(const std::vector<float>& cpu, const std::vector<float>& body,
                const std::string& what) {
  ASSERT_EQ(cpu.size(), body.size()) << what;
  for (size_t i = 0; i < cpu.size(); ++i) {
    EXPECT_TRUE(SameBits(cpu[i], body[i]))
        << what << " element " << i << ": CPU " << cpu[i] << ", body " << body[i];
  }
}

// Values with NaN, +-0 and +-Inf among few distinct numbers (ties between inputs).
Tensor Mixed(const std::vector<int64_t>& dims, uint32_t seed) {
  std::mt19937 gen(seed);
  const float pool[] = {kNaN, 0.0f, -0.0f, INFINITY, -INFINITY, 1.0f, -1.0f, 2.5f, 0.5f};
  Tensor t(DataType::kFloat, dims);
  float* data = t.mutable_data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    data[i] = gen() % 3 == 0 ? pool[gen() % 9] : static_cast<float>(gen() % 5) - 2.0f;
  }
  return t;
}

struct Inputs {
  std::vector<std::string> names;
  std::map<std::string, Tensor> tensors;
  std::vector<const float*> pointers;
  std::vector<std::vector<int64_t>> dims;
};

Inputs MakeInputs(const std::vector<std::vector<int64_t>>& shapes, uint32_t seed, bool mixed) {
  Inputs in;
  for (size_t i = 0; i < shapes.size(); ++i) {
    in.names.push_back("x" + std::to_string(i));
    const uint32_t s = seed + static_cast<uint32_t>(i);
    in.tensors[in.names.back()] = mixed ? Mixed(shapes[i], s) : RandomTensor(shapes[i], s);
  }
  for (const std::string& name : in.names) {  // in input order (the map's is by name)
    in.pointers.push_back(in.tensors.at(name).data<float>());
    in.dims.push_back(in.tensors.at(name).dims());
  }
  return in;
}

// The input shape sets: same shapes, numpy broadcasts, and more inputs than one launch takes.
std::vector<std::vector<std::vector<int64_t>>> ShapeSets() {
  std::vector<std::vector<std::vector<int64_t>>> sets = {
      {{2, 3, 4}},
      {{2, 3, 4}, {2, 3, 4}},
      {{2, 3, 4}, {3, 1}, {4}},
      {{3, 1}, {1, 5}},
      {{2, 1, 4}, {1, 3, 1}, {2, 3, 4}, {}},
      {{6}, {1}, {6}, {6}},
  };
  for (int n : {7, 8, 9, 15, 16, 17}) {
    std::vector<std::vector<int64_t>> many;
    for (int i = 0; i < n; ++i)
      many.push_back(i % 3 == 1 ? std::vector<int64_t>{5} : std::vector<int64_t>{2, 5});
    sets.push_back(many);
  }
  return sets;
}

TEST(VariadicBody, MaxMinMatchTheCpuEngine) {
  uint32_t seed = 1;
  for (const auto& shapes : ShapeSets()) {
    for (bool mixed : {false, true}) {
      seed += 50;
      Inputs in = MakeInputs(shapes, seed, mixed);
      for (const char* type : {"Max", "Min"}) {
        auto ws = RunOp(MakeOp(type, in.names, {"y"}), in.tensors);
        const Tensor& expected = ws->GetBlob("y")->GetTensor();
        const std::vector<int64_t> out = expected.dims();
        std::vector<float> y(static_cast<size_t>(expected.numel()), -12345.0f);
        int launches = 0;
        k::ForEachVariadicChunk(
            static_cast<int>(shapes.size()), y.data(),
            [&](int first, int n) {
              return k::MakeVariadicInputs(out, in.pointers, in.dims, first, n);
            },
            [&](const k::VariadicInputs& chunk) {
              ++launches;
              k::RunBodyOnHost(expected.numel(), [&](int64_t i) {
                k::ExtremumBody(std::string(type) == "Max", chunk, y.data(), i);
              });
            });
        EXPECT_EQ(launches, shapes.size() <= 8 ? 1 : 1 + (static_cast<int>(shapes.size()) - 2) / 7);
        ExpectSame(Values<float>(expected), y,
                   std::string(type) + " of " + std::to_string(shapes.size()) + " inputs");
      }
    }
  }
}

TEST(VariadicBody, ExtremumNanRule) {
  for (bool packet : {false, true}) {
    EXPECT_TRUE(std::isnan(k::ExtremumNaN(true, packet, kNaN, 1.0f)));
    EXPECT_TRUE(std::isnan(k::ExtremumNaN(true, packet, 1.0f, kNaN)));
    EXPECT_TRUE(std::isnan(k::ExtremumNaN(false, packet, 1.0f, kNaN)));
    EXPECT_EQ(k::ExtremumNaN(true, packet, 1.0f, 2.0f), 2.0f);
    EXPECT_EQ(k::ExtremumNaN(false, packet, 1.0f, 2.0f), 1.0f);
  }
  // A tie of zeros: the scalar path keeps a, the packet path takes b.
  EXPECT_FALSE(std::signbit(k::ExtremumNaN(true, false, 0.0f, -0.0f)));
  EXPECT_TRUE(std::signbit(k::ExtremumNaN(true, true, 0.0f, -0.0f)));
  EXPECT_TRUE(std::signbit(k::ExtremumNaN(false, false, -0.0f, 0.0f)));
  EXPECT_FALSE(std::signbit(k::ExtremumNaN(false, true, -0.0f, 0.0f)));
}

// Max / Min of +0 and -0 everywhere: the sign of each output zero tells whether the CPU computed
// it in a packet (b's) or alone (a's), so this pins the block and alignment model exactly.
TEST(VariadicBody, ZeroTiesFollowTheCpuPackets) {
  const std::vector<std::vector<std::vector<int64_t>>> sets = {
      {{1}, {1}},         {{3}, {3}},
      {{5}, {5}},         {{17}, {17}},
      {{3, 5}, {5}},      {{3, 5}, {3, 1}},
      {{3, 1}, {1, 7}},   {{2, 3, 6}, {3, 1}},
      {{6}, {2, 6}, {6}}, {{2, 1, 9}, {9}, {2, 3, 1}},
  };
  for (const auto& shapes : sets) {
    for (int flip = 0; flip < 2; ++flip) {
      Inputs in;
      for (size_t i = 0; i < shapes.size(); ++i) {
        in.names.push_back("x" + std::to_string(i));
        Tensor t(DataType::kFloat, shapes[i]);
        for (int64_t e = 0; e < t.numel(); ++e) {
          t.mutable_data<float>()[e] = (i + flip) % 2 == 0 ? 0.0f : -0.0f;
        }
        in.tensors[in.names.back()] = t;
      }
      for (const std::string& name : in.names) {
        in.pointers.push_back(in.tensors.at(name).data<float>());
        in.dims.push_back(in.tensors.at(name).dims());
      }
      for (const char* type : {"Max", "Min"}) {
        auto ws = RunOp(MakeOp(type, in.names, {"y"}), in.tensors);
        const Tensor& expected = ws->GetBlob("y")->GetTensor();
        std::vector<float> y(static_cast<size_t>(expected.numel()));
        const k::VariadicInputs chunk = k::MakeVariadicInputs(expected.dims(), in.pointers, in.dims,
                                                              0, static_cast<int>(shapes.size()));
        k::RunBodyOnHost(expected.numel(), [&](int64_t i) {
          k::ExtremumBody(std::string(type) == "Max", chunk, y.data(), i);
        });
        ExpectSame(Values<float>(expected), y,
                   std::string(type) + " of zeros, first shape " + ShapeString(shapes[0]));
      }
    }
  }
}

TEST(VariadicBody, MeanMatchesTheCpuEngineBitForBit) {
  uint32_t seed = 300;
  for (int n = 1; n <= 17; ++n) {
    std::vector<std::vector<int64_t>> shapes(n, std::vector<int64_t>{3, 7});
    Inputs in = MakeInputs(shapes, seed += 40, false);
    auto ws = RunOp(MakeOp("Mean", in.names, {"y"}), in.tensors);
    std::vector<float> y(21, -12345.0f);
    k::ForEachSumChunk(in.pointers.data(), n, y.data(), [&](const k::SumInputs& chunk) {
      k::RunBodyOnHost(21, [&](int64_t i) { k::SumBody(chunk, y.data(), i); });
    });
    const float scale = static_cast<float>(1.0 / n);
    k::RunBodyOnHost(21, [&](int64_t i) { k::ScaleBody(y.data(), y.data(), scale, i); });
    ExpectSame(Values<float>(ws->GetBlob("y")->GetTensor()), y,
               "Mean of " + std::to_string(n) + " inputs");
  }
}

TEST(VariadicBody, MeanGradientMatchesTheCpuEngineBitForBit) {
  for (int n = 1; n <= 9; ++n) {
    const Tensor dy = Mixed({4, 5}, static_cast<uint32_t>(n));
    std::vector<std::string> outs;
    for (int i = 0; i < n; ++i) outs.push_back("dx" + std::to_string(i));
    auto ws = RunOp(MakeOp("MeanGradient", {"dy"}, outs), {{"dy", dy}});
    const float scale = static_cast<float>(1.0 / n);
    std::vector<float> body(20);
    k::RunBodyOnHost(20, [&](int64_t i) { k::ScaleBody(dy.data<float>(), body.data(), scale, i); });
    for (const std::string& out : outs) {
      ExpectSame(Values<float>(ws->GetBlob(out)->GetTensor()), body, "MeanGradient " + out);
    }
  }
}

// (Y, dY, X0, ..., Xn-1) -> dX0, ..., with Y from the CPU's forward op and dY with Inf / NaN.
TEST(VariadicBody, MaxMinGradientsMatchTheCpuEngineBitForBit) {
  uint32_t seed = 700;
  int summed = 0;  // dX elements summing several copies (the broadcast cases ran)
  for (const auto& shapes : ShapeSets()) {
    for (int variant = 0; variant < 3; ++variant) {
      seed += 50;
      Inputs in = MakeInputs(shapes, seed, variant > 0);
      for (const char* type : {"Max", "Min"}) {
        auto fwd = RunOp(MakeOp(type, in.names, {"y"}), in.tensors);
        const Tensor y = fwd->GetBlob("y")->GetTensor();
        const Tensor dy =
            variant == 2 ? Mixed(y.dims(), seed + 7) : RandomTensor(y.dims(), seed + 7);
        std::vector<std::string> names = {"y", "dy"}, outs;
        std::map<std::string, Tensor> tensors = in.tensors;
        tensors["y"] = y;
        tensors["dy"] = dy;
        for (size_t i = 0; i < shapes.size(); ++i) {
          names.push_back(in.names[i]);
          outs.push_back("d" + in.names[i]);
        }
        auto ws = RunOp(MakeOp(std::string(type) + "Gradient", names, outs), tensors);
        const std::vector<int64_t> out = y.dims();
        std::vector<int32_t> winner(static_cast<size_t>(y.numel()), 99);
        const int count = static_cast<int>(shapes.size());
        for (int first = 0; first < count; first += k::kMaxVariadicInputs) {
          const int n = std::min(k::kMaxVariadicInputs, count - first);
          const k::VariadicInputs chunk =
              k::MakeVariadicInputs(out, in.pointers, in.dims, first, n);
          k::RunBodyOnHost(y.numel(), [&](int64_t i) {
            k::ExtremumWinnerBody(chunk, first, y.data<float>(), winner.data(), i);
          });
        }
        for (int i = 0; i < count; ++i) {
          int64_t copies = 0;
          const k::ReduceGeometry g = gpu::BroadcastReduceGeometryOf("t", out, in.dims[i], &copies);
          const int64_t block = k::ExtremumGradientBlock(out, in.dims[i]);
          const Tensor& expected = ws->GetBlob(outs[i])->GetTensor();
          std::vector<float> dx(static_cast<size_t>(expected.numel()), -12345.0f);
          k::RunBodyOnHost(expected.numel(), [&](int64_t e) {
            k::ExtremumGradientBody(winner.data(), i, dy.data<float>(), dx.data(), copies, block, g,
                                    e);
          });
          if (copies > 1) summed += static_cast<int>(dx.size());
          ExpectSame(Values<float>(expected), dx,
                     std::string(type) + "Gradient " + outs[i] + " of " + std::to_string(count) +
                         " inputs, variant " + std::to_string(variant));
        }
      }
    }
  }
  EXPECT_GT(summed, 0);
}

TEST(VariadicBody, GradientBlocks) {
  // X [3, 1] under Y [2, 3, 4]: constant along Y's innermost 4 (a scalar-mode block of 4).
  EXPECT_EQ(k::ExtremumGradientBlock({2, 3, 4}, {3, 1}), 4);
  // X [4]: varies along it (serial sums).
  EXPECT_EQ(k::ExtremumGradientBlock({2, 3, 4}, {4}), 1);
  // X [] (a scalar): one block of everything; a size-1 dim of Y is skipped.
  EXPECT_EQ(k::ExtremumGradientBlock({2, 1, 3}, {}), 6);
  EXPECT_EQ(k::ExtremumGradientBlock({2, 3, 1}, {2, 1, 1}), 3);
}

}  // namespace
}  // namespace parity::testing

// Intra-op parallelism (core/parallel.h): every op split across threads gives the same bits on 1,
// 2 and 3 threads for inputs above the threshold, and the values a plain loop gives. Sizes are odd
// on purpose (chunks and Eigen's packets leave tails), and one case writes to a view at an
// unaligned offset.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/operator.h"
#include "core/ops/common/elementwise.h"
#include "core/parallel.h"
#include "core/threads.h"
#include "tests/test_util.h"

namespace parity {
namespace {

using testing::Ints;
using testing::MakeOp;
using testing::RandomTensor;
using testing::TestArg;

// Sets the calling thread's compute threads for a scope.
class ThreadsScope {
 public:
  explicit ThreadsScope(int threads) : previous_(ComputeThreads()) { SetComputeThreads(threads); }
  ~ThreadsScope() { SetComputeThreads(previous_); }

 private:
  int previous_;
};

// Every output of `def` run once on `threads` threads.
std::vector<Tensor> RunAt(const caffe2::OperatorDef& def,
                          const std::map<std::string, Tensor>& inputs, int threads) {
  ThreadsScope scope(threads);
  std::unique_ptr<Workspace> ws = testing::RunOp(def, inputs);
  std::vector<Tensor> outputs;
  for (const std::string& name : def.output()) {
    Tensor copy;
    copy.CopyFrom(ws->GetBlob(name)->GetTensor());
    outputs.push_back(std::move(copy));
  }
  return outputs;
}

bool SameBits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.dims() == b.dims() && a.nbytes() == b.nbytes() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

// Runs `def` on 1, 2 and 3 threads, expects bit-identical outputs, returns the 1-thread ones.
std::vector<Tensor> ExpectSameBitsAcrossThreads(const caffe2::OperatorDef& def,
                                                const std::map<std::string, Tensor>& inputs) {
  std::vector<Tensor> one = RunAt(def, inputs, 1);
  for (int threads : {2, 3}) {
    std::vector<Tensor> many = RunAt(def, inputs, threads);
    EXPECT_EQ(one.size(), many.size());
    for (size_t i = 0; i < one.size() && i < many.size(); ++i) {
      EXPECT_TRUE(SameBits(one[i], many[i]))
          << def.type() << " output " << i << " differs between 1 and " << threads << " threads";
    }
  }
  return one;
}

constexpr int64_t kBig = 300001;  // above 2 x kParallelMinWork, not a multiple of 16

TEST(ParallelForTest, SmallRangesRunInlineAndLargeOnesSplitIntoCoveringChunks) {
  ThreadsScope scope(2);
  std::mutex mutex;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  auto record = [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(mutex);
    chunks.emplace_back(b, e);
  };
  ParallelFor(5, 5 + 2 * 1000 - 1, 1000, record);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0], std::make_pair(int64_t{5}, int64_t{5 + 1999}));
  chunks.clear();
  ParallelFor(5, 5 + 10000, 1000, record);
  ASSERT_GE(chunks.size(), 2u);
  EXPECT_LE(chunks.size(), 8u);  // at most 4 per thread
  std::sort(chunks.begin(), chunks.end());
  EXPECT_EQ(chunks.front().first, 5);
  for (size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_GE(chunks[i].second - chunks[i].first, 1000) << "chunk " << i;
    if (i > 0) EXPECT_EQ(chunks[i - 1].second, chunks[i].first);
  }
  EXPECT_EQ(chunks.back().second, 5 + 10000);
  chunks.clear();
  {
    ThreadsScope one(1);
    ParallelFor(0, 10000, 1000, record);
    EXPECT_EQ(chunks.size(), 1u);
  }
}

TEST(ParallelForTest, NestedCallsRunInlineAndEveryItemRunsOnce) {
  ThreadsScope scope(3);
  std::vector<std::atomic<int>> hits(200000);
  ParallelFor(0, 200, 10, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      ParallelFor(i * 1000, (i + 1) * 1000, 10, [&](int64_t ib, int64_t ie) {
        for (int64_t j = ib; j < ie; ++j) hits[j].fetch_add(1);
      });
    }
  });
  for (size_t j = 0; j < hits.size(); ++j) ASSERT_EQ(hits[j].load(), 1) << j;
}

TEST(ParallelForTest, AChunkThatThrowsRethrowsOnTheCallingThread) {
  ThreadsScope scope(2);
  EXPECT_THROW(ParallelFor(0, 100, 10,
                           [](int64_t b, int64_t) {
                             if (b > 0) throw std::runtime_error("chunk");
                           }),
               std::runtime_error);
}

// Chunks start at element multiples of 64 bytes from element 0, wherever the output lies: the
// kernels start their packets at a chunk's first element (eigen_maps.h's AssignIndexAligned), so
// any thread count computes each element as one thread does, on a view at an offset too.
TEST(ParallelForTest, ElementwiseChunksStartOn64BytesWorthOfElementsFromTheFirst) {
  ThreadsScope scope(2);
  std::vector<float> buffer(kBig + 64);
  for (int offset : {0, 1, 5}) {
    const float* out = buffer.data() + offset;
    std::mutex mutex;
    std::vector<std::pair<int64_t, int64_t>> chunks;
    elementwise::ParallelElementwise(out, kBig, 1, [&](int64_t b, int64_t e) {
      std::lock_guard<std::mutex> lock(mutex);
      chunks.emplace_back(b, e);
    });
    std::sort(chunks.begin(), chunks.end());
    ASSERT_GE(chunks.size(), 2u) << "offset " << offset;
    EXPECT_EQ(chunks.front().first, 0);
    EXPECT_EQ(chunks.back().second, kBig);
    for (size_t i = 1; i < chunks.size(); ++i) {
      EXPECT_EQ(chunks[i - 1].second, chunks[i].first);
      EXPECT_EQ(chunks[i].first % static_cast<int64_t>(64 / sizeof(float)), 0)
          << "offset " << offset;
    }
  }
}

TEST(ParallelOpsTest, UnaryOpsAreBitIdenticalAcrossThreadsAndMatchALoop) {
  const Tensor x = RandomTensor({kBig}, 1, -6.0f, 6.0f);
  const Tensor positive = RandomTensor({kBig}, 2, 0.01f, 8.0f);
  struct Case {
    const char* type;
    double (*f)(double);
    bool positive;
  };
  const Case cases[] = {
      {"Relu", [](double v) { return v > 0 ? v : 0.0; }, false},
      {"Sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }, false},
      {"Tanh", [](double v) { return std::tanh(v); }, false},
      {"Exp", [](double v) { return std::exp(v); }, false},
      {"Log", [](double v) { return std::log(v); }, true},
      {"Sqrt", [](double v) { return std::sqrt(v); }, true},
      {"Sin", [](double v) { return std::sin(v); }, false},
      {"Erf", [](double v) { return std::erf(v); }, false},
  };
  for (const Case& c : cases) {
    const Tensor& in = c.positive ? positive : x;
    std::vector<Tensor> out =
        ExpectSameBitsAcrossThreads(MakeOp(c.type, {"x"}, {"y"}), {{"x", in}});
    const float* y = out[0].data<float>();
    const float* px = in.data<float>();
    for (int64_t i = 0; i < kBig; i += 97) {
      const double want = c.f(px[i]);
      ASSERT_NEAR(y[i], want, 1e-6 + 1e-5 * std::abs(want)) << c.type << " element " << i;
    }
  }
}

TEST(ParallelOpsTest, UnaryIntoAnUnalignedViewIsBitIdenticalAcrossThreads) {
  // The output is a view one float into a buffer: its 64-byte boundaries are not the element
  // indices' multiples of 16, so the split must follow addresses for Eigen to peel alike.
  const Tensor x = RandomTensor({kBig}, 3, -6.0f, 6.0f);
  for (const char* type : {"Tanh", "Exp", "Sigmoid"}) {
    std::vector<std::vector<float>> results;
    for (int threads : {1, 2, 3}) {
      ThreadsScope scope(threads);
      Workspace ws;
      ws.CreateTensor("x")->CopyFrom(x);
      Tensor storage;
      storage.Resize({kBig + 1});
      storage.mutable_data<float>();
      *ws.CreateTensor("y") = storage.View(1, {kBig});
      std::unique_ptr<Operator> op = CreateOperator(MakeOp(type, {"x"}, {"y"}), &ws);
      op->Run();
      const Tensor& y = ws.GetBlob("y")->GetTensor();
      ASSERT_TRUE(y.SharesStorageWith(storage)) << type << ": the op did not write the view";
      results.emplace_back(y.data<float>(), y.data<float>() + kBig);
    }
    EXPECT_EQ(std::memcmp(results[0].data(), results[1].data(), kBig * sizeof(float)), 0) << type;
    EXPECT_EQ(std::memcmp(results[0].data(), results[2].data(), kBig * sizeof(float)), 0) << type;
  }
}

TEST(ParallelOpsTest, BinaryOpsSameShapeAndBroadcastAreBitIdenticalAndExact) {
  const Tensor a = RandomTensor({kBig}, 4, -5.0f, 5.0f);
  const Tensor b = RandomTensor({kBig}, 5, 0.5f, 5.0f);
  for (const char* type : {"Add", "Sub", "Mul", "Div", "Pow", "LT"}) {
    std::vector<Tensor> out =
        ExpectSameBitsAcrossThreads(MakeOp(type, {"a", "b"}, {"c"}), {{"a", b}, {"b", a}});
    if (std::string(type) == "Add") {
      for (int64_t i = 0; i < kBig; ++i) {
        ASSERT_EQ(out[0].data<float>()[i], b.data<float>()[i] + a.data<float>()[i]) << i;
      }
    }
    if (std::string(type) == "LT") {
      for (int64_t i = 0; i < kBig; ++i) {
        ASSERT_EQ(out[0].data<bool>()[i], b.data<float>()[i] < a.data<float>()[i]) << i;
      }
    }
  }
  // Broadcasts: [29, 1, 1031] * [23, 1] (pieces of blocks of 1031), and a row over a matrix.
  const Tensor p = RandomTensor({29, 1, 1031}, 6);
  const Tensor q = RandomTensor({23, 1}, 7);
  std::vector<Tensor> out =
      ExpectSameBitsAcrossThreads(MakeOp("Mul", {"p", "q"}, {"r"}), {{"p", p}, {"q", q}});
  ASSERT_EQ(out[0].dims(), (Ints{29, 23, 1031}));
  for (int64_t i = 0; i < 29; ++i) {
    for (int64_t j = 0; j < 23; ++j) {
      for (int64_t k = 0; k < 1031; ++k) {
        ASSERT_EQ(out[0].data<float>()[(i * 23 + j) * 1031 + k],
                  p.data<float>()[i * 1031 + k] * q.data<float>()[j]);
      }
    }
  }
  const Tensor m = RandomTensor({517, 301}, 8);
  const Tensor row = RandomTensor({301}, 9);
  ExpectSameBitsAcrossThreads(MakeOp("Sub", {"m", "row"}, {"r"}), {{"m", m}, {"row", row}});
  const Tensor column = RandomTensor({517, 1}, 10);
  ExpectSameBitsAcrossThreads(MakeOp("Max", {"m", "column", "row"}, {"r"}),
                              {{"m", m}, {"column", column}, {"row", row}});
  ExpectSameBitsAcrossThreads(MakeOp("Sum", {"a", "b", "a"}, {"r"}), {{"a", a}, {"b", b}});
  ExpectSameBitsAcrossThreads(MakeOp("Mean", {"a", "b"}, {"r"}), {{"a", a}, {"b", b}});
  ExpectSameBitsAcrossThreads(MakeOp("Pow", {"b"}, {"r"}, {{"exponent", 1.5f}}), {{"b", b}});
  // Integers wrap alike on every thread.
  std::vector<int32_t> ints(kBig);
  for (int64_t i = 0; i < kBig; ++i) ints[i] = static_cast<int32_t>(i * 2654435761u);
  const Tensor n = testing::MakeTensor<int32_t>({kBig}, ints);
  out = ExpectSameBitsAcrossThreads(MakeOp("Mul", {"n", "n"}, {"r"}), {{"n", n}});
  for (int64_t i = 0; i < kBig; i += 101) {
    ASSERT_EQ(out[0].data<int32_t>()[i],
              static_cast<int32_t>(static_cast<uint32_t>(ints[i]) * static_cast<uint32_t>(ints[i])));
  }
}

TEST(ParallelOpsTest, ReductionsSplitKeptDimsOnlyAndAreBitIdentical) {
  const Tensor rows = RandomTensor({301, 1003}, 11);
  const Tensor tall = RandomTensor({3, 200003}, 12);
  const Tensor cube = RandomTensor({5, 300, 401}, 13);
  struct Case {
    const char* type;
    const Tensor* x;
    Ints axes;
  };
  const Case cases[] = {
      {"ReduceSum", &rows, {1}},          // rows split
      {"ReduceMean", &rows, {0}},         // few rows of the output: columns split
      {"ReduceMean", &tall, {0}},         // one output row of 200003 columns
      {"ReduceMax", &cube, {0, 2}},       // two passes
      {"ReduceMin", &cube, {1}},          // accumulated rows
      {"ReduceSum", &cube, {0}},
  };
  for (const Case& c : cases) {
    std::vector<Tensor> out = ExpectSameBitsAcrossThreads(
        MakeOp(c.type, {"x"}, {"y"}, {{"axes", c.axes}, {"keepdims", 0}}), {{"x", *c.x}});
    EXPECT_GT(out[0].numel(), 0);
  }
  // ReduceSum over rows against a double loop.
  std::vector<Tensor> out = RunAt(MakeOp("ReduceSum", {"x"}, {"y"}, {{"axes", Ints{1}}}),
                                  {{"x", rows}}, 2);
  for (int64_t i = 0; i < 301; ++i) {
    double sum = 0;
    for (int64_t j = 0; j < 1003; ++j) sum += rows.data<float>()[i * 1003 + j];
    ASSERT_NEAR(out[0].data<float>()[i], sum, 1e-3) << "row " << i;
  }
  // ReduceMean down the columns of `tall` against a double loop.
  out = RunAt(MakeOp("ReduceMean", {"x"}, {"y"}, {{"axes", Ints{0}}}), {{"x", tall}}, 2);
  for (int64_t j = 0; j < 200003; j += 37) {
    double sum = 0;
    for (int64_t i = 0; i < 3; ++i) sum += tall.data<float>()[i * 200003 + j];
    ASSERT_NEAR(out[0].data<float>()[j], sum / 3, 1e-6) << "column " << j;
  }
}

TEST(ParallelOpsTest, SoftmaxLayerNormSpatialBNAndGatherAreBitIdenticalAndRight) {
  const Tensor x = RandomTensor({300, 1001}, 14, -4.0f, 4.0f);
  std::vector<Tensor> out = ExpectSameBitsAcrossThreads(MakeOp("Softmax", {"x"}, {"y"}), {{"x", x}});
  for (int64_t i = 0; i < 300; i += 7) {
    double max = -1e30, sum = 0;
    for (int64_t j = 0; j < 1001; ++j) max = std::max<double>(max, x.data<float>()[i * 1001 + j]);
    for (int64_t j = 0; j < 1001; ++j) sum += std::exp(x.data<float>()[i * 1001 + j] - max);
    for (int64_t j = 0; j < 1001; j += 13) {
      const double want = std::exp(x.data<float>()[i * 1001 + j] - max) / sum;
      ASSERT_NEAR(out[0].data<float>()[i * 1001 + j], want, 1e-6 * want + 1e-9);
    }
  }

  const Tensor gamma = RandomTensor({1001}, 15);
  const Tensor beta = RandomTensor({1001}, 16);
  out = ExpectSameBitsAcrossThreads(
      MakeOp("LayerNorm", {"x", "gamma", "beta"}, {"y", "mean", "std"},
             {{"elementwise_affine", 1}}),
      {{"x", x}, {"gamma", gamma}, {"beta", beta}});
  for (int64_t i = 0; i < 300; i += 11) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < 1001; ++j) mean += x.data<float>()[i * 1001 + j];
    mean /= 1001;
    for (int64_t j = 0; j < 1001; ++j) var += std::pow(x.data<float>()[i * 1001 + j] - mean, 2);
    var /= 1001;
    const double sd = std::sqrt(var + 1e-5);
    ASSERT_NEAR(out[1].data<float>()[i], mean, 1e-5);
    ASSERT_NEAR(out[2].data<float>()[i], sd, 1e-5);
    for (int64_t j = 0; j < 1001; j += 17) {
      const double want = (x.data<float>()[i * 1001 + j] - mean) / sd * gamma.data<float>()[j] +
                          beta.data<float>()[j];
      ASSERT_NEAR(out[0].data<float>()[i * 1001 + j], want, 1e-4);
    }
  }

  // SpatialBN, test and training, NCHW and NHWC: the normalization is split.
  const Tensor image = RandomTensor({4, 32, 33, 37}, 17);
  const Tensor scale = RandomTensor({32}, 18, 0.5f, 2.0f);
  const Tensor bias = RandomTensor({32}, 19);
  const Tensor mean = RandomTensor({32}, 20);
  const Tensor var = RandomTensor({32}, 21, 0.5f, 2.0f);
  const Tensor nhwc_scale = RandomTensor({37}, 22, 0.5f, 2.0f);
  const Tensor nhwc_bias = RandomTensor({37}, 23);
  const Tensor nhwc_mean = RandomTensor({37}, 24);
  const Tensor nhwc_var = RandomTensor({37}, 25, 0.5f, 2.0f);
  ExpectSameBitsAcrossThreads(
      MakeOp("SpatialBN", {"x", "s", "b", "m", "v"}, {"y"}, {{"is_test", 1}}),
      {{"x", image}, {"s", scale}, {"b", bias}, {"m", mean}, {"v", var}});
  ExpectSameBitsAcrossThreads(
      MakeOp("SpatialBN", {"x", "s", "b", "m", "v"}, {"y", "m", "v", "sm", "sv"}),
      {{"x", image}, {"s", scale}, {"b", bias}, {"m", mean}, {"v", var}});
  ExpectSameBitsAcrossThreads(
      MakeOp("SpatialBN", {"x", "s", "b", "m", "v"}, {"y"}, {{"is_test", 1}, {"order", "NHWC"}}),
      {{"x", image}, {"s", nhwc_scale}, {"b", nhwc_bias}, {"m", nhwc_mean}, {"v", nhwc_var}});

  // Gather on axis 0 (negative indices wrap) and axis 1.
  const Tensor table = RandomTensor({5000, 67}, 26);
  std::vector<int64_t> picks(4001);
  for (size_t i = 0; i < picks.size(); ++i) picks[i] = static_cast<int64_t>((i * 7919) % 5000) - 2500;
  const Tensor indices = testing::MakeTensor<int64_t>({4001}, picks);
  out = ExpectSameBitsAcrossThreads(MakeOp("Gather", {"t", "i"}, {"y"}),
                                    {{"t", table}, {"i", indices}});
  for (int64_t i = 0; i < 4001; ++i) {
    const int64_t r = picks[i] < 0 ? picks[i] + 5000 : picks[i];
    ASSERT_EQ(std::memcmp(out[0].data<float>() + i * 67, table.data<float>() + r * 67,
                          67 * sizeof(float)),
              0)
        << "index " << i;
  }
  std::vector<int32_t> columns(2000);
  for (size_t i = 0; i < columns.size(); ++i) columns[i] = static_cast<int32_t>((i * 31) % 67);
  out = ExpectSameBitsAcrossThreads(
      MakeOp("Gather", {"t", "i"}, {"y"}, {{"axis", 1}}),
      {{"t", table}, {"i", testing::MakeTensor<int32_t>({2000}, columns)}});
  for (int64_t r = 0; r < 5000; r += 97) {
    for (int64_t i = 0; i < 2000; ++i) {
      ASSERT_EQ(out[0].data<float>()[r * 2000 + i], table.data<float>()[r * 67 + columns[i]]);
    }
  }
}

// Gather checks each index inside its parallel copy; an index out of range in any chunk, on any
// thread count, is the same error naming the first bad position (found by the serial walk after
// the copy stops), also with several outer slices (axis 1) and without wrapping.
TEST(ParallelOpsTest, GatherNamesTheFirstIndexOutOfRangeOnEveryThreadCount) {
  const Tensor table = RandomTensor({5000, 67}, 28);
  for (const int threads : {1, 2, 3}) {
    std::vector<int64_t> picks(4001);
    for (size_t i = 0; i < picks.size(); ++i) picks[i] = static_cast<int64_t>((i * 13) % 5000);
    picks[3999] = 5000;  // in the last chunk
    picks[4000] = -5001;
    testing::ExpectError([&] { RunAt(MakeOp("Gather", {"t", "i"}, {"y"}),
                            {{"t", table}, {"i", testing::MakeTensor<int64_t>({4001}, picks)}},
                            threads); },
                ErrorKind::kBadArgument, {"Gather", "index 5000", "position 3999", "[-5000, 5000)"});
    picks[3999] = 7;
    picks[2] = -1;  // wraps on axis 0; not on axis 1 (Caffe2's default), below
    picks[4000] = 4999;
    const Tensor good = RunAt(MakeOp("Gather", {"t", "i"}, {"y"}),
                              {{"t", table}, {"i", testing::MakeTensor<int64_t>({4001}, picks)}},
                              threads)[0];
    ASSERT_EQ(std::memcmp(good.data<float>() + 2 * 67, table.data<float>() + 4999 * 67,
                          67 * sizeof(float)),
              0);
    std::vector<int32_t> columns(2000, 3);
    columns[1500] = -1;
    testing::ExpectError([&] { RunAt(MakeOp("Gather", {"t", "i"}, {"y"}, {{"axis", 1}}),
                            {{"t", table}, {"i", testing::MakeTensor<int32_t>({2000}, columns)}},
                            threads); },
                ErrorKind::kBadArgument, {"Gather", "index -1", "position 1500", "[0, 67)"});
  }
}

// Pools split planes (N x C): each plane's windows, and each plane's gradient accumulation, run on
// one thread in output order. 3 x 7 planes of 37 x 41 (a 3 x 3 window's plane is ~13.7K taps, so
// chunks of 3 planes). MaxPool and AveragePool checked against a plain loop over the window.
TEST(ParallelOpsTest, PoolsAndTheirGradientsAreBitIdenticalAndRight) {
  const int64_t planes = 21, H = 37, W = 41;
  const Tensor x = RandomTensor({3, 7, H, W}, 27);
  const Tensor dy = RandomTensor({3, 7, H, W}, 28);
  const std::vector<TestArg> geometry = {{"kernel", 3}, {"pad", 1}, {"stride", 1}};
  for (const char* type : {"MaxPool", "AveragePool"}) {
    for (int count_include_pad : {0, 1}) {
      std::vector<TestArg> args = geometry;
      if (std::string(type) == "AveragePool") args.emplace_back("count_include_pad", count_include_pad);
      const std::vector<Tensor> y =
          ExpectSameBitsAcrossThreads(MakeOp(type, {"x"}, {"y"}, args), {{"x", x}});
      for (int64_t p = 0; p < planes; p += 4) {
        for (int64_t h = 0; h < H; h += 5) {
          for (int64_t w = 0; w < W; w += 3) {
            double max = -1e30, sum = 0;
            int64_t taps = 0;
            for (int64_t i = std::max<int64_t>(h - 1, 0); i <= std::min(h + 1, H - 1); ++i) {
              for (int64_t j = std::max<int64_t>(w - 1, 0); j <= std::min(w + 1, W - 1); ++j) {
                const double v = x.data<float>()[(p * H + i) * W + j];
                max = std::max(max, v);
                sum += v;
                ++taps;
              }
            }
            const float got = y[0].data<float>()[(p * H + h) * W + w];
            if (std::string(type) == "MaxPool") {
              ASSERT_EQ(got, static_cast<float>(max)) << "plane " << p << " at " << h << ", " << w;
            } else {
              ASSERT_NEAR(got, sum / (count_include_pad ? 9 : taps), 1e-6);
            }
          }
        }
      }
      ExpectSameBitsAcrossThreads(
          MakeOp(std::string(type) + "Gradient", {"x", "y", "dy"}, {"dx"}, args),
          {{"x", x}, {"y", y[0]}, {"dy", dy}});
      if (std::string(type) == "MaxPool") break;
    }
  }
}

}  // namespace
}  // namespace parity

// The seam, end to end: a backend registered from test code (swapped_backend.cc) is used by
// `parity run`, `parity check --engine`, the campaign (`parity fuzz --engine`) and `parity repro`
// without any change to those commands; an unknown backend name is bad input that lists the
// registered names.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/io.h"
#include "core/tensor_proto.h"
#include "tests/cli/cli_util.h"
#include "tests/test_util.h"

namespace parity::seam {
namespace {

using testing::Contains;
using Result = testing::CliResult;

std::string Tmp() { return testing::TestTmp(); }
Result Parity(const std::string& args) {
  return testing::RunCli("tests/seam/parity_with_test_backends", args);
}

// y = Relu(x) on inputs with negative entries: the leaky kernel differs there.
std::string ReluNet() {
  const std::string path = Tmp() + "/relu.pbtxt";
  WriteFileAtomic(path, R"(name: "relu"
op { type: "Relu" input: "x" output: "y" }
external_input: "x"
external_output: "y"
)");
  return path;
}

std::string ReluInput() {
  const std::string path = Tmp() + "/x.pbtxt";
  SaveTensors(path, {TensorToProto(testing::MakeTensor<float>({2, 3}, {0.5f, -1.0f, 2.0f, -1.5f,
                                                                          0.25f, -0.75f}),
                                   "x")});
  return path;
}

TEST(BackendSeam, RunUsesTheNamedBackend) {
  const std::string args = "run " + ReluNet() + " --input " + ReluInput();
  Result production = Parity(args);
  EXPECT_EQ(production.exit_code, 0) << production.output;
  EXPECT_FALSE(Contains(production.output, "-0.1")) << production.output;
  Result swapped = Parity(args + " --engine production-swapped-relu");
  EXPECT_EQ(swapped.exit_code, 0) << swapped.output;
  EXPECT_TRUE(Contains(swapped.output, "-0.1")) << swapped.output;  // 0.1 * -1.0
}

TEST(BackendSeam, CheckFindsTheSwappedKernelAndBlamesIt) {
  const std::string args = "check " + ReluNet() + " --input " + ReluInput();
  Result clean = Parity(args);
  EXPECT_EQ(clean.exit_code, 0) << clean.output;
  Result swapped = Parity(args + " --engine production-swapped-relu --oracle forward");
  EXPECT_EQ(swapped.exit_code, 1) << swapped.output;
  EXPECT_TRUE(Contains(swapped.output, "value mismatch")) << swapped.output;
  EXPECT_TRUE(Contains(swapped.output, "blamed op #0 (Relu)")) << swapped.output;
  EXPECT_TRUE(Contains(swapped.output, "backend under test: production-swapped-relu"))
      << swapped.output;
}

TEST(BackendSeam, UnknownBackendIsBadInputNamingTheRegisteredOnes) {
  for (const std::string command : {"run", "check"}) {
    Result r = Parity(command + " " + ReluNet() + " --input " + ReluInput() + " --engine NOPE");
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.output;
    EXPECT_TRUE(Contains(r.output, "unknown engine 'NOPE'")) << r.output;
    EXPECT_TRUE(Contains(r.output,
                         "production, production-cuda, production-im2col, "
                         "production-swapped-relu, reference, "
                         "reference-f32"))
        << r.output;
  }
  Result fuzz = Parity("fuzz --cases 1 --engine NOPE");
  EXPECT_EQ(fuzz.exit_code, 2) << fuzz.output;
  EXPECT_TRUE(Contains(fuzz.output, "unknown engine 'NOPE'")) << fuzz.output;
}

TEST(BackendSeam, CampaignFindsItAndReproReplaysItOnTheSameBackend) {
  const std::string out = Tmp() + "/campaign";
  Result fuzz = Parity("fuzz --cases 12 --ops Relu --oracles forward --engine "
                       "production-swapped-relu --out " + out);
  EXPECT_EQ(fuzz.exit_code, 1) << fuzz.output;
  EXPECT_TRUE(Contains(fuzz.output, "on production-swapped-relu")) << fuzz.output;
  EXPECT_TRUE(Contains(fuzz.output, "forward/Relu/value mismatch/FLOAT")) << fuzz.output;
  int replayed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(out + "/findings")) {
    const std::string finding = entry.path().string() + "/case.pb";  // one dir per signature
    ++replayed;
    // The finding names its backend: repro replays it there, and it reproduces.
    Result again = Parity("repro " + finding);
    EXPECT_EQ(again.exit_code, 1) << again.output;
    EXPECT_TRUE(Contains(again.output, "reproduced on production-swapped-relu")) << again.output;
    // On the unswapped engine it does not: the bug is the kernel, not the case.
    Result fixed = Parity("repro " + finding + " --engine production");
    EXPECT_EQ(fixed.exit_code, 0) << fixed.output;
    EXPECT_TRUE(Contains(fixed.output, "no longer reproduces on production")) << fixed.output;
  }
  EXPECT_GT(replayed, 0);
}

}  // namespace
}  // namespace parity::seam

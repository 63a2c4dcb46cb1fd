// The command line's GPU answers: `parity check --oracle device` and `parity run --device cuda`
// without a device (exit 2, saying so), and `parity ops`'s cuda column.
#include <gtest/gtest.h>

#include "gpu/device.h"
#include "tests/cli/cli_util.h"

namespace parity::testing {
namespace {

const char kReluNet[] =
    "name: \"n\"\n"
    "op { type: \"Relu\" input: \"x\" output: \"y\" }\n"
    "external_input: \"x\" external_output: \"y\"\n";

const char kInput[] =
    "name: \"x\" dims: 2 dims: 3 data_type: FLOAT float_data: [-1, 2, -3, 4, -5, 6]\n";

TEST(DeviceCli, CheckWithTheDeviceOracleWithoutADeviceExits2) {
  if (gpu::DeviceCount() > 0) GTEST_SKIP() << "a CUDA device is present: nothing to refuse";
  const std::string net = WriteTestFile("relu.pbtxt", kReluNet);
  const std::string x = WriteTestFile("x.pbtxt", kInput);
  CliResult r = RunCli("tools/parity", "check " + net + " --input x=" + x + " --oracle device");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "the device oracle needs a CUDA device: no CUDA device")) << r.output;
}

TEST(DeviceCli, RunOnCudaWithoutADeviceExits2) {
  if (gpu::DeviceCount() > 0) GTEST_SKIP() << "a CUDA device is present: nothing to refuse";
  const std::string net = WriteTestFile("relu.pbtxt", kReluNet);
  const std::string x = WriteTestFile("x.pbtxt", kInput);
  CliResult r = RunCli("tools/parity", "run " + net + " --input x=" + x + " --device cuda");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, gpu::CudaBuild() ? "no CUDA device" : "Relu has no CUDA kernel"))
      << r.output;
}

TEST(DeviceCli, RunOnCudaOnADevice) {
  if (gpu::DeviceCount() == 0) GTEST_SKIP() << "no CUDA device: skipped";
  const std::string net = WriteTestFile("relu.pbtxt", kReluNet);
  const std::string x = WriteTestFile("x.pbtxt", kInput);
  CliResult r = RunCli("tools/parity", "run " + net + " --input x=" + x + " --device cuda");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "6")) << r.output;
}

TEST(DeviceCli, OpsShowsTheCudaColumn) {
  CliResult r = RunCli("tools/parity", "ops");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The rows of FC and Conv: "yes" in the cuda column exactly in CUDA builds;
  // RecurrentNetworkGradient is CPU only.
  const std::string fc_row = r.output.substr(r.output.find("\nFC "), 80);
  EXPECT_TRUE(Contains(fc_row, gpu::CudaBuild() ? "yes  yes" : "yes  -")) << fc_row;
  const std::string conv_row = r.output.substr(r.output.find("\nConv "), 80);
  EXPECT_TRUE(Contains(conv_row, gpu::CudaBuild() ? "DNNL yes" : "DNNL -")) << conv_row;
  const std::string rnn_row =
      r.output.substr(r.output.find("\nRecurrentNetworkGradient "), 80);
  EXPECT_FALSE(Contains(rnn_row, "yes  yes")) << rnn_row;
}

}  // namespace
}  // namespace parity::testing

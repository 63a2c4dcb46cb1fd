// Issue 5's end-to-end check: `parity autodiff` on FC -> Sigmoid -> SquaredL2Distance ->
// AveragedLoss, run with `parity run`, gives gradients that match central finite differences of
// the loss (computed here on the independent f64 reference interpreter) to 1e-3 relative.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "core/io.h"
#include "core/tensor.h"
#include "core/tensor_proto.h"
#include "reference/interpreter.h"
#include "tests/cli/cli_util.h"

namespace parity {
namespace {

std::string Tmp() { return testing::TestTmp(); }

int Parity(const std::string& args, std::string* output) {
  testing::CliResult result = testing::RunCli("tools/parity", args);
  *output += result.output;
  return result.exit_code;
}

// The forward net: pred = Sigmoid(FC(x, w, b)); loss = mean(½‖pred - target‖² per row).
const char kNet[] = R"(name: "mlp"
op { type: "FC" input: "x" input: "w" input: "b" output: "h" }
op { type: "Sigmoid" input: "h" output: "pred" }
op { type: "SquaredL2Distance" input: "pred" input: "target" output: "dist" }
op { type: "AveragedLoss" input: "dist" output: "loss" }
external_input: "x" external_input: "w" external_input: "b" external_input: "target"
external_output: "loss"
)";

caffe2::TensorProto Make(const std::string& name, std::vector<int64_t> dims,
                         std::vector<float> values) {
  Tensor t;
  t.Resize(dims);
  std::copy(values.begin(), values.end(), t.mutable_data<float>());
  return TensorToProto(t, name);
}

TEST(AutodiffCli, GradientsMatchFiniteDifferences) {
  std::map<std::string, caffe2::TensorProto> inputs = {
      {"x", Make("x", {3, 4}, {0.5f, -0.2f, 0.1f, 0.9f, -0.7f, 0.3f, 0.8f, -0.1f, 0.2f, 0.4f,
                               -0.6f, 0.05f})},
      {"w", Make("w", {2, 4}, {0.3f, -0.5f, 0.8f, 0.1f, -0.4f, 0.2f, 0.6f, -0.9f})},
      {"b", Make("b", {2}, {0.1f, -0.3f})},
      {"target", Make("target", {3, 2}, {0.2f, 0.8f, 0.5f, 0.1f, 0.9f, 0.4f})}};
  std::string net_path = Tmp() + "/mlp.pbtxt";
  WriteFileAtomic(net_path, kNet);
  std::vector<caffe2::TensorProto> all;
  for (const auto& [name, t] : inputs) all.push_back(t);
  std::string inputs_path = Tmp() + "/inputs.pb";
  SaveTensors(inputs_path, all);

  std::string out;
  std::string grad_net = Tmp() + "/mlp_grad.pbtxt";
  ASSERT_EQ(Parity("autodiff " + net_path + " --loss loss -o " + grad_net, &out), 0) << out;
  std::string grads_path = Tmp() + "/grads.pbtxt";
  out.clear();
  ASSERT_EQ(Parity("run " + grad_net + " --input " + inputs_path + " --fetch x_grad,w_grad,b_grad -o " +
                       grads_path,
                   &out),
            0)
      << out;
  std::map<std::string, std::vector<double>> analytic;
  for (const auto& t : LoadTensors(grads_path)) {
    Tensor tensor = TensorFromProto(t);
    analytic[t.name()].assign(tensor.data<float>(), tensor.data<float>() + tensor.numel());
  }

  caffe2::NetDef net;
  ParseProto(kNet, true, "net", &net);
  auto loss_at = [&](const std::string& name, int64_t i, double delta) {
    std::map<std::string, caffe2::TensorProto> shifted = inputs;
    caffe2::TensorProto& t = shifted[name];
    caffe2::TensorProto d;
    d.set_name(name);
    d.mutable_dims()->CopyFrom(t.dims());
    d.set_data_type(caffe2::TensorProto::DOUBLE);
    for (int64_t k = 0; k < t.float_data_size(); ++k) {
      d.add_double_data(t.float_data(k) + (k == i ? delta : 0.0));
    }
    t = d;
    return reference::RunNet(net, shifted).blobs.at("loss").double_data(0);
  };
  for (const std::string name : {"x", "w", "b"}) {
    const std::vector<double>& g = analytic.at(name + "_grad");
    ASSERT_EQ(static_cast<int>(g.size()), inputs.at(name).float_data_size()) << name;
    for (size_t i = 0; i < g.size(); ++i) {
      const double h = 1e-4;
      double numeric = (loss_at(name, i, h) - loss_at(name, i, -h)) / (2 * h);
      EXPECT_NEAR(g[i], numeric, 1e-3 * std::max(std::abs(numeric), 1e-3))
          << "d loss / d " << name << "[" << i << "]";
    }
  }
}

}  // namespace
}  // namespace parity

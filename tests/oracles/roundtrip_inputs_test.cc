// The roundtrip oracle sends a case's inputs through every tensor file format parity reads (.npy,
// binary and text TensorProtos, one input alone as a TensorProto) and back through the loader, so the campaign reaches the code
// `parity run --input` uses. Every dtype comes back bit for bit; a NaN's payload, which text does
// not keep, is not a finding.
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include "core/io.h"
#include "core/tensor_proto.h"
#include "oracles/check.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// A net that copies each input to an output, so the oracle's backend run has something to do.
Case CopyCase(const std::vector<Tensor>& inputs) {
  Case c;
  c.set_seed(1);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "x" + std::to_string(i);
    *c.add_inputs() = TensorToProto(inputs[i], name);
    caffe2::OperatorDef* op = c.mutable_net()->add_op();
    op->set_type("Copy");
    op->add_input(name);
    op->add_output("y" + std::to_string(i));
    c.mutable_net()->add_external_input(name);
    c.mutable_net()->add_external_output("y" + std::to_string(i));
  }
  return c;
}

OracleVerdict RoundTrip(const Case& c) {
  oracles::CheckRequest request;
  request.oracles = {"roundtrip"};
  const CaseReport report = oracles::CheckCase(c, request);
  EXPECT_EQ(report.verdicts_size(), 1);
  return report.verdicts(0);
}

TEST(RoundTripInputs, EveryDtypeComesBackFromEveryFormat) {
  const float nan_with_payload = [] {
    uint32_t bits = 0x7fc00123;
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }();
  const Case c = CopyCase({
      MakeTensor<float>({2, 3}, {-0.0f, 1.5f, std::numeric_limits<float>::infinity(),
                                 nan_with_payload, 1e-45f, -3.25f}),
      MakeTensor<double>({2}, {0.1, -1e300}),
      MakeTensor<int32_t>({3}, {-7, 0, 2147483647}),
      MakeTensor<int64_t>({1, 2}, {int64_t{1} << 40, -1}),
      MakeTensor<bool>({3}, {true, false, true}),
      MakeTensor<float>({0, 4}, {}),
  });
  const OracleVerdict verdict = RoundTrip(c);
  EXPECT_EQ(verdict.status(), OracleVerdict::OK)
      << verdict.reason() << verdict.finding().message();
}

TEST(RoundTripInputs, AnInputTheLoaderCannotHoldIsLeftToTheBackends) {
  // dims [3] with two values: not a tensor; the backends reject the case, the oracle does not
  // call the loader wrong.
  Case c = CopyCase({MakeTensor<float>({2}, {1, 2})});
  c.mutable_inputs(0)->set_dims(0, 3);
  const OracleVerdict verdict = RoundTrip(c);
  EXPECT_NE(verdict.status(), OracleVerdict::FINDING) << verdict.finding().message();
}

// A tensor whose name holds "protos" (TensorProtos' one field), written alone as text: the loader
// once took any text holding the word for a TensorProtos and refused the file ("has no field
// named name"). One input alone (picked from the seed; both names here hold the word), binary and
// text, is one of the oracle's forms.
TEST(RoundTripInputs, ATensorAloneNamedLikeTheListFieldLoads) {
  Case c = CopyCase({MakeTensor<float>({2}, {1.5f, -2.0f}), MakeTensor<int32_t>({1}, {3})});
  c.mutable_inputs(0)->set_name("protos");
  c.mutable_inputs(1)->set_name("my_protos {");
  for (int i = 0; i < 2; ++i) {
    c.mutable_net()->mutable_op(i)->set_input(0, c.inputs(i).name());
    c.mutable_net()->set_external_input(i, c.inputs(i).name());
  }
  const OracleVerdict verdict = RoundTrip(c);
  EXPECT_EQ(verdict.status(), OracleVerdict::OK)
      << verdict.reason() << verdict.finding().message();

  // The loader itself, on both messages: the text decides by parsing, not by the word.
  const std::string path = ::testing::TempDir() + "/protos_alone.pbtxt";
  for (const char* text :
       {"name: \"protos\" dims: 2 data_type: FLOAT float_data: 1.5 float_data: -2",
        "# a comment first\nprotos { name: \"protos\" dims: 1 data_type: FLOAT float_data: 1 }"}) {
    {
      std::ofstream out(path);
      out << text;
    }
    const std::vector<caffe2::TensorProto> loaded = LoadTensors(path);
    ASSERT_EQ(loaded.size(), 1u) << text;
    EXPECT_EQ(loaded[0].name(), "protos");
  }
  // Neither message: the error is the one of the message the text starts as.
  {
    std::ofstream out(path);
    out << "protos { bogus: 1 }";
  }
  try {
    LoadTensors(path);
    FAIL() << "a malformed TensorProtos was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("caffe2.TensorProtos"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace parity::testing

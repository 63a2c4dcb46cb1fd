// Tensor files that are not what they claim: every reading of them is an error naming the file
// and what is wrong, never a silent guess (a shape rounded down, one of two representations picked,
// a byte taken as a bool, a net read as a tensor).
#include <cstdlib>
#include <string>

#include "core/io.h"
#include "core/tensor_proto.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

TEST(TensorFiles, NpyShapeEntriesAreWholeNumbers) {
  std::string bytes = SerializeNpy(TensorToProto(MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})));
  ASSERT_NE(bytes.find("(2, 3)"), std::string::npos);
  std::string fractional = bytes;
  fractional.replace(fractional.find("(2, 3)"), 6, "(2.5,3)");
  ExpectError([&] { ParseNpy(fractional, "frac.npy"); }, ErrorKind::kInvalidNet,
              {"frac.npy", "bad .npy shape entry '2.5'", "not a whole number"});
  std::string overflowing = bytes;
  overflowing.replace(overflowing.find("(2, 3)"), 6, "(99999999999999999999, 3)");
  ExpectError([&] { ParseNpy(overflowing, "big.npy"); }, ErrorKind::kInvalidNet,
              {"big.npy", "99999999999999999999"});
  // Spaces around an entry are numpy's own formatting and stay accepted (same header length).
  std::string spaced = bytes;
  spaced.replace(spaced.find("(2, 3)"), 6, "(2 ,3)");
  EXPECT_EQ(TensorFromProto(ParseNpy(spaced, "ok.npy")).dims(), (std::vector<int64_t>{2, 3}));
}

TEST(TensorFiles, RawDataAndATypedFieldTogetherAreRefused) {
  caffe2::TensorProto proto;
  proto.set_name("w");
  proto.set_data_type(caffe2::TensorProto::FLOAT);
  proto.add_dims(1);
  proto.add_float_data(1.0f);
  const float two = 2.0f;
  proto.set_raw_data(std::string(reinterpret_cast<const char*>(&two), sizeof two));
  ExpectError([&] { TensorFromProto(proto); }, ErrorKind::kInvalidNet,
              {"tensor 'w'", "both raw_data and float_data"});
  proto.clear_float_data();
  EXPECT_EQ(Values<float>(TensorFromProto(proto)), (std::vector<float>{2.0f}));
}

TEST(TensorFiles, BoolRawBytesAreZeroOrOne) {
  caffe2::TensorProto proto;
  proto.set_name("mask");
  proto.set_data_type(caffe2::TensorProto::BOOL);
  proto.add_dims(3);
  proto.set_raw_data(std::string("\x01\x00\xff", 3));
  ExpectError([&] { TensorFromProto(proto); }, ErrorKind::kInvalidNet,
              {"tensor 'mask'", "bool raw_data byte 2 is 255"});
  proto.set_raw_data(std::string("\x01\x00\x01", 3));
  EXPECT_EQ(Values<bool>(TensorFromProto(proto)), (std::vector<bool>{true, false, true}));
}

TEST(TensorFiles, ANetGivenAsTensorsIsNamed) {
  caffe2::NetDef net;
  net.set_name("relu");
  caffe2::OperatorDef* op = net.add_op();
  op->set_type("Relu");
  op->add_input("x");
  op->add_output("y");
  const std::string path = TempPath("net_as_input.pb");
  SaveNetDef(path, net);
  ExpectError([&] { LoadTensors(path); }, ErrorKind::kInvalidNet,
              {"net_as_input.pb holds a NetDef ('relu', 1 ops), not tensors"});
  // A real binary TensorProtos and a single binary TensorProto still load.
  const std::string tensors = TempPath("tensors.pb");
  SaveTensors(tensors, {TensorToProto(MakeTensor<float>({2}, {1, 2}), "x")});
  EXPECT_EQ(LoadTensors(tensors).size(), 1u);
  const std::string single = TempPath("single.pb");
  SaveProtoFile(single, TensorToProto(MakeTensor<int32_t>({2}, {3, 4}), "i"));
  const std::vector<caffe2::TensorProto> loaded = LoadTensors(single);
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(Values<int32_t>(TensorFromProto(loaded[0])), (std::vector<int32_t>{3, 4}));
}

}  // namespace
}  // namespace parity::testing

// Protobuf wire compatibility with caffe2.proto, file formats, and atomic writes.
#include "core/io.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "core/tensor_proto.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

TEST(Wire, FieldNumbersMatchCaffe2) {
  caffe2::NetDef net;
  net.set_name("n");
  net.add_op()->set_type("X");
  net.add_external_input("a");
  std::string bytes;
  ASSERT_TRUE(net.SerializeToString(&bytes));
  // name = field 1 (0x0A), op = field 2 (0x12) holding OperatorDef.type = field 4 (0x22),
  // external_input = field 7 (0x3A); all length-delimited.
  const std::string expected("\x0A\x01n\x12\x03\x22\x01X\x3A\x01" "a", 11);
  EXPECT_EQ(bytes, expected);
}

TEST(Wire, TensorAndArgumentFields) {
  caffe2::TensorProto t;
  t.add_dims(2);
  t.set_data_type(caffe2::TensorProto::INT64);
  t.add_int64_data(5);
  std::string bytes;
  ASSERT_TRUE(t.SerializeToString(&bytes));
  // dims = field 1 varint (0x08 02), data_type = field 2 (0x10 0A = INT64 is 10),
  // int64_data = field 10 packed (0x52 len 01 05).
  EXPECT_EQ(bytes, std::string("\x08\x02\x10\x0A\x52\x01\x05", 7));
  caffe2::Argument arg;
  arg.set_name("k");
  arg.set_i(3);
  ASSERT_TRUE(arg.SerializeToString(&bytes));
  EXPECT_EQ(bytes, std::string("\x0A\x01k\x18\x03", 5));  // i = field 3
}

TEST(Files, NetDefTextAndBinaryRoundTrip) {
  caffe2::NetDef net;
  net.set_name("rt");
  *net.add_op() = MakeOp("ConstantFill", {}, {"x"}, {{"shape", Ints{2}}, {"value", 3.0f}});
  net.add_external_output("x");
  for (const char* ext : {".pb", ".pbtxt"}) {
    std::string path = TempDir() + "/net" + ext;
    SaveNetDef(path, net);
    caffe2::NetDef loaded = LoadNetDef(path);
    EXPECT_EQ(loaded.SerializeAsString(), net.SerializeAsString()) << ext;
  }
}

TEST(Files, MalformedTextNamesLine) {
  std::string path = TempDir() + "/bad.pbtxt";
  WriteFileAtomic(path, "name: \"x\"\nop { type: \"Copy\" \n  frobnicate: 3 }\n");
  ExpectError([&] { LoadNetDef(path); }, ErrorKind::kInvalidNet, {"bad.pbtxt", "line 3"});
}

TEST(Files, MalformedBinary) {
  std::string path = TempDir() + "/bad.pb";
  // A length-delimited field claiming 100 bytes with only 2 present.
  WriteFileAtomic(path, std::string("\x0A\x64xx", 4));
  ExpectError([&] { LoadNetDef(path); }, ErrorKind::kInvalidNet, {"bad.pb", "malformed"});
}

TEST(Files, UnreadableFile) {
  ExpectError([] { LoadNetDef("/nonexistent/dir/net.pb"); }, ErrorKind::kIo,
              {"/nonexistent/dir/net.pb"});
}

TEST(Files, NpyRoundTripAllDtypes) {
  std::vector<Tensor> tensors = {
      MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6.5f}), MakeTensor<double>({1}, {0.1}),
      MakeTensor<int32_t>({3}, {-1, 0, 7}), MakeTensor<int64_t>({2, 1}, {int64_t{1} << 40, -2}),
      MakeTensor<bool>({2}, {true, false}), MakeTensor<float>({0, 4}, {})};
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::string path = TempDir() + "/t" + std::to_string(i) + ".npy";
    caffe2::TensorProto proto = TensorToProto(tensors[i]);
    SaveTensors(path, {proto});
    std::vector<caffe2::TensorProto> loaded = LoadTensors(path);
    ASSERT_EQ(loaded.size(), 1u);
    EXPECT_EQ(loaded[0].SerializeAsString(), proto.SerializeAsString()) << path;
  }
}

TEST(Files, NpyHeaderIsNumpyCompatible) {
  std::string bytes = SerializeNpy(TensorToProto(MakeTensor<float>({2}, {1, 2})));
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  size_t header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);  // data aligned as numpy writes it
  EXPECT_NE(bytes.find("'descr': '<f4', 'fortran_order': False, 'shape': (2,)"), std::string::npos);
  EXPECT_EQ(bytes.size(), 10 + header_len + 8);
}

TEST(Files, NpyRejectsFortranOrderAndBadTypes) {
  std::string good = SerializeNpy(TensorToProto(MakeTensor<float>({2}, {1, 2})));
  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  ExpectError([&] { ParseNpy(fortran, "f.npy"); }, ErrorKind::kInvalidNet, {"Fortran"});
  std::string complex = good;
  complex.replace(complex.find("<f4"), 3, "<c8");
  ExpectError([&] { ParseNpy(complex, "c.npy"); }, ErrorKind::kInvalidNet, {"<c8"});
  ExpectError([&] { ParseNpy("garbage", "g.npy"); }, ErrorKind::kInvalidNet, {"g.npy"});
  ExpectError([&] { ParseNpy(good.substr(0, good.size() - 1), "short.npy"); },
              ErrorKind::kInvalidNet, {"short.npy", "bytes"});
}

TEST(Files, TensorProtosFile) {
  std::string path = TempDir() + "/tensors.pbtxt";
  SaveTensors(path, {TensorToProto(MakeTensor<float>({1}, {1}), "a"),
                     TensorToProto(MakeTensor<int32_t>({2}, {3, 4}), "b")});
  std::vector<caffe2::TensorProto> loaded = LoadTensors(path);
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded[1].name(), "b");
  EXPECT_EQ(Values<int32_t>(TensorFromProto(loaded[1])), (std::vector<int32_t>{3, 4}));
}

TEST(Files, TensorProtoValueCountMustMatchDims) {
  caffe2::TensorProto proto;
  proto.set_name("w");
  proto.add_dims(3);
  proto.add_float_data(1);
  ExpectError([&] { TensorFromProto(proto); }, ErrorKind::kInvalidNet, {"'w'", "[3]", "3 values"});
}

TEST(Files, AtomicWriteLeavesNoTemporaries) {
  std::string dir = TempDir() + "/atomic";
  mkdir(dir.c_str(), 0755);
  WriteFileAtomic(dir + "/f", "one");
  WriteFileAtomic(dir + "/f", "two");
  EXPECT_EQ(ReadFileBytes(dir + "/f"), "two");
  int entries = 0;
  DIR* d = opendir(dir.c_str());
  while (dirent* e = readdir(d)) entries += e->d_name[0] != '.';
  closedir(d);
  EXPECT_EQ(entries, 1);
  ExpectError([] { WriteFileAtomic("/nonexistent/dir/f", "x"); }, ErrorKind::kIo, {"/nonexistent/dir"});
}

}  // namespace
}  // namespace parity::testing

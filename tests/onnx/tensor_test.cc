// ONNX tensors as ONNX's test data writes them (raw_data, typed fields, empty, 0-d) into parity
// tensors and back; the dtype renumbering; what parity cannot hold is a clear error.
#include "onnx/tensor.h"

#include <gtest/gtest.h>

#include <cstring>

#include "core/tensor_proto.h"
#include "tests/test_util.h"

namespace parity::onnx {
namespace {

using ::parity::testing::MakeTensor;
using ::parity::testing::Values;

template <typename T>
std::string RawBytes(const std::vector<T>& values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

::onnx::TensorProto Proto(int type, const std::vector<int64_t>& dims) {
  ::onnx::TensorProto proto;
  proto.set_name("t");
  proto.set_data_type(type);
  for (int64_t d : dims) proto.add_dims(d);
  return proto;
}

ErrorKind KindOf(const ::onnx::TensorProto& proto, std::string* message) {
  try {
    TensorFromOnnx(proto);
  } catch (const Error& e) {
    *message = e.what();
    return e.kind();
  }
  ADD_FAILURE() << "no error";
  return ErrorKind::kInternal;
}

TEST(OnnxDataTypeTest, RenumbersBothWays) {
  // ONNX numbers vs Caffe2's: the same names, other values (ONNX 10 is FLOAT16, Caffe2's INT64).
  const std::vector<std::pair<int, DataType>> pairs = {
      {1, DataType::kFloat},  {2, DataType::kUint8}, {3, DataType::kInt8},
      {4, DataType::kUint16}, {5, DataType::kInt16}, {6, DataType::kInt32},
      {7, DataType::kInt64},  {9, DataType::kBool},  {10, DataType::kFloat16},
      {11, DataType::kDouble}};
  for (const auto& [onnx_type, ours] : pairs) {
    DataType dtype;
    ASSERT_TRUE(DataTypeFromOnnx(onnx_type, &dtype)) << onnx_type;
    EXPECT_EQ(dtype, ours) << onnx_type;
    EXPECT_EQ(OnnxDataType(ours), onnx_type);
  }
  DataType dtype;
  for (int unholdable : {0, 8, 12, 13, 14, 15, 16, 99}) {
    EXPECT_FALSE(DataTypeFromOnnx(unholdable, &dtype)) << unholdable;
  }
  EXPECT_EQ(OnnxDataTypeName(16), "BFLOAT16");
  EXPECT_EQ(OnnxDataTypeName(99), "data_type 99");
  EXPECT_THROW(OnnxDataType(DataType::kString), Error);
}

TEST(OnnxTensorTest, ReadsRawDataOfEveryHoldableType) {
  auto proto = Proto(::onnx::TensorProto::FLOAT, {2, 2});
  proto.set_raw_data(RawBytes<float>({1.5f, -2, 3, 4}));
  Tensor t = TensorFromOnnx(proto);
  EXPECT_EQ(t.dtype(), DataType::kFloat);
  EXPECT_EQ(t.dims(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Values<float>(t), (std::vector<float>{1.5f, -2, 3, 4}));

  proto = Proto(::onnx::TensorProto::INT64, {3});
  proto.set_raw_data(RawBytes<int64_t>({-1, 1LL << 40, 7}));
  EXPECT_EQ(Values<int64_t>(TensorFromOnnx(proto)), (std::vector<int64_t>{-1, 1LL << 40, 7}));

  proto = Proto(::onnx::TensorProto::UINT16, {2});
  proto.set_raw_data(RawBytes<uint16_t>({65535, 3}));
  EXPECT_EQ(Values<uint16_t>(TensorFromOnnx(proto)), (std::vector<uint16_t>{65535, 3}));

  // Bool is one byte; a byte other than 0/1 is true, never an invalid C++ bool.
  proto = Proto(::onnx::TensorProto::BOOL, {3});
  proto.set_raw_data(std::string("\x00\x01\x02", 3));
  EXPECT_EQ(Values<bool>(TensorFromOnnx(proto)), (std::vector<bool>{false, true, true}));

  // float16 keeps its bits.
  proto = Proto(::onnx::TensorProto::FLOAT16, {1});
  proto.set_raw_data(RawBytes<uint16_t>({0x3c00}));
  t = TensorFromOnnx(proto);
  EXPECT_EQ(t.dtype(), DataType::kFloat16);
  EXPECT_EQ(t.data<Half>()[0].bits, 0x3c00);
}

TEST(OnnxTensorTest, ReadsTypedFields) {
  auto proto = Proto(::onnx::TensorProto::FLOAT, {2});
  proto.add_float_data(0.25f);
  proto.add_float_data(-1);
  EXPECT_EQ(Values<float>(TensorFromOnnx(proto)), (std::vector<float>{0.25f, -1}));

  proto = Proto(::onnx::TensorProto::DOUBLE, {1});
  proto.add_double_data(1e-300);
  EXPECT_EQ(Values<double>(TensorFromOnnx(proto)), (std::vector<double>{1e-300}));

  proto = Proto(::onnx::TensorProto::INT64, {2});
  proto.add_int64_data(-5);
  proto.add_int64_data(9);
  EXPECT_EQ(Values<int64_t>(TensorFromOnnx(proto)), (std::vector<int64_t>{-5, 9}));

  // int32_data carries int8/16, uint8/16, bool and float16 bits.
  proto = Proto(::onnx::TensorProto::INT8, {2});
  proto.add_int32_data(-128);
  proto.add_int32_data(127);
  EXPECT_EQ(Values<int8_t>(TensorFromOnnx(proto)), (std::vector<int8_t>{-128, 127}));
  proto = Proto(::onnx::TensorProto::UINT8, {1});
  proto.add_int32_data(255);
  EXPECT_EQ(Values<uint8_t>(TensorFromOnnx(proto)), (std::vector<uint8_t>{255}));
  proto = Proto(::onnx::TensorProto::BOOL, {2});
  proto.add_int32_data(1);
  proto.add_int32_data(0);
  EXPECT_EQ(Values<bool>(TensorFromOnnx(proto)), (std::vector<bool>{true, false}));
  proto = Proto(::onnx::TensorProto::FLOAT16, {1});
  proto.add_int32_data(0xc000);
  EXPECT_EQ(TensorFromOnnx(proto).data<Half>()[0].bits, 0xc000);
}

TEST(OnnxTensorTest, EmptyAndScalarTensors) {
  // ONNX's test data writes zero-element tensors with no data field at all.
  auto proto = Proto(::onnx::TensorProto::INT64, {0});
  Tensor t = TensorFromOnnx(proto);
  EXPECT_EQ(t.dtype(), DataType::kInt64);
  EXPECT_EQ(t.dims(), (std::vector<int64_t>{0}));
  EXPECT_EQ(t.numel(), 0);
  proto = Proto(::onnx::TensorProto::FLOAT, {0, 3, 4});
  EXPECT_EQ(TensorFromOnnx(proto).dims(), (std::vector<int64_t>{0, 3, 4}));
  proto.set_raw_data("");
  EXPECT_EQ(TensorFromOnnx(proto).numel(), 0);

  // A 0-d scalar has no dims and one value.
  proto = Proto(::onnx::TensorProto::FLOAT, {});
  proto.set_raw_data(RawBytes<float>({4.5f}));
  t = TensorFromOnnx(proto);
  EXPECT_EQ(t.ndim(), 0);
  EXPECT_EQ(Values<float>(t), (std::vector<float>{4.5f}));
}

TEST(OnnxTensorTest, UnholdableTypesAreBadArguments) {
  std::string message;
  for (int type :
       {::onnx::TensorProto::STRING, ::onnx::TensorProto::BFLOAT16, ::onnx::TensorProto::UINT32,
        ::onnx::TensorProto::UINT64, ::onnx::TensorProto::COMPLEX64}) {
    auto proto = Proto(type, {1});
    proto.set_raw_data(std::string(8, '\0'));
    EXPECT_EQ(KindOf(proto, &message), ErrorKind::kBadArgument) << type;
    EXPECT_NE(message.find("ONNX tensor 't' has ONNX type " + OnnxDataTypeName(type)),
              std::string::npos)
        << message;
  }
  auto proto = Proto(::onnx::TensorProto::FLOAT, {1});
  proto.set_data_location(::onnx::TensorProto::EXTERNAL);
  EXPECT_EQ(KindOf(proto, &message), ErrorKind::kBadArgument);
  EXPECT_NE(message.find("external data"), std::string::npos) << message;
}

TEST(OnnxTensorTest, SizeMismatchesAreInvalid) {
  std::string message;
  auto proto = Proto(::onnx::TensorProto::FLOAT, {3});
  proto.set_raw_data(RawBytes<float>({1, 2}));
  EXPECT_EQ(KindOf(proto, &message), ErrorKind::kInvalidNet);
  EXPECT_NE(message.find("raw_data has 8 bytes, dims [3] of float need 12"), std::string::npos)
      << message;
  proto = Proto(::onnx::TensorProto::INT64, {2});
  proto.add_int64_data(1);
  EXPECT_EQ(KindOf(proto, &message), ErrorKind::kInvalidNet);
  EXPECT_NE(message.find("int64_data has 1"), std::string::npos) << message;
}

TEST(OnnxTensorTest, RoundTripsThroughRawData) {
  const std::vector<Tensor> tensors = {MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                                       MakeTensor<double>({1}, {0.1}),
                                       MakeTensor<int32_t>({2}, {-7, 8}),
                                       MakeTensor<int64_t>({}, {42}),
                                       MakeTensor<bool>({3}, {true, false, true}),
                                       MakeTensor<uint8_t>({2}, {0, 255}),
                                       MakeTensor<int8_t>({1}, {-3}),
                                       MakeTensor<int16_t>({1}, {-300}),
                                       MakeTensor<uint16_t>({1}, {60000}),
                                       MakeTensor<float>({0, 2}, {})};
  for (const Tensor& t : tensors) {
    const ::onnx::TensorProto proto = TensorToOnnx(t, "x");
    EXPECT_EQ(proto.name(), "x");
    EXPECT_TRUE(proto.has_raw_data());
    const Tensor back = TensorFromOnnx(proto);
    EXPECT_EQ(back.dtype(), t.dtype()) << t.DebugString();
    EXPECT_EQ(back.dims(), t.dims()) << t.DebugString();
    ASSERT_EQ(back.nbytes(), t.nbytes());
    if (t.nbytes() > 0) {
      EXPECT_EQ(std::memcmp(back.raw_data(), t.raw_data(), t.nbytes()), 0);
    }
  }
}

TEST(OnnxTensorTest, Caffe2ProtosUseCaffe2Numbers) {
  auto proto = Proto(::onnx::TensorProto::INT64, {2});
  proto.set_raw_data(RawBytes<int64_t>({3, -4}));
  const caffe2::TensorProto c2 = Caffe2TensorFromOnnx(proto);
  EXPECT_EQ(c2.name(), "t");
  EXPECT_EQ(c2.data_type(), caffe2::TensorProto::INT64);  // 10, not ONNX's 7
  EXPECT_EQ(Values<int64_t>(TensorFromProto(c2)), (std::vector<int64_t>{3, -4}));
  const ::onnx::TensorProto again = OnnxTensorFromCaffe2(c2);
  EXPECT_EQ(again.data_type(), ::onnx::TensorProto::INT64);
  EXPECT_EQ(again.raw_data(), proto.raw_data());
}

}  // namespace
}  // namespace parity::onnx

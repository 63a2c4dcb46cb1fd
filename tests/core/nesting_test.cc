// The one nesting limit of nets (core/proto/nesting.h): what parity reads and writes, in both file
// formats and through text sub-nets, stops at kMaxNetNesting with an error instead of overflowing
// the stack; everything within the limit round-trips.
#include "core/proto/nesting.h"

#include <google/protobuf/text_format.h>

#include <cstdlib>
#include <string>

#include "core/io.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

// A chain of `depth` Ifs, each holding the next in its then_net (`n`), around one Relu.
caffe2::NetDef NestedIfs(int depth) {
  caffe2::NetDef net;
  caffe2::OperatorDef* relu = net.add_op();
  relu->set_type("Relu");
  relu->add_input("x");
  relu->add_output("x");
  for (int level = 0; level < depth; ++level) {
    caffe2::NetDef outer;
    caffe2::OperatorDef* op = outer.add_op();
    op->set_type("If");
    op->add_input("c");
    caffe2::Argument* then_net = op->add_arg();
    then_net->set_name("then_net");
    *then_net->mutable_n() = std::move(net);
    net = std::move(outer);
  }
  net.set_name("nested");
  return net;
}

TEST(Nesting, DepthCountsEveryKindOfSubNet) {
  EXPECT_EQ(NetNestingDepth(NestedIfs(0)), 0);
  EXPECT_EQ(NetNestingDepth(NestedIfs(5)), 5);
  // A step net given as text (as Caffe2 writes RecurrentNetwork's) counts like one in `n`, and
  // `nets` too.
  caffe2::NetDef outer;
  caffe2::OperatorDef* rnn = outer.add_op();
  rnn->set_type("RecurrentNetwork");
  caffe2::Argument* step = rnn->add_arg();
  step->set_name("step_net");
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(NestedIfs(3), step->mutable_s()));
  caffe2::Argument* many = rnn->add_arg();
  many->set_name("unrelated_nets");
  *many->add_nets() = NestedIfs(7);
  EXPECT_EQ(NetNestingDepth(outer), 8);
  // A string argument that is not a net's is not parsed as one.
  caffe2::Argument* label = rnn->add_arg();
  label->set_name("timestep");
  label->set_s("op { type: \"If\" }");
  EXPECT_EQ(NetNestingDepth(outer), 8);
}

TEST(Nesting, DepthStopsCountingPastTheLimit) {
  // The walk stops just past the limit, however deep the net. (Not 10,000 levels: protobuf's own
  // destructor recurses per message, and ASan's frames overflow the stack there.)
  EXPECT_EQ(NetNestingDepth(NestedIfs(300)), kMaxNetNesting + 1);
  EXPECT_NO_THROW(CheckNetNesting(NestedIfs(kMaxNetNesting), "net"));
  try {
    CheckNetNesting(NestedIfs(kMaxNetNesting + 1), "deep.pbtxt");
    FAIL() << "a net one level over the limit was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidNet);
    EXPECT_NE(std::string(e.what()).find("deep.pbtxt: nets nested deeper than 64 levels"),
              std::string::npos)
        << e.what();
  }
}

TEST(Nesting, BinaryRoundTripAtTheLimit) {
  // protobuf's default recursion limit (100 messages) stops at 33 levels of nets: a net parity
  // wrote must read back at every depth it accepts.
  const std::string path = TempPath("deep_limit.pb");
  const caffe2::NetDef net = NestedIfs(kMaxNetNesting);
  SaveNetDef(path, net);
  const caffe2::NetDef back = LoadNetDef(path);
  EXPECT_EQ(back.SerializeAsString(), net.SerializeAsString());
  EXPECT_EQ(NetNestingDepth(back), kMaxNetNesting);
}

TEST(Nesting, TooDeepIsNeitherWrittenNorRead) {
  const std::string path = TempPath("deep_over.pbtxt");
  EXPECT_THROW(SaveNetDef(path, NestedIfs(kMaxNetNesting + 1)), Error);
  // Text written by hand past the parser's recursion limit: an error, not a stack overflow.
  std::string text;
  const int levels = 5000;
  for (int i = 0; i < levels; ++i) text += "op { type: \"If\" arg { name: \"then_net\" n { ";
  for (int i = 0; i < levels; ++i) text += "} } } ";
  caffe2::NetDef parsed;
  try {
    ParseProto(text, /*text=*/true, "hand.pbtxt", &parsed);
    FAIL() << "5000 nested levels were parsed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("messages nested deeper than"), std::string::npos)
        << e.what();
  }
  // The same as binary bytes: protobuf's stream parser stops at the limit.
  std::string bytes;
  ASSERT_TRUE(NestedIfs(kMaxNetNesting + 20).SerializeToString(&bytes));
  try {
    ParseProto(bytes, /*text=*/false, "deep.pb", &parsed);
    FAIL() << "84 nested levels were parsed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("deep.pb is not a valid binary caffe2.NetDef: messages "
                                         "nested deeper than 224 levels"),
              std::string::npos)
        << e.what();
  }
  // The top net, three messages a level (OperatorDef, Argument, NetDef), and the innermost Relu.
  EXPECT_EQ(WireNestingDepth(bytes, caffe2::NetDef::descriptor(), 1000),
            1 + 3 * (kMaxNetNesting + 20) + 1);
  EXPECT_EQ(WireNestingDepth("\xff\xff", caffe2::NetDef::descriptor(), 1000), -1);
  // Within the parser's limit but over the nets' limit: the nesting error names the file.
  ASSERT_TRUE(NestedIfs(kMaxNetNesting + 1).SerializeToString(&bytes));
  try {
    ParseProto(bytes, /*text=*/false, "over.pb", &parsed);
    FAIL() << "a net one level over the limit was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("over.pb: nets nested deeper than"), std::string::npos)
        << e.what();
  }
}

TEST(Nesting, TextSubNetsAreParsedUnderTheLimit) {
  caffe2::NetDef net;
  std::string error;
  EXPECT_TRUE(ParseNetText("name: \"ok\" op { type: \"Relu\" }", &net, &error));
  EXPECT_EQ(net.name(), "ok");
  std::string deep;
  for (int i = 0; i < 3000; ++i) deep += "op { arg { n { ";
  for (int i = 0; i < 3000; ++i) deep += "} } } ";
  EXPECT_FALSE(ParseNetText(deep, &net, &error));
  EXPECT_NE(error.find("too deep"), std::string::npos) << error;
}

TEST(Wire, AFieldOfTheWrongWireTypeIsRefused) {
  // NetDef.name is field 1, length-delimited; 0x08 0x05 sends it as a varint, which proto2 would
  // keep as an unknown field and parse on, taking a net without a name.
  const std::string bytes("\x08\x05\x12\x06\x22\x04Relu", 10);
  caffe2::NetDef net;
  try {
    ParseProto(bytes, /*text=*/false, "wire.pb", &net);
    FAIL() << "a mistyped field was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("field name (field 1) has the wrong wire type"),
              std::string::npos)
        << e.what();
  }
  // A field number caffe2.proto does not declare stays accepted (a newer schema wrote it).
  const std::string unknown("\xF8\x07\x01\x12\x06\x22\x04Relu", 11);
  ParseProto(unknown, /*text=*/false, "newer.pb", &net);
  EXPECT_EQ(net.op(0).type(), "Relu");
}

}  // namespace
}  // namespace parity::testing

// `parity draw` as a user runs it: the format from the extension, text and binary nets, the
// options, nothing from Graphviz on the terminal, and exit 2 with one clear line on bad input.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "core/io.h"
#include "tests/cli/cli_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

constexpr char kNet[] = R"(name: "small"
op { type: "FC" input: "x" input: "w" input: "b" output: "y" }
op { type: "Relu" input: "y" output: "y" }
op { type: "Add" input: "y" input: "x" output: "z" }
)";

std::string Tmp(const std::string& name) { return TestTmp() + "/" + name; }

TEST(DrawCommand, WritesSvgDotAndPng) {
  const std::string net = WriteTestFile("draw_net.pbtxt", kNet);
  const CliResult svg = RunCli("tools/parity", "draw " + net + " -o " + Tmp("net.svg"));
  EXPECT_EQ(svg.exit_code, 0) << svg.output;
  // One line of ours; Graphviz prints nothing.
  EXPECT_EQ(svg.output, "wrote " + Tmp("net.svg") + " (svg, 3 ops)\n");
  const std::string svg_text = ReadFileBytes(Tmp("net.svg"));
  EXPECT_EQ(svg_text.rfind("<?xml", 0), 0u);
  EXPECT_TRUE(Contains(svg_text, ">Relu (op#1)</text>"));
  EXPECT_TRUE(Contains(svg_text, "</svg>"));

  const CliResult dot =
      RunCli("tools/parity", "draw " + net + " -o " + Tmp("net.dot") + " --rankdir TB");
  EXPECT_EQ(dot.exit_code, 0) << dot.output;
  const std::string dot_text = ReadFileBytes(Tmp("net.dot"));
  EXPECT_EQ(dot_text.rfind("digraph net {", 0), 0u) << dot_text;
  EXPECT_TRUE(Contains(dot_text, "rankdir=TB")) << dot_text;
  EXPECT_TRUE(Contains(dot_text, "\"FC (op#0)\""));

  // A binary net, highlighted op, PNG.
  caffe2::NetDef binary;
  *binary.add_op() = MakeOp("Relu", {"x"}, {"y"});
  *binary.add_op() = MakeOp("Relu", {"y"}, {"z"});
  SaveNetDef(Tmp("draw_net.pb"), binary);
  const CliResult png = RunCli(
      "tools/parity", "draw " + Tmp("draw_net.pb") + " -o " + Tmp("net.png") + " --highlight 0");
  EXPECT_EQ(png.exit_code, 0) << png.output;
  EXPECT_EQ(png.output, "wrote " + Tmp("net.png") + " (png, 2 ops)\n");
  EXPECT_EQ(ReadFileBytes(Tmp("net.png")).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));

  // Drawn again over an existing file: replaced.
  const CliResult again = RunCli(
      "tools/parity", "draw " + Tmp("draw_net.pb") + " -o " + Tmp("net.svg") + " --highlight 1");
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_TRUE(Contains(ReadFileBytes(Tmp("net.svg")), "#DB4437") ||
              Contains(ReadFileBytes(Tmp("net.svg")), "#db4437"));
}

TEST(DrawCommand, BadInputExitsTwoWithOneLine) {
  const std::string net = WriteTestFile("draw_bad.pbtxt", kNet);
  struct Case {
    std::string args, words;
  };
  const Case cases[] = {
      {"draw " + Tmp("missing.pbtxt") + " -o " + Tmp("x.svg"), "parity draw: i/o error"},
      {"draw " + net + " -o " + Tmp("x.pdf"),
       "parity draw: bad argument: cannot tell the format of '" + Tmp("x.pdf") +
           "' from its extension: -o must end in .svg, .png or .dot"},
      {"draw " + net + " -o " + Tmp("noextension"), "-o must end in .svg, .png or .dot"},
      {"draw " + net + " -o " + Tmp("x.svg") + " --highlight 3",
       "parity draw: bad argument: cannot highlight op #3: the net has 3 ops (#0 to #2)"},
      {"draw " + net + " -o " + Tmp("x.svg") + " --highlight -1", "--highlight"},
      {"draw " + net + " -o " + Tmp("x.svg") + " --rankdir XY", "--rankdir"},
      {"draw " + net, "--output is required"},
      {"draw " + TestTmp() + " -o " + Tmp("x.svg"), "parity draw: i/o error"},
  };
  for (const Case& c : cases) {
    const CliResult result = RunCli("tools/parity", c.args);
    EXPECT_EQ(result.exit_code, 2) << c.args << "\n" << result.output;
    EXPECT_TRUE(Contains(result.output, c.words)) << c.args << "\n" << result.output;
    struct stat info;
    EXPECT_NE(stat(Tmp("x.svg").c_str(), &info), 0) << c.args << " wrote a file";
  }
  // -o naming a directory is refused, the directory left alone.
  mkdir(Tmp("out.svg").c_str(), 0755);
  const CliResult dir = RunCli("tools/parity", "draw " + net + " -o " + Tmp("out.svg"));
  EXPECT_EQ(dir.exit_code, 2) << dir.output;
  EXPECT_TRUE(Contains(dir.output, "parity draw: i/o error")) << dir.output;
}

}  // namespace
}  // namespace parity::testing

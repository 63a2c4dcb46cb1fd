// Every size path a production kernel declares (core/ops/common/size_paths.h) is reached by the
// op's fuzz spec: in the cases a campaign draws of that op, the declared measure falls on both
// sides of the threshold and, for blocked kernels, on the remainders 0, 1 and block - 1 (the tail
// code's edges). A path the generators never reach would be checked by no oracle; here it is a
// failing test naming the path.
//
// kCasesPerOp is below what a 60-second default campaign draws of each op: 53,801 cases in 60 s
// measured (seed 1, one core), half of them single-op cases, over 126 op types: ~210 per op.
#include "core/ops/common/size_paths.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "fuzz/generators.h"
#include "fuzz/spec.h"

namespace parity {
namespace {

constexpr int kCasesPerOp = 200;

// A gradient op is drawn through its forward op's spec (the gradient oracle runs it there); its
// declared measure reads the inputs it shares with the forward op (ConvGradient: X and W).
std::string SpecType(const std::string& op_type) {
  if (fuzz::SpecRegistry::Find(op_type) != nullptr) return op_type;
  const std::string suffix = "Gradient";
  if (op_type.size() > suffix.size() &&
      op_type.compare(op_type.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return op_type.substr(0, op_type.size() - suffix.size());
  }
  return op_type;
}

TEST(SizePaths, SomeAreDeclared) {
  std::map<std::string, int> by_op;
  for (const SizePath& path : SizePaths()) ++by_op[path.op_type];
  EXPECT_EQ(by_op["Conv"], 1);
  EXPECT_EQ(by_op["ConvGradient"], 1);
}

TEST(SizePaths, EveryDeclaredPathIsReachedOnBothSides) {
  for (const SizePath& path : SizePaths()) {
    SCOPED_TRACE(path.op_type + ": " + path.description + " (" + path.file + ":" +
                 std::to_string(path.line) + ")");
    const std::string spec_type = SpecType(path.op_type);
    const fuzz::OpSpec* spec = fuzz::SpecRegistry::Find(spec_type);
    ASSERT_NE(spec, nullptr) << "no fuzz spec draws " << path.op_type;
    int below = 0, at_or_above = 0;
    std::map<int64_t, int> remainders;
    for (int seed = 1; seed <= kCasesPerOp; ++seed) {
      const Case c = fuzz::SampleCase(fuzz::OpCaseGen(*spec), seed);
      std::map<std::string, std::vector<int64_t>> dims;
      for (const auto& input : c.inputs()) {
        dims[input.name()].assign(input.dims().begin(), input.dims().end());
      }
      for (const auto& op : c.net().op()) {
        if (op.type() != spec_type) continue;
        InputDims in;
        for (const auto& name : op.input()) in.push_back(dims[name]);
        const int64_t measure = path.measure(op, in);
        if (measure < 0) continue;
        ++(measure < path.threshold ? below : at_or_above);
        if (path.block >= 2 && measure >= path.block) ++remainders[measure % path.block];
      }
    }
    EXPECT_GT(below, 0) << "no case below the threshold " << path.threshold;
    EXPECT_GT(at_or_above, 0) << "no case at or above the threshold " << path.threshold;
    if (path.block >= 2) {
      for (int64_t r : {int64_t{0}, int64_t{1}, path.block - 1}) {
        EXPECT_GT(remainders[r], 0) << "no case with measure % " << path.block << " == " << r;
      }
    }
    std::printf("%-14s %-70s below %3d, at or above %3d\n", path.op_type.c_str(),
                path.description.c_str(), below, at_or_above);
  }
}

}  // namespace
}  // namespace parity

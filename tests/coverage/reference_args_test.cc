// The two halves agree on what an op is called and how it is configured: every production op has
// a reference kernel (or a recorded reason), and the reference's argument names and defaults are
// the production schema's. Semantics are written independently; names and defaults must not be.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "core/schema.h"
#include "oracles/coverage.h"
#include "reference/interpreter.h"

namespace parity {
namespace {

// "1", "1.0", "1e+00" all mean the same default; lists compare textually without spaces.
bool SameDefault(const std::string& a, const std::string& b) {
  auto strip = [](std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
    s.erase(std::remove(s.begin(), s.end(), '"'), s.end());
    return s;
  };
  std::string x = strip(a), y = strip(b);
  if (x == y) return true;
  char* end_x = nullptr;
  char* end_y = nullptr;
  double dx = std::strtod(x.c_str(), &end_x), dy = std::strtod(y.c_str(), &end_y);
  if (!x.empty() && !y.empty() && *end_x == '\0' && *end_y == '\0') {
    return std::abs(dx - dy) <= 1e-6 * std::max(1.0, std::abs(dx));
  }
  return false;
}

// Gradient ops included: a gradient op without a reference kernel cannot be blamed inside a
// backward net (GatherGradient, MeanGradient, PowGradient and affine LayerNormGradient had none).
TEST(Coverage, EveryProductionOpHasAReferenceKernel) {
  int gradient_ops = 0;
  for (const oracles::OpCoverage& row : oracles::ComputeCoverage({})) {
    gradient_ops += row.is_gradient_op;
    EXPECT_NE(row.reference, "missing") << row.type << " has no reference kernel";
  }
  EXPECT_GT(gradient_ops, 40);
}

TEST(Coverage, ReferenceArgumentsMatchProductionSchemas) {
  auto table = reference::ArgumentTable();
  for (const std::string& type : OpSchemaRegistry::Types()) {
    auto it = table.find(type);
    if (it == table.end()) continue;  // gradient ops without reference kernels
    const OpSchema& schema = OpSchemaRegistry::Get(type);
    for (const auto& [name, reference_default] : it->second) {
      const ArgSpec* spec = schema.FindArg(name);
      if (spec == nullptr) {
        ADD_FAILURE() << type << ": the reference reads argument '" << name
                      << "', which the production schema does not declare";
        continue;
      }
      std::string production_default = std::holds_alternative<std::monostate>(spec->default_value)
                                           ? ""
                                           : ArgValueString(spec->default_value);
      if (reference_default.empty() || production_default.empty()) continue;  // no default
      EXPECT_TRUE(SameDefault(reference_default, production_default))
          << type << "." << name << ": reference default " << reference_default
          << ", production default " << production_default;
    }
  }
}

}  // namespace
}  // namespace parity

// The two halves accept the same in-place nets: for every op both implement, each (input, output)
// pair that production's schema lets share a blob (AllowInplace / EnforceInplace / AllowAnyInplace)
// is the pair the reference's own table allows, and no other. The tables are written separately
// in each half from Caffe2's schemas; this test keeps them equal.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "core/schema.h"
#include "reference/interpreter.h"

namespace parity {
namespace {

bool Contains(const std::vector<std::pair<int, int>>& pairs, int in, int out) {
  return std::find(pairs.begin(), pairs.end(), std::make_pair(in, out)) != pairs.end();
}

TEST(InplaceRules, ReferenceAllowsExactlyWhatProductionAllows) {
  const auto table = reference::InplaceTable();
  int compared = 0;
  for (const std::string& type : OpSchemaRegistry::Types()) {
    auto it = table.find(type);
    if (it == table.end()) continue;
    const OpSchema& schema = OpSchemaRegistry::Get(type);
    const reference::InplaceRules& rules = it->second;
    // Variadic ops are compared on their first 6 inputs and outputs: no rule here depends on
    // an index past 6.
    const int inputs = std::min(schema.max_inputs(), 6);
    const int outputs = std::min(schema.max_outputs(), 6);
    std::ostringstream differences;
    for (int in = 0; in < inputs; ++in) {
      for (int out = 0; out < outputs; ++out) {
        const bool production = schema.IsInplaceAllowed(in, out);
        const bool reference =
            rules.any || Contains(rules.allowed, in, out) || Contains(rules.enforced, in, out);
        if (production != reference) {
          differences << " (" << in << "," << out << "): production "
                      << (production ? "allows" : "rejects") << ", reference "
                      << (reference ? "allows" : "rejects") << ";";
        }
        if (schema.IsInplaceEnforced(in, out) != Contains(rules.enforced, in, out)) {
          differences << " (" << in << "," << out << "): enforced differs;";
        }
      }
    }
    EXPECT_TRUE(differences.str().empty()) << type << ":" << differences.str();
    ++compared;
  }
  EXPECT_GT(compared, 100) << "too few ops compared: is the reference table empty?";
}

}  // namespace
}  // namespace parity

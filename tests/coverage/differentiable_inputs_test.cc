// A schema's differentiable inputs (OpSchema::DifferentiableInputs) are what the gradient oracle
// differentiates in a net that names none (a user's net under `parity check`), while the campaign's
// cases name theirs from the op's spec. The two must agree: every input a spec marks for the
// gradient check of an op with a gradient is one its schema calls differentiable. (A `parity mutate` survivor changed
// Relu's list to {-1}, which no campaign can see: generated cases carry grad_inputs.)
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/schema.h"
#include "fuzz/generators.h"
#include "fuzz/spec.h"

namespace parity {
namespace {

constexpr int kCasesPerOp = 30;

TEST(DifferentiableInputs, EveryInputASpecDifferentiatesIsDifferentiableByItsSchema) {
  int checked = 0;
  for (const std::string& type : fuzz::SpecRegistry::Types()) {
    const fuzz::OpSpec& spec = *fuzz::SpecRegistry::Find(type);
    const OpSchema* schema = OpSchemaRegistry::Find(type);
    ASSERT_NE(schema, nullptr) << type;
    // An op with no gradient at all (ArgMax, comparisons, Shape, StopGradient) is differentiated by
    // its spec on purpose: the gradient oracle checks that no gradient flows (finite differences
    // of a piecewise constant function are 0).
    if (!schema->differentiable()) continue;
    for (int seed = 1; seed <= kCasesPerOp; ++seed) {
      const Case c = fuzz::SampleCase(fuzz::OpCaseGen(spec), seed);
      const std::set<std::string> marked(c.grad_inputs().begin(), c.grad_inputs().end());
      for (const caffe2::OperatorDef& op : c.net().op()) {
        if (op.type() != type) continue;
        for (int i = 0; i < op.input_size(); ++i) {
          if (!marked.count(op.input(i))) continue;
          ++checked;
          EXPECT_TRUE(schema->IsDifferentiable(i))
              << type << " seed " << seed << ": the spec differentiates input " << i << " ('"
              << op.input(i) << "'), which the schema says is not differentiable";
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace parity

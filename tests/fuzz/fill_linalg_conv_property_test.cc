// Every applicable oracle on the fill/plumbing, linear-algebra, convolution and pooling specs
// (conv_spec_test.cc adds full-Jacobian checks for the latter).
#include <gtest/gtest.h>

#include "fuzz/testing/op_property.h"

namespace parity::fuzz {
namespace {

PARITY_OP_PROPERTY(ConstantFill);
PARITY_OP_PROPERTY(GivenTensorFill);
PARITY_OP_PROPERTY(GivenTensorDoubleFill);
PARITY_OP_PROPERTY(GivenTensorIntFill);
PARITY_OP_PROPERTY(GivenTensorInt64Fill);
PARITY_OP_PROPERTY(GivenTensorBoolFill);
PARITY_OP_PROPERTY(UniformFill);
PARITY_OP_PROPERTY(GaussianFill);
PARITY_OP_PROPERTY(XavierFill);
PARITY_OP_PROPERTY(Copy);
PARITY_OP_PROPERTY(Alias);
PARITY_OP_PROPERTY(ResizeLike);
PARITY_OP_PROPERTY(FC);
PARITY_OP_PROPERTY(FCTransposed);
PARITY_OP_PROPERTY(MatMul);
PARITY_OP_PROPERTY(BatchMatMul);
PARITY_OP_PROPERTY(Conv);
PARITY_OP_PROPERTY(MaxPool);
PARITY_OP_PROPERTY(AveragePool);

}  // namespace
}  // namespace parity::fuzz

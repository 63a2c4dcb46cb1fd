// Issue 3's op set, spelled out: every op has a schema and a CPU kernel, and `parity ops --json`
// (which lists OpSchemaRegistry::Types) therefore shows them all.
#include <gtest/gtest.h>

#include "core/operator.h"
#include "core/schema.h"

namespace parity {
namespace {

const char* const kOpSet[] = {
    // Elementwise binary, comparisons, logic.
    "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "LT", "LE", "GT", "GE", "EQ",
    "NE", "And", "Or", "Xor", "Not",
    // Elementwise unary.
    "Relu", "LeakyRelu", "Elu", "Sigmoid", "Tanh", "Softsign", "Exp", "Log", "Sqrt", "Sqr", "Abs",
    "Neg", "Reciprocal", "Sin", "Cos", "Clip", "Scale", "Cast", "StopGradient",
    // Linear algebra.
    "FC", "FCTransposed", "MatMul", "BatchMatMul",
    // Shape.
    "Reshape", "Transpose", "Concat", "Split", "Flatten", "FlattenToVec", "ExpandDims", "Squeeze",
    "Slice", "Shape", "Gather", "Tile",
    // Reductions and normalization.
    "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "SumElements", "Softmax", "SpatialBN",
    "LayerNorm", "LRN", "Dropout",
    // Losses.
    "SquaredL2Distance", "AveragedLoss", "LabelCrossEntropy", "SoftmaxWithLoss",
    "SigmoidCrossEntropyWithLogits",
    // Convolution and pooling.
    "Conv", "MaxPool", "AveragePool",
    // Fills and plumbing.
    "ConstantFill", "GivenTensorFill", "GivenTensorDoubleFill", "GivenTensorIntFill",
    "GivenTensorInt64Fill", "GivenTensorBoolFill", "UniformFill", "GaussianFill", "XavierFill",
    "Copy", "CopyCPUToGPU", "CopyGPUToCPU", "EnsureCPUOutput", "Alias",
    // Fused inference ops (the fuse_relu transform).
    "FCRelu", "ConvRelu",
    // RNN cells.
    "LSTMUnit", "GRUUnit"};

TEST(ProductionOps, EveryOpOfTheOpSetHasASchemaAndACpuKernel) {
  for (const char* type : kOpSet) {
    const OpSchema* schema = OpSchemaRegistry::Find(type);
    ASSERT_NE(schema, nullptr) << type << " has no schema";
    EXPECT_FALSE(schema->doc().empty()) << type << " has no documentation";
    EXPECT_TRUE(OperatorRegistry::HasKernel(type, kCpuDeviceType)) << type << " has no CPU kernel";
  }
}

TEST(ProductionOps, EveryOpHasShapeInferenceOrSaysWhyNot) {
  for (const char* type : kOpSet) {
    EXPECT_TRUE(OpSchemaRegistry::Get(type).has_shape_inference()) << type;
  }
}

}  // namespace
}  // namespace parity

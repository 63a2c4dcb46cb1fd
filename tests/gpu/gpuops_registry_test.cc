// The CUDA kernels of issue 19's second half are registered in a CUDA build (and only there), so
// `parity ops` lists them and the device oracle can pick them.
#include <gtest/gtest.h>

#include "core/operator.h"
#include "gpu/device.h"

namespace parity {
namespace {

TEST(GpuOpsRegistryTest, NormAndRnnCellKernelsRegisterUnderCuda) {
  for (const char* type : {"SpatialBN", "LayerNorm", "LSTMUnit", "GRUUnit", "LSTMUnitGradient",
                           "GRUUnitGradient", "SpatialBNGradient", "LayerNormGradient"}) {
    EXPECT_EQ(OperatorRegistry::HasKernel(type, kCudaDeviceType), gpu::CudaBuild()) << type;
    EXPECT_TRUE(OperatorRegistry::HasKernel(type, kCpuDeviceType)) << type;
  }
}

TEST(GpuOpsRegistryTest, ShapeKernelsRegisterUnderCuda) {
  for (const char* type : {"Reshape", "Flatten", "FlattenToVec", "ExpandDims", "Squeeze",
                           "Transpose", "Slice", "Concat", "Split", "Gather", "ResizeLike",
                           "SliceGradient", "GatherGradient", "Tile", "TileGradient"}) {
    EXPECT_EQ(OperatorRegistry::HasKernel(type, kCudaDeviceType), gpu::CudaBuild()) << type;
  }
}

TEST(GpuOpsRegistryTest, FillersRegisterUnderCuda) {
  for (const char* type : {"ConstantFill", "GivenTensorFill", "GivenTensorIntFill",
                           "GivenTensorInt64Fill", "GivenTensorBoolFill", "GivenTensorDoubleFill",
                           "UniformFill", "GaussianFill", "XavierFill"}) {
    EXPECT_EQ(OperatorRegistry::HasKernel(type, kCudaDeviceType), gpu::CudaBuild()) << type;
  }
}

TEST(GpuOpsRegistryTest, LossKernelsRegisterUnderCuda) {
  for (const char* type : {"SquaredL2Distance", "LabelCrossEntropy",
                           "SigmoidCrossEntropyWithLogits", "SoftmaxWithLoss",
                           "SquaredL2DistanceGradient", "LabelCrossEntropyGradient",
                           "SigmoidCrossEntropyWithLogitsGradient", "SoftmaxWithLossGradient"}) {
    EXPECT_EQ(OperatorRegistry::HasKernel(type, kCudaDeviceType), gpu::CudaBuild()) << type;
  }
}

}  // namespace
}  // namespace parity

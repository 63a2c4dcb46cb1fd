// SquaredL2Distance, LabelCrossEntropy, SigmoidCrossEntropyWithLogits and SoftmaxWithLoss:
// grid-stride loops around loss_body.h, one thread per row; SoftmaxWithLoss's scalar is summed by
// one thread over the rows' terms in row order (deterministic, no atomics).
#include "gpu/kernels/grid.h"
#include "gpu/kernels/loss.h"

namespace parity::gpu::kernels {
namespace {

__global__ void SquaredL2Kernel(const float* x, const float* y, int64_t n, int64_t d,
                                float* out) {
  PARITY_GRID_STRIDE_LOOP(i, n) { SquaredL2DistanceRow(i, x, y, d, out); }
}

template <typename Index>
__global__ void LabelCEKernel(const float* x, const Index* labels, int64_t n, int64_t d,
                              float* out) {
  PARITY_GRID_STRIDE_LOOP(i, n) { LabelCrossEntropyRow(i, x, labels, d, out); }
}

__global__ void SigmoidCEKernel(const float* x, const float* t, int64_t outer, int64_t inner,
                                SigmoidCEMode mode, float* out) {
  PARITY_GRID_STRIDE_LOOP(i, outer) { SigmoidCERow(i, x, t, inner, mode, out); }
}

template <typename Index>
__global__ void SoftmaxLossRowsKernel(const float* x, int64_t n, int64_t d, const Index* labels,
                                      const float* probs, const float* weights, float* p,
                                      double* row_loss, double* row_weight) {
  PARITY_GRID_STRIDE_LOOP(i, n) {
    SoftmaxLossRow(i, x, d, labels, probs, weights, p, row_loss, row_weight);
  }
}

__global__ void SoftmaxLossTotalKernel(const double* row_loss, const double* row_weight,
                                       int64_t n, double scale, float* loss) {
  if (blockIdx.x == 0 && threadIdx.x == 0) SoftmaxLossTotal(row_loss, row_weight, n, scale, loss);
}

__global__ void SquaredL2GradKernel(const float* x, const float* y, const float* g, int64_t numel,
                                    int64_t d, float* dx, float* dy) {
  PARITY_GRID_STRIDE_LOOP(k, numel) { SquaredL2DistanceGradientElement(k, x, y, g, d, dx, dy); }
}

template <typename Index>
__global__ void LabelCEGradKernel(const float* x, const Index* labels, const float* g,
                                  int64_t numel, int64_t d, float* dx) {
  PARITY_GRID_STRIDE_LOOP(k, numel) { LabelCrossEntropyGradientElement(k, x, labels, g, d, dx); }
}

template <typename Index>
__global__ void SoftmaxLossGradKernel(const float* p, int64_t numel, int64_t d,
                                      const Index* labels, const float* probs,
                                      const float* weights, double factor, float* dx) {
  PARITY_GRID_STRIDE_LOOP(k, numel) {
    SoftmaxLossGradientElement(k, p, d, labels, probs, weights, factor, dx);
  }
}

__global__ void SigmoidCEGradKernel(const float* g, const float* x, const float* t,
                                    int64_t numel, int64_t inner, SigmoidCEMode mode,
                                    float* dx) {
  PARITY_GRID_STRIDE_LOOP(k, numel) { SigmoidCEGradientElement(k, g, x, t, inner, mode, dx); }
}

}  // namespace

void SquaredL2DistanceFloat(const float* x, const float* y, int64_t n, int64_t d, float* out,
                            cudaStream_t stream) {
  if (n == 0) return;
  SquaredL2Kernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(x, y, n, d, out);
}

void LabelCrossEntropyFloat(const float* x, const void* labels, bool labels_64, int64_t n,
                            int64_t d, float* out, cudaStream_t stream) {
  if (n == 0) return;
  if (labels_64) {
    LabelCEKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(
        x, static_cast<const int64_t*>(labels), n, d, out);
  } else {
    LabelCEKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(
        x, static_cast<const int32_t*>(labels), n, d, out);
  }
}

void SigmoidCrossEntropyFloat(const float* x, const float* t, int64_t outer, int64_t inner,
                              SigmoidCEMode mode, float* out, cudaStream_t stream) {
  if (outer == 0) return;
  SigmoidCEKernel<<<GridBlocks(outer), kGridThreads, 0, stream>>>(x, t, outer, inner, mode, out);
}

void SoftmaxWithLossFloat(const float* x, int64_t n, int64_t d, const void* labels,
                          bool labels_64, const float* probs, const float* weights, double scale,
                          float* p, double* row_terms, float* loss, cudaStream_t stream) {
  double* row_loss = row_terms;
  double* row_weight = row_terms + n;
  if (n > 0) {
    if (labels_64) {
      SoftmaxLossRowsKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(
          x, n, d, static_cast<const int64_t*>(labels), probs, weights, p, row_loss, row_weight);
    } else {
      SoftmaxLossRowsKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(
          x, n, d, static_cast<const int32_t*>(labels), probs, weights, p, row_loss, row_weight);
    }
  }
  // Always: an empty batch's loss is 0 (the weights sum to 0), written on the device.
  SoftmaxLossTotalKernel<<<1, 1, 0, stream>>>(row_loss, row_weight, n, scale, loss);
}

void SquaredL2DistanceGradientFloat(const float* x, const float* y, const float* g, int64_t n,
                                    int64_t d, float* dx, float* dy, cudaStream_t stream) {
  const int64_t numel = n * d;
  if (numel == 0) return;
  SquaredL2GradKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(x, y, g, numel, d, dx, dy);
}

void LabelCrossEntropyGradientFloat(const float* x, const void* labels, bool labels_64,
                                    const float* g, int64_t n, int64_t d, float* dx,
                                    cudaStream_t stream) {
  const int64_t numel = n * d;
  if (numel == 0) return;
  if (labels_64) {
    LabelCEGradKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(
        x, static_cast<const int64_t*>(labels), g, numel, d, dx);
  } else {
    LabelCEGradKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(
        x, static_cast<const int32_t*>(labels), g, numel, d, dx);
  }
}

void SoftmaxWithLossGradientFloat(const float* p, int64_t n, int64_t d, const void* labels,
                                  bool labels_64, const float* probs, const float* weights,
                                  double factor, float* dx, cudaStream_t stream) {
  const int64_t numel = n * d;
  if (numel == 0) return;
  if (labels_64) {
    SoftmaxLossGradKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(
        p, numel, d, static_cast<const int64_t*>(labels), probs, weights, factor, dx);
  } else {
    SoftmaxLossGradKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(
        p, numel, d, static_cast<const int32_t*>(labels), probs, weights, factor, dx);
  }
}

void SigmoidCrossEntropyGradientFloat(const float* g, const float* x, const float* t,
                                      int64_t outer, int64_t inner, SigmoidCEMode mode,
                                      float* dx, cudaStream_t stream) {
  const int64_t numel = outer * inner;
  if (numel == 0) return;
  SigmoidCEGradKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(g, x, t, numel, inner, mode,
                                                                      dx);
}

}  // namespace parity::gpu::kernels

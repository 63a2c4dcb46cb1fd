// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss and their gradients: grid-stride loops around
// class_loss_body.h, one thread per target position (log-softmax, loss terms, gradient scales) or
// per element (gradients); the reductions over positions are one thread's serial sums in position
// order (deterministic, no atomics).
#include "gpu/kernels/class_loss.h"
#include "gpu/kernels/grid.h"

namespace parity::gpu::kernels {
namespace {

__global__ void LogSoftmaxKernel(const float* x, ClassDims s, float* out) {
  PARITY_GRID_STRIDE_LOOP(p, s.n * s.d) { LogSoftmaxPosition(p, x, s, out); }
}

__global__ void LossTermKernel(const float* logp, const int64_t* classes, const float* weights,
                               ClassDims s, ClassReduction reduction, float* y, double* term,
                               double* weight) {
  PARITY_GRID_STRIDE_LOOP(p, s.n * s.d) {
    ClassLossTerm(p, logp, classes, weights, s, reduction, y, term, weight);
  }
}

__global__ void LossTotalKernel(int64_t positions, const double* term, const double* weight,
                                const int64_t* classes, ClassReduction reduction, float* y) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    ClassLossTotal(positions, term, weight, classes, reduction, y);
  }
}

__global__ void WeightTotalKernel(int64_t positions, const int64_t* classes, const float* weights,
                                  double* total) {
  if (blockIdx.x == 0 && threadIdx.x == 0) ClassWeightTotal(positions, classes, weights, total);
}

__global__ void NllGradKernel(const int64_t* classes, const float* weights, const float* dloss,
                              ClassDims s, ClassReduction reduction, const double* weight_total,
                              float* dx) {
  PARITY_GRID_STRIDE_LOOP(k, s.n * s.c * s.d) {
    NllGradientElement(k, classes, weights, dloss, s, reduction, weight_total, dx);
  }
}

__global__ void SceGradPositionKernel(const float* x, const int64_t* classes, const float* weights,
                                      const float* dloss, ClassDims s, ClassReduction reduction,
                                      const double* weight_total, float* stats, double* scale) {
  PARITY_GRID_STRIDE_LOOP(p, s.n * s.d) {
    SceGradientPosition(p, x, classes, weights, dloss, s, reduction, weight_total, stats, scale);
  }
}

__global__ void SceGradElementKernel(const float* x, const int64_t* classes, ClassDims s,
                                     const float* stats, const double* scale, float* dx) {
  PARITY_GRID_STRIDE_LOOP(k, s.n * s.c * s.d) {
    SceGradientElement(k, x, classes, s, stats, scale, dx);
  }
}

// The kMean divisor, only where a gradient needs it (one thread).
void WeightTotal(const int64_t* classes, const float* weights, const ClassDims& s,
                 ClassReduction reduction, double* total, cudaStream_t stream) {
  if (reduction != ClassReduction::kMean) return;
  WeightTotalKernel<<<1, 1, 0, stream>>>(s.n * s.d, classes, weights, total);
}

}  // namespace

void LogSoftmaxClassesFloat(const float* x, const ClassDims& s, float* log_prob,
                            cudaStream_t stream) {
  const int64_t positions = s.n * s.d;
  if (positions == 0) return;
  LogSoftmaxKernel<<<GridBlocks(positions), kGridThreads, 0, stream>>>(x, s, log_prob);
}

void ClassLossFloat(const float* logp, const int64_t* classes, const float* weights,
                    const ClassDims& s, ClassReduction reduction, double* scratch, float* y,
                    cudaStream_t stream) {
  const int64_t positions = s.n * s.d;
  if (positions > 0) {
    LossTermKernel<<<GridBlocks(positions), kGridThreads, 0, stream>>>(
        logp, classes, weights, s, reduction, y, scratch, scratch + positions);
  }
  // Always for sum and mean: no positions give 0 (sum) or 0 / 0 = NaN (mean), as on the CPU.
  if (reduction != ClassReduction::kNone) {
    LossTotalKernel<<<1, 1, 0, stream>>>(positions, scratch, scratch + positions, classes,
                                         reduction, y);
  }
}

void NllGradientFloat(const int64_t* classes, const float* weights, const float* dloss,
                      const ClassDims& s, ClassReduction reduction, double* scratch, float* dx,
                      cudaStream_t stream) {
  const int64_t numel = s.n * s.c * s.d;
  if (numel == 0) return;
  WeightTotal(classes, weights, s, reduction, scratch, stream);
  NllGradKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(classes, weights, dloss, s,
                                                                reduction, scratch, dx);
}

void SceGradientFloat(const float* x, const int64_t* classes, const float* weights,
                      const float* dloss, const ClassDims& s, ClassReduction reduction,
                      double* scratch, float* dx, cudaStream_t stream) {
  const int64_t positions = s.n * s.d, numel = positions * s.c;
  if (numel == 0) return;
  double* total = scratch;
  double* scale = scratch + 1;
  float* stats = reinterpret_cast<float*>(scratch + 1 + positions);  // 2 floats per position
  WeightTotal(classes, weights, s, reduction, total, stream);
  SceGradPositionKernel<<<GridBlocks(positions), kGridThreads, 0, stream>>>(
      x, classes, weights, dloss, s, reduction, total, stats, scale);
  SceGradElementKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(x, classes, s, stats, scale,
                                                                       dx);
}

}  // namespace parity::gpu::kernels

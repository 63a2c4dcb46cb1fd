// SpatialBN, LayerNorm, LSTMUnit and GRUUnit: grid-stride loops around the bodies of
// norm_body.h / rnn_unit_body.h. Statistics are summed serially by one thread per channel or row
// (deterministic, no atomics): slower than a tree for wide rows, but the same bits every run and
// the CPU's summation order where the CPU's is serial.
#include "gpu/kernels/grid.h"
#include "gpu/kernels/norm_rnn.h"
#include "gpu/kernels/rnn_unit_body.h"

namespace parity::gpu::kernels {
namespace {

__global__ void BNInferenceKernel(const float* scale, const float* bias, const float* mean,
                                  const float* var, double epsilon, int64_t c, float* alpha,
                                  float* shift, float* beta) {
  PARITY_GRID_STRIDE_LOOP(i, c) {
    BNInferenceCoefficients(i, scale, bias, mean, var, epsilon, alpha, shift, beta);
  }
}

__global__ void BNTrainKernel(const float* x, BNShape shape, BNTrainArgs args, const float* scale,
                              const float* bias, float* running_mean, float* running_var,
                              float* saved_mean, float* saved_rstd, float* alpha, float* shift,
                              float* beta) {
  PARITY_GRID_STRIDE_LOOP(c, shape.c) {
    BNTrainChannel(c, x, shape, args, scale, bias, running_mean, running_var, saved_mean,
                   saved_rstd, alpha, shift, beta);
  }
}

__global__ void BNApplyKernel(const float* x, BNShape shape, const float* alpha,
                              const float* shift, const float* beta, float* y, int64_t numel) {
  PARITY_GRID_STRIDE_LOOP(i, numel) { BNApply(i, x, shape, alpha, shift, beta, y); }
}

__global__ void BNGradientChannelKernel(const float* x, const float* dy, BNShape shape,
                                        bool is_test, double epsilon, const float* scale,
                                        const float* stat_mean, const float* stat_second,
                                        float* dscale, float* dbias, float* coefficients) {
  PARITY_GRID_STRIDE_LOOP(c, shape.c) {
    BNGradientChannel(c, x, dy, shape, is_test, epsilon, scale, stat_mean, stat_second, dscale,
                      dbias, coefficients);
  }
}

__global__ void BNGradientApplyKernel(const float* x, const float* dy, BNShape shape,
                                      const float* coefficients, float* dx, int64_t numel) {
  PARITY_GRID_STRIDE_LOOP(i, numel) { BNGradientApply(i, x, dy, shape, coefficients, dx); }
}

__global__ void LayerNormGradientKernel(const float* dy, const float* x, const float* mean,
                                        const float* sd, const float* gamma, int64_t m,
                                        int64_t n, float* dx) {
  PARITY_GRID_STRIDE_LOOP(row, m) { LayerNormGradientRow(row, dy, x, mean, sd, gamma, n, dx); }
}

__global__ void LayerNormParamGradientKernel(const float* dy, const float* x, const float* mean,
                                             const float* sd, int64_t m, int64_t n,
                                             float* dgamma, float* dbeta) {
  PARITY_GRID_STRIDE_LOOP(j, n) {
    LayerNormParamGradientColumn(j, dy, x, mean, sd, m, n, dgamma, dbeta);
  }
}

__global__ void LayerNormKernel(const float* x, int64_t m, int64_t n, float epsilon,
                                const float* gamma, const float* beta, float* y, float* mean,
                                float* sd) {
  PARITY_GRID_STRIDE_LOOP(row, m) { LayerNormRow(row, x, n, epsilon, gamma, beta, y, mean, sd); }
}

__global__ void LSTMUnitKernel(const float* h_prev, const float* c_prev, const float* gates,
                               const int32_t* valid, int64_t numel, int64_t d, float forget_bias,
                               bool drop_states, float* h, float* c) {
  PARITY_GRID_STRIDE_LOOP(i, numel) {
    LSTMUnitElement(i, d, h_prev, c_prev, gates, valid, forget_bias, drop_states, h, c);
  }
}

__global__ void GRUUnitKernel(const float* h_prev, const float* gates, const int32_t* valid,
                              int64_t numel, int64_t d, bool drop_states, float* h) {
  PARITY_GRID_STRIDE_LOOP(i, numel) { GRUUnitElement(i, d, h_prev, gates, valid, drop_states, h); }
}

__global__ void LSTMUnitGradientKernel(const float* c_prev, const float* gates, const float* c,
                                       const float* dh, const float* dc, const int32_t* valid,
                                       int64_t numel, int64_t d, float forget_bias,
                                       bool drop_states, float* dh_prev, float* dc_prev,
                                       float* dgates) {
  PARITY_GRID_STRIDE_LOOP(i, numel) {
    LSTMUnitGradientElement(i, d, c_prev, gates, c, dh, dc, valid, forget_bias, drop_states,
                            dh_prev, dc_prev, dgates);
  }
}

__global__ void GRUUnitGradientKernel(const float* h_prev, const float* gates, const float* dh,
                                      const int32_t* valid, int64_t numel, int64_t d,
                                      bool drop_states, float* dh_prev, float* dgates) {
  PARITY_GRID_STRIDE_LOOP(i, numel) {
    GRUUnitGradientElement(i, d, h_prev, gates, dh, valid, drop_states, dh_prev, dgates);
  }
}

}  // namespace

void BNInferenceCoefficientsFloat(const float* scale, const float* bias, const float* mean,
                                  const float* var, double epsilon, int64_t c, float* alpha,
                                  float* shift, float* beta, cudaStream_t stream) {
  if (c == 0) return;
  BNInferenceKernel<<<GridBlocks(c), kGridThreads, 0, stream>>>(scale, bias, mean, var, epsilon,
                                                                c, alpha, shift, beta);
}

void BNTrainFloat(const float* x, const BNShape& shape, const BNTrainArgs& args,
                  const float* scale, const float* bias, float* running_mean, float* running_var,
                  float* saved_mean, float* saved_rstd, float* alpha, float* shift, float* beta,
                  cudaStream_t stream) {
  if (shape.c == 0) return;
  BNTrainKernel<<<GridBlocks(shape.c), kGridThreads, 0, stream>>>(
      x, shape, args, scale, bias, running_mean, running_var, saved_mean, saved_rstd, alpha, shift,
      beta);
}

void BNApplyFloat(const float* x, const BNShape& shape, const float* alpha, const float* shift,
                  const float* beta, float* y, int64_t numel, cudaStream_t stream) {
  if (numel == 0) return;
  BNApplyKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(x, shape, alpha, shift, beta, y,
                                                                numel);
}

void BNGradientFloat(const float* x, const float* dy, const BNShape& shape, bool is_test,
                     double epsilon, const float* scale, const float* stat_mean,
                     const float* stat_second, float* dscale, float* dbias, float* coefficients,
                     float* dx, cudaStream_t stream) {
  if (shape.c == 0) return;
  BNGradientChannelKernel<<<GridBlocks(shape.c), kGridThreads, 0, stream>>>(
      x, dy, shape, is_test, epsilon, scale, stat_mean, stat_second, dscale, dbias, coefficients);
  const int64_t numel = shape.n * shape.c * shape.hxw;
  if (numel == 0) return;
  // After the channel kernel on the same stream: dX may overwrite dY (in place).
  BNGradientApplyKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(x, dy, shape,
                                                                        coefficients, dx, numel);
}

void LayerNormGradientFloat(const float* dy, const float* x, const float* mean, const float* sd,
                            const float* gamma, int64_t m, int64_t n, float* dx, float* dgamma,
                            float* dbeta, cudaStream_t stream) {
  // The parameter gradients first: they read dY, which dX may overwrite (in place).
  if (gamma != nullptr && n > 0) {
    LayerNormParamGradientKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(dy, x, mean, sd, m,
                                                                             n, dgamma, dbeta);
  }
  if (m == 0) return;
  LayerNormGradientKernel<<<GridBlocks(m), kGridThreads, 0, stream>>>(dy, x, mean, sd, gamma, m,
                                                                      n, dx);
}

void LayerNormFloat(const float* x, int64_t m, int64_t n, float epsilon, const float* gamma,
                    const float* beta, float* y, float* mean, float* sd, cudaStream_t stream) {
  if (m == 0) return;
  LayerNormKernel<<<GridBlocks(m), kGridThreads, 0, stream>>>(x, m, n, epsilon, gamma, beta, y,
                                                              mean, sd);
}

void LSTMUnitFloat(const float* h_prev, const float* c_prev, const float* gates,
                   const int32_t* valid, int64_t n, int64_t d, float forget_bias,
                   bool drop_states, float* h, float* c, cudaStream_t stream) {
  const int64_t numel = n * d;
  if (numel == 0) return;
  LSTMUnitKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(
      h_prev, c_prev, gates, valid, numel, d, forget_bias, drop_states, h, c);
}

void GRUUnitFloat(const float* h_prev, const float* gates, const int32_t* valid, int64_t n,
                  int64_t d, bool drop_states, float* h, cudaStream_t stream) {
  const int64_t numel = n * d;
  if (numel == 0) return;
  GRUUnitKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(h_prev, gates, valid, numel, d,
                                                                drop_states, h);
}

void LSTMUnitGradientFloat(const float* c_prev, const float* gates, const float* c,
                           const float* dh, const float* dc, const int32_t* valid, int64_t n,
                           int64_t d, float forget_bias, bool drop_states, float* dh_prev,
                           float* dc_prev, float* dgates, cudaStream_t stream) {
  const int64_t numel = n * d;
  if (numel == 0) return;
  LSTMUnitGradientKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(
      c_prev, gates, c, dh, dc, valid, numel, d, forget_bias, drop_states, dh_prev, dc_prev,
      dgates);
}

void GRUUnitGradientFloat(const float* h_prev, const float* gates, const float* dh,
                          const int32_t* valid, int64_t n, int64_t d, bool drop_states,
                          float* dh_prev, float* dgates, cudaStream_t stream) {
  const int64_t numel = n * d;
  if (numel == 0) return;
  GRUUnitGradientKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(
      h_prev, gates, dh, valid, numel, d, drop_states, dh_prev, dgates);
}

}  // namespace parity::gpu::kernels

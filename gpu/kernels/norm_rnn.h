// Launchers of the normalization and RNN-cell kernels (bodies in norm_body.h and rnn_unit_body.h,
// tested on the host by tests/gpu/bodies). Device pointers; each enqueues on `stream` and returns
// at once, like kernels.h's.
#ifndef PARITY_GPU_KERNELS_NORM_RNN_H_
#define PARITY_GPU_KERNELS_NORM_RNN_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/kernels/norm_body.h"

namespace parity::gpu::kernels {

// SpatialBN's per-channel coefficients (alpha, shift, beta: c floats each), from the given
// statistics (inference) or the batch's (training, which also updates the running statistics in
// place and writes saved_mean / saved_rstd); then Y from them.
void BNInferenceCoefficientsFloat(const float* scale, const float* bias, const float* mean,
                                  const float* var, double epsilon, int64_t c, float* alpha,
                                  float* shift, float* beta, cudaStream_t stream);
void BNTrainFloat(const float* x, const BNShape& shape, const BNTrainArgs& args,
                  const float* scale, const float* bias, float* running_mean, float* running_var,
                  float* saved_mean, float* saved_rstd, float* alpha, float* shift, float* beta,
                  cudaStream_t stream);
void BNApplyFloat(const float* x, const BNShape& shape, const float* alpha, const float* shift,
                  const float* beta, float* y, int64_t numel, cudaStream_t stream);

// SpatialBNGradient: per-channel sums and coefficients (4c floats of scratch), then dX.
void BNGradientFloat(const float* x, const float* dy, const BNShape& shape, bool is_test,
                     double epsilon, const float* scale, const float* stat_mean,
                     const float* stat_second, float* dscale, float* dbias, float* coefficients,
                     float* dx, cudaStream_t stream);

// LayerNormGradient over m rows of n; gamma, dgamma and dbeta null without elementwise_affine.
void LayerNormGradientFloat(const float* dy, const float* x, const float* mean, const float* sd,
                            const float* gamma, int64_t m, int64_t n, float* dx, float* dgamma,
                            float* dbeta, cudaStream_t stream);

// LayerNorm over m rows of n (gamma / beta null without elementwise_affine).
void LayerNormFloat(const float* x, int64_t m, int64_t n, float epsilon, const float* gamma,
                    const float* beta, float* y, float* mean, float* sd, cudaStream_t stream);

// One LSTMUnit / GRUUnit step over N rows of D; valid: N int32 flags (device memory).
void LSTMUnitFloat(const float* h_prev, const float* c_prev, const float* gates,
                   const int32_t* valid, int64_t n, int64_t d, float forget_bias,
                   bool drop_states, float* h, float* c, cudaStream_t stream);
void GRUUnitFloat(const float* h_prev, const float* gates, const int32_t* valid, int64_t n,
                  int64_t d, bool drop_states, float* h, cudaStream_t stream);

// Their gradients (rnn_unit_body.h's *GradientElement), N rows of D.
void LSTMUnitGradientFloat(const float* c_prev, const float* gates, const float* c,
                           const float* dh, const float* dc, const int32_t* valid, int64_t n,
                           int64_t d, float forget_bias, bool drop_states, float* dh_prev,
                           float* dc_prev, float* dgates, cudaStream_t stream);
void GRUUnitGradientFloat(const float* h_prev, const float* gates, const float* dh,
                          const int32_t* valid, int64_t n, int64_t d, bool drop_states,
                          float* dh_prev, float* dgates, cudaStream_t stream);

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_NORM_RNN_H_

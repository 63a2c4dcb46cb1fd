// Launchers of Range, Trilu, GatherElements (+ gradient) and Mod (+ gradient) (bodies in
// misc_body.h, tested on the host by tests/gpu/misc_body_test.cc). Device pointers; indices are
// int32 (index_is_64 false) or int64, already range-checked on the host.
#ifndef PARITY_GPU_KERNELS_MISC_H_
#define PARITY_GPU_KERNELS_MISC_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu/kernels/misc_body.h"

namespace parity::gpu::kernels {

// The dtypes of Range and Mod, named for the launchers' switch.
enum class MiscType { kFloat, kDouble, kInt8, kInt16, kInt32, kInt64, kUInt8, kUInt16 };

// y[i] = start + i * step for i < n; start and step point to one host value of the dtype
// (float, double, int32 or int64).
void Range(MiscType type, const void* start, const void* step, void* y, int64_t n,
           cudaStream_t stream);

// numel elements of matrices rows x cols of `esize` bytes (4 or 8); y may be x.
void Trilu(const void* x, void* y, int64_t numel, int64_t rows, int64_t cols, bool upper, int64_t k,
           size_t esize, cudaStream_t stream);

// OUTPUT (numel elements, INDICES' count) of `esize` bytes (1, 2, 4 or 8).
void GatherElements(const void* data, const void* idx, bool index_is_64, void* out, int64_t numel,
                    size_t esize, const GatherElementsGeometry& g, cudaStream_t stream);
// dDATA (numel elements, DATA's count), float or double (is_double).
void GatherElementsGradient(const void* dy, const void* idx, bool index_is_64, void* ddata,
                            int64_t numel, bool is_double, const GatherElementsGeometry& g,
                            cudaStream_t stream);

// y (n elements) = a mod b, broadcast by g; every dtype of MiscType.
void Mod(MiscType type, const void* a, const void* b, void* y, int64_t n, bool sign_follows_divisor,
         const BroadcastGeometry& g, cudaStream_t stream);

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_MISC_H_

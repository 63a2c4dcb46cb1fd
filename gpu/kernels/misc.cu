// Range, Trilu, GatherElements (+ gradient) and Mod (+ gradient): grid-stride loops around
// misc_body.h, one thread per output element (deterministic, no atomics).
#include "gpu/kernels/grid.h"
#include "gpu/kernels/misc.h"

namespace parity::gpu::kernels {
namespace {

template <typename T>
__global__ void RangeKernel(T start, T step, T* y, int64_t n) {
  PARITY_GRID_STRIDE_LOOP(i, n) { RangeBody(start, step, y, i); }
}

template <typename T>
void LaunchRange(const void* start, const void* step, void* y, int64_t n, cudaStream_t stream) {
  RangeKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(
      *static_cast<const T*>(start), *static_cast<const T*>(step), static_cast<T*>(y), n);
}

template <typename Word>
__global__ void TriluKernel(const Word* x, Word* y, int64_t numel, int64_t rows, int64_t cols,
                            bool upper, int64_t k) {
  PARITY_GRID_STRIDE_LOOP(at, numel) { TriluBody(x, y, rows, cols, upper, k, at); }
}

template <typename Word, typename Index>
__global__ void GatherElementsKernel(const Word* data, const Index* idx, Word* out, int64_t numel,
                                     GatherElementsGeometry g) {
  PARITY_GRID_STRIDE_LOOP(k, numel) { GatherElementsBody(data, idx, out, g, k); }
}

template <typename T, typename Index>
__global__ void GatherElementsGradKernel(const T* dy, const Index* idx, T* ddata, int64_t numel,
                                         GatherElementsGeometry g) {
  PARITY_GRID_STRIDE_LOOP(to, numel) { GatherElementsGradientBody(dy, idx, ddata, g, to); }
}

template <typename T>
__global__ void ModKernel(const T* a, const T* b, T* y, int64_t n, bool sign_follows_divisor,
                          BroadcastGeometry g) {
  PARITY_GRID_STRIDE_LOOP(i, n) { ModBody(a, b, y, sign_follows_divisor, g, i); }
}

template <typename T>
void LaunchMod(const void* a, const void* b, void* y, int64_t n, bool sign_follows_divisor,
               const BroadcastGeometry& g, cudaStream_t stream) {
  ModKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(
      static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(y), n,
      sign_follows_divisor, g);
}

}  // namespace

void Range(MiscType type, const void* start, const void* step, void* y, int64_t n,
           cudaStream_t stream) {
  if (n == 0) return;
  switch (type) {
    case MiscType::kFloat:
      return LaunchRange<float>(start, step, y, n, stream);
    case MiscType::kDouble:
      return LaunchRange<double>(start, step, y, n, stream);
    case MiscType::kInt32:
      return LaunchRange<int32_t>(start, step, y, n, stream);
    case MiscType::kInt64:
      return LaunchRange<int64_t>(start, step, y, n, stream);
    default:
      return;  // not a dtype of Range (the op checked)
  }
}

void Trilu(const void* x, void* y, int64_t numel, int64_t rows, int64_t cols, bool upper, int64_t k,
           size_t esize, cudaStream_t stream) {
  if (numel == 0) return;
  WithWord(esize, [&](auto word) {
    using W = decltype(word);
    TriluKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(
        static_cast<const W*>(x), static_cast<W*>(y), numel, rows, cols, upper, k);
  });
}

void GatherElements(const void* data, const void* idx, bool index_is_64, void* out, int64_t numel,
                    size_t esize, const GatherElementsGeometry& g, cudaStream_t stream) {
  if (numel == 0) return;
  WithWord(esize, [&](auto word) {
    using W = decltype(word);
    WithIndex(idx, index_is_64, [&](auto indices) {
      GatherElementsKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(
          static_cast<const W*>(data), indices, static_cast<W*>(out), numel, g);
    });
  });
}

void GatherElementsGradient(const void* dy, const void* idx, bool index_is_64, void* ddata,
                            int64_t numel, bool is_double, const GatherElementsGeometry& g,
                            cudaStream_t stream) {
  if (numel == 0) return;
  WithIndex(idx, index_is_64, [&](auto indices) {
    if (is_double) {
      GatherElementsGradKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(
          static_cast<const double*>(dy), indices, static_cast<double*>(ddata), numel, g);
    } else {
      GatherElementsGradKernel<<<GridBlocks(numel), kGridThreads, 0, stream>>>(
          static_cast<const float*>(dy), indices, static_cast<float*>(ddata), numel, g);
    }
  });
}

void Mod(MiscType type, const void* a, const void* b, void* y, int64_t n, bool sign_follows_divisor,
         const BroadcastGeometry& g, cudaStream_t stream) {
  if (n == 0) return;
  const bool s = sign_follows_divisor;
  switch (type) {
    case MiscType::kFloat:
      return LaunchMod<float>(a, b, y, n, s, g, stream);
    case MiscType::kDouble:
      return LaunchMod<double>(a, b, y, n, s, g, stream);
    case MiscType::kInt8:
      return LaunchMod<int8_t>(a, b, y, n, s, g, stream);
    case MiscType::kInt16:
      return LaunchMod<int16_t>(a, b, y, n, s, g, stream);
    case MiscType::kInt32:
      return LaunchMod<int32_t>(a, b, y, n, s, g, stream);
    case MiscType::kInt64:
      return LaunchMod<int64_t>(a, b, y, n, s, g, stream);
    case MiscType::kUInt8:
      return LaunchMod<uint8_t>(a, b, y, n, s, g, stream);
    case MiscType::kUInt16:
      return LaunchMod<uint16_t>(a, b, y, n, s, g, stream);
  }
}

}  // namespace parity::gpu::kernels

// Kernels beyond float: grid-stride loops around dtype_body.h, one instantiation per element type
// (per word size for Where's select, which moves bits).
#include <cuda_runtime.h>

#include "gpu/kernels/dtype.h"
#include "gpu/kernels/grid.h"

namespace parity::gpu::kernels {
namespace {

// Calls f(T{}) for the C++ type of `type`.
template <typename F>
void Visit(ElementType type, F&& f) {
  switch (type) {
    case ElementType::kFloat:
      f(float{});
      return;
    case ElementType::kDouble:
      f(double{});
      return;
    case ElementType::kInt8:
      f(int8_t{});
      return;
    case ElementType::kInt16:
      f(int16_t{});
      return;
    case ElementType::kInt32:
      f(int32_t{});
      return;
    case ElementType::kInt64:
      f(int64_t{});
      return;
    case ElementType::kUint8:
      f(uint8_t{});
      return;
    case ElementType::kUint16:
      f(uint16_t{});
      return;
    case ElementType::kBool:
      f(bool{});
      return;
  }
}

template <typename T>
__global__ void ArithmeticKernel(Binary fn, const T* a, const T* b, T* y, int64_t n,
                                 BroadcastGeometry g) {
  PARITY_GRID_STRIDE_LOOP(i, n) { ArithmeticBody<T>(fn, a, b, y, g, i); }
}

template <typename T>
__global__ void ZeroFlagKernel(const T* b, int32_t* flag, int64_t n) {
  PARITY_GRID_STRIDE_LOOP(i, n) { ZeroFlagBody<T>(b, flag, i); }
}

template <typename T>
__global__ void CompareKernel(Compare fn, const T* a, const T* b, bool* y, int64_t n,
                              BroadcastGeometry g) {
  PARITY_GRID_STRIDE_LOOP(i, n) { CompareBody<T>(fn, a, b, y, g, i); }
}

__global__ void LogicalKernel(Logical fn, const bool* a, const bool* b, bool* y, int64_t n,
                              BroadcastGeometry g) {
  PARITY_GRID_STRIDE_LOOP(i, n) { LogicalBody(fn, a, b, y, g, i); }
}

__global__ void NotKernel(const bool* x, bool* y, int64_t n) {
  PARITY_GRID_STRIDE_LOOP(i, n) { NotBody(x, y, i); }
}

template <typename W>
__global__ void WhereKernel(const bool* c, const W* x, const W* y, W* z, int64_t n,
                            WhereGeometry g) {
  PARITY_GRID_STRIDE_LOOP(i, n) { WhereBody<W>(c, x, y, z, g, i); }
}

template <typename T>
__global__ void WhereGradKernel(bool when_true, const bool* c, const T* dz, T* d, int64_t n,
                                int64_t count, ReduceGeometry r, BroadcastGeometry c_of) {
  PARITY_GRID_STRIDE_LOOP(i, n) { WhereGradBody<T>(when_true, c, dz, d, count, r, c_of, i); }
}

template <typename To, typename From>
__global__ void CastKernel(const From* x, To* y, int64_t n) {
  PARITY_GRID_STRIDE_LOOP(i, n) { CastBody<To, From>(x, y, i); }
}

}  // namespace

void BinaryTyped(Binary fn, ElementType type, const void* a, const void* b, void* y, int64_t n,
                 const BroadcastGeometry& geometry, cudaStream_t stream) {
  if (n == 0) return;
  Visit(type, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (!std::is_same_v<T, bool>) {
      ArithmeticKernel<T><<<GridBlocks(n), kGridThreads, 0, stream>>>(
          fn, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(y), n, geometry);
    }
  });
}

void ZeroDivisorFlag(ElementType type, const void* b, int64_t n, int32_t* flag,
                     cudaStream_t stream) {
  cudaMemsetAsync(flag, 0, sizeof(int32_t), stream);
  if (n == 0) return;
  Visit(type, [&](auto zero) {
    using T = decltype(zero);
    ZeroFlagKernel<T>
        <<<GridBlocks(n), kGridThreads, 0, stream>>>(static_cast<const T*>(b), flag, n);
  });
}

void CompareTyped(Compare fn, ElementType type, const void* a, const void* b, bool* y, int64_t n,
                  const BroadcastGeometry& geometry, cudaStream_t stream) {
  if (n == 0) return;
  Visit(type, [&](auto zero) {
    using T = decltype(zero);
    CompareKernel<T><<<GridBlocks(n), kGridThreads, 0, stream>>>(
        fn, static_cast<const T*>(a), static_cast<const T*>(b), y, n, geometry);
  });
}

void LogicalBool(Logical fn, const bool* a, const bool* b, bool* y, int64_t n,
                 const BroadcastGeometry& geometry, cudaStream_t stream) {
  if (n == 0) return;
  LogicalKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(fn, a, b, y, n, geometry);
}

void NotBool(const bool* x, bool* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  NotKernel<<<GridBlocks(n), kGridThreads, 0, stream>>>(x, y, n);
}

void WhereSelect(const bool* c, const void* x, const void* y, void* z, int64_t n, size_t esize,
                 const WhereGeometry& geometry, cudaStream_t stream) {
  if (n == 0) return;
  auto launch = [&](auto word) {
    using W = decltype(word);
    WhereKernel<W><<<GridBlocks(n), kGridThreads, 0, stream>>>(
        c, static_cast<const W*>(x), static_cast<const W*>(y), static_cast<W*>(z), n, geometry);
  };
  WithWord(esize, launch);
}

void WhereGradient(bool when_true, ElementType type, const bool* c, const void* dz, void* d,
                   int64_t n, int64_t count, const ReduceGeometry& reduce,
                   const BroadcastGeometry& c_of, cudaStream_t stream) {
  if (n == 0) return;
  auto launch = [&](auto zero) {
    using T = decltype(zero);
    WhereGradKernel<T><<<GridBlocks(n), kGridThreads, 0, stream>>>(
        when_true, c, static_cast<const T*>(dz), static_cast<T*>(d), n, count, reduce, c_of);
  };
  if (type == ElementType::kDouble) {
    launch(double{});
  } else {
    launch(float{});
  }
}

void CastTyped(ElementType from, ElementType to, const void* x, void* y, int64_t n,
               cudaStream_t stream) {
  if (n == 0) return;
  Visit(from, [&](auto from_zero) {
    using From = decltype(from_zero);
    Visit(to, [&](auto to_zero) {
      using To = decltype(to_zero);
      CastKernel<To, From><<<GridBlocks(n), kGridThreads, 0, stream>>>(static_cast<const From*>(x),
                                                                       static_cast<To*>(y), n);
    });
  });
}

}  // namespace parity::gpu::kernels

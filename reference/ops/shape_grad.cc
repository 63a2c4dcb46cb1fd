// Gradient kernels of Tile, Gather and GatherElements (the other shape ops differentiate through
// shape ops). Conventions are Caffe2's and are tabulated in interpreter.h.
#include <cmath>

#include "reference/ops/util.h"

namespace parity::reference {
namespace {

// TileGradient(dY[, tiles, axis]) -> dX: the `tiles` copies along `axis` summed.
template <typename T>
void TileGradient(OpContext<T>& c) {
  const Value<T>& dy = c.RealInput(0);
  const TileArgs args = ReadTileArgs(c);
  const int64_t tiles = args.tiles;
  const int64_t axis = CanonicalAxis(args.axis, dy.dims.size());
  PARITY_ENFORCE(tiles > 0 && dy.dims[axis] % tiles == 0, ErrorKind::kShapeMismatch, "dimension ",
                 axis, " of dY ", ShapeString(dy.dims), " is not a multiple of ", tiles, " tiles");
  Dims xdims = dy.dims;
  xdims[axis] /= tiles;
  const int64_t outer = SizeToDim(xdims, axis), block = SizeFromDim(xdims, axis);
  Value<T> dx = c.NewReal(xdims);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t t = 0; t < tiles; ++t)
      for (int64_t j = 0; j < block; ++j) {
        dx.r()[o * block + j] += dy.r()[(o * tiles + t) * block + j];
      }
  c.SetOutput(0, std::move(dx));
}

// GatherGradient(DATA, INDICES, dY) -> dDATA: zeros shaped like DATA, with each slice of dY
// added back at the row its index picked (repeated indices accumulate). Negative indices wrap as
// in Gather (by default on axis 0 only).
template <typename T>
void GatherGradient(OpContext<T>& c) {
  const Value<T>& data = c.Input(0);
  const Value<T>& idx = c.IndexInput(1);
  const Value<T>& dy = c.RealInput(2);
  const int64_t axis = CanonicalAxis(c.args.Int("axis"), data.dims.size());
  const bool wrap = c.args.Has("wrap_indices") ? c.args.Bool("wrap_indices") : axis == 0;
  const int64_t n = data.dims[axis];
  Dims ydims(data.dims.begin(), data.dims.begin() + axis);
  ydims.insert(ydims.end(), idx.dims.begin(), idx.dims.end());
  ydims.insert(ydims.end(), data.dims.begin() + axis + 1, data.dims.end());
  RequireShape(c, dy, 2, ydims);
  const int64_t outer = SizeToDim(data.dims, axis), inner = SizeFromDim(data.dims, axis + 1);
  Value<T> ddata = c.NewReal(data.dims);
  int64_t k = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < idx.size(); ++j) {
      int64_t i = idx.i()[j];
      if (wrap && i < 0) i += n;
      PARITY_ENFORCE(i >= 0 && i < n, ErrorKind::kBadArgument, "index ", idx.i()[j],
                     " out of range [0, ", n, ") of data ", ShapeString(data.dims), " axis ", axis);
      for (int64_t d = 0; d < inner; ++d) ddata.r()[(o * n + i) * inner + d] += dy.r()[k++];
    }
  }
  c.SetOutput(0, std::move(ddata));
}

// GatherElementsGradient(DATA, INDICES, dY) -> dDATA: zeros shaped like DATA with each element
// of dY added at the element its index picked (repeated picks accumulate).
template <typename T>
void GatherElementsGradient(OpContext<T>& c) {
  const Value<T>& data = c.Input(0);
  const Value<T>& idx = c.IndexInput(1);
  const Value<T>& dy = c.RealInput(2);
  RequireShape(c, dy, 2, idx.dims);
  const std::vector<int64_t> to = MapGatherElements(c, data, idx);
  Value<T> ddata = c.NewReal(data.dims);
  for (size_t k = 0; k < to.size(); ++k) ddata.r()[to[k]] += dy.r()[k];
  c.SetOutput(0, std::move(ddata));
}

}  // namespace

void RegisterShapeGradientOps(Registry* r) {
  r->Add({"GatherGradient",
          3,
          3,
          1,
          1,
          {{"axis", "0"}, {"wrap_indices", ""}},
          PARITY_REF_KERNEL(GatherGradient)});
  r->Add({"GatherElementsGradient", 3, 3, 1, 1, {{"axis", "0"}},
          PARITY_REF_KERNEL(GatherElementsGradient)});
  r->Add({"TileGradient",
          1,
          3,
          1,
          1,
          {{"tiles", "1"}, {"axis", "0"}},
          PARITY_REF_KERNEL(TileGradient)});
}

PARITY_REFERENCE_FAMILY(RegisterShapeGradientOps);

}  // namespace parity::reference

// Gradient kernel of Tile (the other shape ops differentiate through shape ops). Conventions are
// Caffe2's and are tabulated in interpreter.h.
#include <cmath>

#include "reference/ops/util.h"

namespace parity::reference {
namespace {

// TileGradient(dY[, tiles, axis]) -> dX: the `tiles` copies along `axis` summed.
template <typename T>
void TileGradient(OpContext<T>& c) {
  const Value<T>& dy = c.RealInput(0);
  int64_t tiles = c.args.Int("tiles"), axis = c.args.Int("axis");
  if (c.InputSize() > 1) tiles = IntValues(c, 1).at(0);
  if (c.InputSize() > 2) axis = IntValues(c, 2).at(0);
  axis = CanonicalAxis(axis, dy.dims.size());
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

}  // namespace

void RegisterShapeGradientOps(Registry* r) {
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

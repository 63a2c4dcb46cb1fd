// Fills and plumbing: ConstantFill, GivenTensor*Fill, UniformFill, GaussianFill, XavierFill,
// Range, Copy, Alias.
//
// Shapes follow Caffe2's FillerOp: with an input, the shape is the input's dims (or, with
// input_as_shape=1, the input's values) followed by extra_shape; without one it is `shape`.
// Random fills draw from the documented distribution with the reference's own generator (seeded
// from DeviceOption.random_seed): shape and dtype are exact, values only statistically comparable.
#include <cmath>
#include <limits>
#include <random>

#include "reference/ops/util.h"

namespace parity::reference {
namespace {

template <typename T>
Dims FillShape(const OpContext<T>& c) {
  const bool as_shape = c.args.Bool("input_as_shape");
  const std::vector<int64_t> extra = c.args.Ints("extra_shape");
  if (c.InputSize() == 0) {
    PARITY_ENFORCE(extra.empty(), ErrorKind::kBadArgument, "extra_shape needs an input");
    PARITY_ENFORCE(!as_shape, ErrorKind::kBadArgument, "input_as_shape needs an input");
    const caffe2::Argument* shape = c.args.Raw("shape");
    PARITY_ENFORCE(shape == nullptr || !shape->has_i(), ErrorKind::kBadArgument,
                   "'shape' must be a list, not a scalar");
    const Dims dims = c.args.Ints("shape");
    Numel(dims);
    return dims;
  }
  PARITY_ENFORCE(!c.args.Has("shape"), ErrorKind::kBadArgument,
                 "give the shape either as argument 'shape' or as an input, not both");
  Dims dims;
  if (as_shape) {
    const Value<T>& in = c.Input(0);
    PARITY_ENFORCE(in.dims.size() == 1, ErrorKind::kShapeMismatch,
                   "input_as_shape needs a 1-D shape input, got ", Describe(c, 0));
    dims = IntValues(c, 0);
  } else {
    dims = c.Input(0).dims;
  }
  dims.insert(dims.end(), extra.begin(), extra.end());
  Numel(dims);
  return dims;
}

template <typename T>
DType DtypeArg(const OpContext<T>& c) {
  DType d;
  const int64_t proto = c.args.Int("dtype");
  PARITY_ENFORCE(DTypeFromProto(static_cast<int>(proto), &d), ErrorKind::kBadArgument, "dtype ",
                 proto, " is not supported");
  return d;
}

template <typename T>
void ConstantFill(OpContext<T>& c) {
  const DType dtype = DtypeArg(c);
  Value<T> y = c.NewTensor(dtype, FillShape(c));
  const caffe2::Argument* value = c.args.Raw("value");
  if (dtype == DType::kReal) {
    const T v = static_cast<T>(c.args.Float("value"));
    for (T& e : y.r()) e = v;
  } else {
    // Integer fills read the integer field; a float given for them is truncated (Caffe2 reads
    // `value` with the output's type).
    int64_t v = 0;
    if (value && value->has_i())
      v = value->i();
    else if (value && value->has_f())
      v = static_cast<int64_t>(value->f());
    for (int64_t& e : y.i()) e = WrapInt(dtype, v);
  }
  c.SetOutput(0, std::move(y));
}

enum class Given { kFloat, kDouble, kInt, kInt64, kBool };

template <typename T, Given kKind>
void GivenTensorFill(OpContext<T>& c) {
  DType dtype = kKind == Given::kInt     ? DType::kInt32
                : kKind == Given::kInt64 ? DType::kInt64
                : kKind == Given::kBool  ? DType::kBool
                                         : DType::kReal;
  if (kKind == Given::kFloat && c.args.Has("dtype")) dtype = DtypeArg(c);
  Value<T> y = c.NewTensor(dtype, FillShape(c));
  const caffe2::Argument* values = c.args.Raw("values");
  const int64_t have = values == nullptr       ? 0
                       : dtype == DType::kReal ? values->floats_size()
                                               : values->ints_size();
  PARITY_ENFORCE(have == y.size(), ErrorKind::kShapeMismatch, have, " values for shape ",
                 ShapeString(y.dims));
  for (int64_t k = 0; k < y.size(); ++k) {
    if (dtype == DType::kReal)
      y.r()[k] = static_cast<T>(values->floats(k));
    else
      y.i()[k] = WrapInt(dtype, values->ints(k));
  }
  c.SetOutput(0, std::move(y));
}

template <typename T>
void GivenFloat(OpContext<T>& c) {
  GivenTensorFill<T, Given::kFloat>(c);
}
template <typename T>
void GivenDouble(OpContext<T>& c) {
  GivenTensorFill<T, Given::kDouble>(c);
}
template <typename T>
void GivenInt(OpContext<T>& c) {
  GivenTensorFill<T, Given::kInt>(c);
}
template <typename T>
void GivenInt64(OpContext<T>& c) {
  GivenTensorFill<T, Given::kInt64>(c);
}
template <typename T>
void GivenBool(OpContext<T>& c) {
  GivenTensorFill<T, Given::kBool>(c);
}

// UniformFill(min, max): with 3 inputs (shape, min, max) the bounds are 1-element inputs.
template <typename T>
void UniformFill(OpContext<T>& c) {
  double lo = c.args.Float("min"), hi = c.args.Float("max");
  Dims dims;
  if (c.InputSize() == 3) {
    const Value<T>& a = c.RealInput(1);
    const Value<T>& b = c.RealInput(2);
    PARITY_ENFORCE(a.size() == 1 && b.size() == 1, ErrorKind::kShapeMismatch,
                   "min and max inputs must hold one value each");
    lo = a.r()[0];
    hi = b.r()[0];
  }
  PARITY_ENFORCE(c.InputSize() != 2, ErrorKind::kBadArgument,
                 "UniformFill takes 0, 1 or 3 inputs (shape, min, max)");
  PARITY_ENFORCE(std::isfinite(lo) && std::isfinite(hi), ErrorKind::kBadArgument, "min ", lo,
                 " and max ", hi, " must be finite");
  PARITY_ENFORCE(lo <= hi, ErrorKind::kBadArgument, "min ", lo, " > max ", hi);
  Value<T> y = c.NewReal(FillShape(c));
  std::uniform_real_distribution<double> dist(lo, hi);
  for (T& e : y.r()) e = static_cast<T>(lo == hi ? lo : dist(c.runner->rng()));
  c.SetOutput(0, std::move(y));
}

template <typename T>
void GaussianFill(OpContext<T>& c) {
  const double mean = c.args.Float("mean"), sd = c.args.Float("std");
  PARITY_ENFORCE(std::isfinite(mean) && std::isfinite(sd), ErrorKind::kBadArgument, "mean ", mean,
                 " and std ", sd, " must be finite");
  PARITY_ENFORCE(sd >= 0, ErrorKind::kBadArgument, "std ", sd, " must be >= 0");
  Value<T> y = c.NewReal(FillShape(c));
  std::normal_distribution<double> dist(mean, sd > 0 ? sd : 1.0);
  for (T& e : y.r()) e = static_cast<T>(sd > 0 ? dist(c.runner->rng()) : mean);
  c.SetOutput(0, std::move(y));
}

// XavierFill: uniform in [-s, s] with s = sqrt(3 / fan_in), fan_in = numel / dims[0].
template <typename T>
void XavierFill(OpContext<T>& c) {
  Value<T> y = c.NewReal(FillShape(c));
  PARITY_ENFORCE(!y.dims.empty(), ErrorKind::kShapeMismatch,
                 "XavierFill needs an output of rank >= 1 to count fan_in over, got ",
                 ShapeString(y.dims));
  if (y.size() == 0) {  // an empty output: nothing to draw
    c.SetOutput(0, std::move(y));
    return;
  }
  const double fan_in = static_cast<double>(y.size()) / static_cast<double>(y.dims[0]);
  const double s = std::sqrt(3.0 / fan_in);
  std::uniform_real_distribution<double> dist(-s, s);
  for (T& e : y.r()) e = static_cast<T>(dist(c.runner->rng()));
  c.SetOutput(0, std::move(y));
}

template <typename T>
void Copy(OpContext<T>& c) {
  c.SetOutput(0, c.Input(0).Clone());
}

// Alias: the output shares the input's storage (see Workspace::Write for what later writes do).
template <typename T>
void Alias(OpContext<T>& c) {
  c.SetOutputShared(0, c.Input(0));
}

// Range(stop) / Range(start, stop) / Range(start, stop, step): start + i * step for i below
// max(ceil((stop - start) / step), 0), numpy's arange; the length in double for every dtype (so
// the f32 and f64 runs agree), exact in int64 for integers. One-element inputs of one dtype.
template <typename T>
void Range(OpContext<T>& c) {
  const int n = c.InputSize();
  const DType dtype = c.Input(0).dtype;
  PARITY_ENFORCE(dtype == DType::kReal || dtype == DType::kInt32 || dtype == DType::kInt64,
                 ErrorKind::kShapeMismatch, "needs float, int32 or int64, got ", Describe(c, 0));
  for (int i = 0; i < n; ++i) {
    const Value<T>& v = c.Input(i);
    PARITY_ENFORCE(v.dtype == dtype && v.size() == 1 && v.dims.size() <= 1,
                   ErrorKind::kShapeMismatch, "inputs must be one element each of one dtype, got ",
                   Describe(c, i));
  }
  auto value = [&](int i) { return c.Input(i).AsReal(0); };
  auto integer = [&](int i) { return c.Input(i).i()[0]; };
  Value<T> out;
  if (dtype == DType::kReal) {
    const T start = n == 1 ? T(0) : value(0), stop = value(n == 1 ? 0 : 1);
    const T step = n == 3 ? value(2) : T(1);
    PARITY_ENFORCE(step != 0, ErrorKind::kBadArgument, "step must not be 0");
    const double len = std::ceil((static_cast<double>(stop) - static_cast<double>(start)) /
                                 static_cast<double>(step));
    PARITY_ENFORCE(std::isfinite(len) && len < 9e15, ErrorKind::kBadArgument,
                   "the range has no finite length");
    const int64_t length = std::max<int64_t>(static_cast<int64_t>(len), 0);
    c.CheckAlloc({length});
    out = c.NewReal({length});
    for (int64_t i = 0; i < length; ++i) out.r()[i] = start + static_cast<T>(i) * step;
  } else {
    const int64_t start = n == 1 ? 0 : integer(0), stop = integer(n == 1 ? 0 : 1);
    const int64_t step = n == 3 ? integer(2) : 1;
    PARITY_ENFORCE(step != 0, ErrorKind::kBadArgument, "step must not be 0");
    int64_t diff = 0;
    PARITY_ENFORCE(!__builtin_sub_overflow(stop, start, &diff), ErrorKind::kBadArgument,
                   "stop - start overflows int64");
    PARITY_ENFORCE(!(step == -1 && diff == std::numeric_limits<int64_t>::min()),
                   ErrorKind::kResourceLimit, "the range is too long");
    int64_t length = diff / step;
    if (diff % step != 0 && (diff < 0) == (step < 0)) ++length;
    length = std::max<int64_t>(length, 0);
    c.CheckAlloc({length});
    out = c.NewTensor(dtype, {length});
    for (int64_t i = 0; i < length; ++i) {
      out.i()[i] = WrapInt(dtype, static_cast<int64_t>(static_cast<uint64_t>(start) +
                                                       static_cast<uint64_t>(i) *
                                                           static_cast<uint64_t>(step)));
    }
  }
  c.SetOutput(0, std::move(out));
}

}  // namespace

void RegisterFillOps(Registry* r) {
  const ArgTable shape_args = {{"shape", "[]"}, {"extra_shape", "[]"}, {"input_as_shape", "0"}};
  ArgTable constant = shape_args;
  constant.insert(constant.end(), {{"value", "0.0"}, {"dtype", "1"}});
  r->Add({"ConstantFill", 0, 1, 1, 1, constant, PARITY_REF_KERNEL(ConstantFill)});
  r->Add({"Range", 1, 3, 1, 1, {}, PARITY_REF_KERNEL(Range)});
  ArgTable given = shape_args;
  given.push_back({"values", "[]"});
  ArgTable given_float = given;
  given_float.push_back({"dtype", "1"});
  r->Add({"GivenTensorFill", 0, 1, 1, 1, given_float, PARITY_REF_KERNEL(GivenFloat)});
  r->Add({"GivenTensorDoubleFill", 0, 1, 1, 1, given, PARITY_REF_KERNEL(GivenDouble)});
  r->Add({"GivenTensorIntFill", 0, 1, 1, 1, given, PARITY_REF_KERNEL(GivenInt)});
  r->Add({"GivenTensorInt64Fill", 0, 1, 1, 1, given, PARITY_REF_KERNEL(GivenInt64)});
  r->Add({"GivenTensorBoolFill", 0, 1, 1, 1, given, PARITY_REF_KERNEL(GivenBool)});
  ArgTable uniform = shape_args;
  uniform.insert(uniform.end(), {{"min", "0.0"}, {"max", "1.0"}});
  r->Add({"UniformFill", 0, 3, 1, 1, uniform, PARITY_REF_KERNEL(UniformFill)});
  ArgTable gaussian = shape_args;
  gaussian.insert(gaussian.end(), {{"mean", "0.0"}, {"std", "1.0"}});
  r->Add({"GaussianFill", 0, 1, 1, 1, gaussian, PARITY_REF_KERNEL(GaussianFill)});
  r->Add({"XavierFill", 0, 1, 1, 1, shape_args, PARITY_REF_KERNEL(XavierFill)});
  r->Add({"Copy", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Copy)}).inplace = {{0, 0}};
  // Between host and device memory: the reference has only one memory.
  r->Add({"CopyCPUToGPU", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Copy)});
  r->Add({"CopyGPUToCPU", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Copy)});
  r->Add({"EnsureCPUOutput", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Copy)});
  r->Add({"Alias", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(Alias)});
}

PARITY_REFERENCE_FAMILY(RegisterFillOps);

}  // namespace parity::reference

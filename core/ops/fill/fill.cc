// Fills and plumbing: ConstantFill, GivenTensor*Fill, UniformFill, GaussianFill, XavierFill, Copy
// (and CopyCPUToGPU / CopyGPUToCPU, identity copies on the CPU),
// Alias. Caffe2 semantics (caffe2/operators/filler_op.h, given_tensor_fill_op.h, utility_ops.h).
//
// Output shape of every filler (Caffe2's FillerOp rule):
//   - no input: the `shape` argument;
//   - one input, input_as_shape=0: the input's dims followed by `extra_shape`;
//   - one input, input_as_shape=1: the input's values (a 1-D int tensor) followed by `extra_shape`.
// Giving both `shape` and an input is an error. Random fillers draw from a generator seeded by
// DeviceOption.random_seed (default seed 0, so that runs are reproducible); the generator lives in
// the operator, so repeated runs of one net continue the stream as Caffe2's context does.
#include <cmath>
#include <cstring>
#include <random>

#include "core/ops/fill/fill.h"
#include "core/operator.h"
#include "core/schema.h"

namespace parity {
namespace {

// Shape inference shared by fillers: data-dependent only with input_as_shape.
std::vector<TensorType> FillerShape(const caffe2::OperatorDef& def, const ArgumentHelper& args,
                                    const std::vector<TensorType>& in, DataType dtype) {
  TensorType out;
  out.dtype = dtype;
  if (in.empty()) {
    out.dims = args.GetVector<int64_t>("shape");
  } else if (args.Get<bool>("input_as_shape")) {
    out.known = false;
  } else {
    out.dims = in[0].dims;
    for (int64_t d : args.GetVector<int64_t>("extra_shape")) out.dims.push_back(d);
  }
  return {out};
}

OpSchema& FillerArgs(OpSchema& schema) {
  return schema.NumInputs(0, 1)
      .NumOutputs(1)
      .Arg("shape", ArgType::kInts, std::vector<int64_t>{}, "Output shape when there is no input.")
      .Arg("extra_shape", ArgType::kInts, std::vector<int64_t>{},
           "Dims appended to the shape taken from the input.")
      .Arg("input_as_shape", ArgType::kInt, int64_t{0},
           "If 1, the input's values (1-D int tensor) are the shape; else its dims are.")
      .NotDifferentiable()
      .InputDoc(0, "shape_source", "Optional: a tensor whose dims (or values) give the shape.")
      .OutputDoc(0, "output", "The filled tensor.");
}

DataType ConstantFillDtype(const ArgumentHelper& args) {
  // Without `dtype`, Caffe2 takes the type of `value`: int -> int64, float -> float.
  if (!args.Has("dtype") && args.Has("value") && args.Find("value")->has_i()) {
    return DataType::kInt64;
  }
  DataType dtype;
  int64_t raw = args.Get<int64_t>("dtype");
  PARITY_ENFORCE(DataTypeFromProtoValue(raw, &dtype) && IsStorableDataType(dtype) &&
                     dtype != DataType::kFloat16,
                 ErrorKind::kBadArgument, args.op_label(), ": argument 'dtype' = ", raw,
                 " is not a dtype ConstantFill can produce");
  return dtype;
}

}  // namespace

std::vector<int64_t> FillerOp::OutputShape() const {
  const ArgumentHelper& a = args();
  if (InputSize() == 0) return Args<int64_t>("shape");
  PARITY_ENFORCE(!a.Has("shape"), ErrorKind::kBadArgument, label(),
                 ": cannot take both the 'shape' argument and an input");
  std::vector<int64_t> shape;
  const Tensor& source = Input(0);
  if (Arg<bool>("input_as_shape")) {
    PARITY_ENFORCE(source.ndim() == 1, ErrorKind::kShapeMismatch, label(),
                   ": with input_as_shape=1 the input must be 1-D, got ", source.DebugString());
    if (source.dtype() == DataType::kInt64) {
      const int64_t* values = source.data<int64_t>();
      shape.assign(values, values + source.numel());
    } else {
      source.CheckDataType(DataType::kInt32);
      const int32_t* values = source.data<int32_t>();
      shape.assign(values, values + source.numel());
    }
  } else {
    shape = source.dims();
  }
  for (int64_t d : Args<int64_t>("extra_shape")) shape.push_back(d);
  return shape;
}

uint32_t OpRandomSeed(const caffe2::OperatorDef& def) {
  return def.has_device_option() && def.device_option().has_random_seed()
             ? def.device_option().random_seed()
             : 0u;
}

uint32_t FillerOp::Seed() const { return OpRandomSeed(def()); }

// ---------------------------------------------------------------------------------------------
// ConstantFill

class ConstantFillOp final : public FillerOp {
 public:
  ConstantFillOp(const caffe2::OperatorDef& def, Workspace* ws)
      : FillerOp(def, ws), dtype_(ConstantFillDtype(args())) {}

  void Run() override {
    Tensor* out = Output(0);
    out->Resize(OutputShape());
    DispatchNumeric(dtype_, label(), [&](auto zero) {
      using T = decltype(zero);
      T value = ValueAs<T>();
      T* data = out->mutable_data<T>();
      std::fill(data, data + out->numel(), value);
    });
  }

 private:
  template <typename T>
  T ValueAs() const {
    const caffe2::Argument* value = args().Find("value");
    if (value == nullptr) return T(0);
    if (value->has_i()) return static_cast<T>(value->i());
    PARITY_ENFORCE(value->has_f(), ErrorKind::kBadArgument, label(),
                   ": argument 'value' should be a number");
    return static_cast<T>(value->f());
  }

  DataType dtype_;
};

PARITY_OP_SCHEMA(ConstantFill)
    .Apply(FillerArgs)
    .Arg("value", ArgType::kFloat, 0.0, "The fill value (its type sets dtype when dtype is absent).")
    .Arg("dtype", ArgType::kInt, int64_t{1}, "Output TensorProto.DataType (default FLOAT).")
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      return FillerShape(def, args, in, ConstantFillDtype(args));
    })
    .Doc("Fills the output with a constant `value` of type `dtype`.");
PARITY_REGISTER_CPU_OPERATOR(ConstantFill, ConstantFillOp);

// ---------------------------------------------------------------------------------------------
// GivenTensor*Fill: the `values` argument, in the op's element type.

// The values in `dtype`: read from `floats` for floating dtypes and from `ints` otherwise (Caffe2's
// GetRepeatedArgument<T>("values")), kept as a ready tensor so each run is one copy.
Tensor GivenValues(const ArgumentHelper& args, DataType dtype) {
  Tensor values;
  DispatchNumeric(dtype, args.op_label(), [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> typed;
    if constexpr (std::is_floating_point_v<T>) {
      for (double v : args.GetVector<double>("values")) typed.push_back(static_cast<T>(v));
    } else {
      for (int64_t v : args.GetVector<int64_t>("values")) typed.push_back(static_cast<T>(v));
    }
    values.Resize({static_cast<int64_t>(typed.size())});
    std::copy(typed.begin(), typed.end(), values.mutable_data<T>());
  });
  return values;
}

// GivenTensorFill's output dtype: `dtype` when given (newer Caffe2), else FLOAT.
DataType GivenTensorFillDtype(const ArgumentHelper& args, DataType fixed) {
  if (fixed != DataType::kFloat || !args.Has("dtype")) return fixed;
  DataType dtype;
  int64_t raw = args.Get<int64_t>("dtype");
  PARITY_ENFORCE(DataTypeFromProtoValue(raw, &dtype) && IsStorableDataType(dtype) &&
                     dtype != DataType::kFloat16,
                 ErrorKind::kBadArgument, args.op_label(), ": argument 'dtype' = ", raw,
                 " is not a dtype GivenTensorFill can produce");
  return dtype;
}

template <typename T>
class GivenTensorFillOp final : public FillerOp {
 public:
  GivenTensorFillOp(const caffe2::OperatorDef& def, Workspace* ws)
      : FillerOp(def, ws),
        values_(GivenValues(args(), GivenTensorFillDtype(args(), DataTypeOf<T>::value))) {}

  void Run() override {
    Tensor* out = Output(0);
    out->Resize(OutputShape());
    PARITY_ENFORCE(values_.numel() == out->numel(), ErrorKind::kShapeMismatch, label(), ": ",
                   values_.numel(), " values do not fill shape ", ShapeString(out->dims()), " (",
                   out->numel(), " elements)");
    out->CopyFrom(values_);
    out->Reshape(OutputShape());
  }

 private:
  Tensor values_;
};

#define PARITY_GIVEN_TENSOR_FILL(OpType, T, ValuesType, DtypeEnum)                          \
  PARITY_OP_SCHEMA(OpType)                                                                  \
      .Apply(FillerArgs)                                                                    \
      .Arg("values", ValuesType, std::monostate{}, "The values, in row-major order.")      \
      .Arg("dtype", ArgType::kInt, int64_t{1},                                              \
           "GivenTensorFill only: output dtype (integer dtypes read `values` from ints).")   \
      .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,        \
                         const std::vector<TensorType>& in) {                               \
        return FillerShape(def, args, in, GivenTensorFillDtype(args, DtypeEnum));           \
      })                                                                                    \
      .Doc("Fills the output with the given `values` (" #T ")");                           \
  PARITY_REGISTER_CPU_OPERATOR(OpType, GivenTensorFillOp<T>)

PARITY_GIVEN_TENSOR_FILL(GivenTensorFill, float, ArgType::kFloats, DataType::kFloat);
PARITY_GIVEN_TENSOR_FILL(GivenTensorDoubleFill, double, ArgType::kFloats, DataType::kDouble);
PARITY_GIVEN_TENSOR_FILL(GivenTensorIntFill, int32_t, ArgType::kInts, DataType::kInt32);
PARITY_GIVEN_TENSOR_FILL(GivenTensorInt64Fill, int64_t, ArgType::kInts, DataType::kInt64);
PARITY_GIVEN_TENSOR_FILL(GivenTensorBoolFill, bool, ArgType::kInts, DataType::kBool);
#undef PARITY_GIVEN_TENSOR_FILL

// ---------------------------------------------------------------------------------------------
// Random fillers (float).

class UniformFillOp final : public FillerOp {
 public:
  UniformFillOp(const caffe2::OperatorDef& def, Workspace* ws)
      : FillerOp(def, ws), generator_(Seed()), min_(Arg<float>("min")), max_(Arg<float>("max")) {
    // A uniform draw over an infinite or NaN range is no number (Caffe2's generator gives inf or
    // NaN); refuse the bounds instead of filling infinities.
    PARITY_ENFORCE(std::isfinite(min_) && std::isfinite(max_), ErrorKind::kBadArgument, label(),
                   ": min ", min_, " and max ", max_, " must be finite");
    PARITY_ENFORCE(min_ <= max_, ErrorKind::kBadArgument, label(), ": min ", min_,
                   " is greater than max ", max_);
  }
  void Run() override {
    Tensor* out = Output(0);
    out->Resize(OutputShape());
    float* data = out->mutable_data<float>();
    std::uniform_real_distribution<float> dist(min_, max_);
    for (int64_t i = 0; i < out->numel(); ++i) data[i] = min_ == max_ ? min_ : dist(generator_);
  }

 private:
  std::mt19937 generator_;
  float min_;
  float max_;
};

class GaussianFillOp final : public FillerOp {
 public:
  GaussianFillOp(const caffe2::OperatorDef& def, Workspace* ws)
      : FillerOp(def, ws), generator_(Seed()), mean_(Arg<float>("mean")), std_(Arg<float>("std")) {
    PARITY_ENFORCE(std::isfinite(mean_) && std::isfinite(std_), ErrorKind::kBadArgument, label(),
                   ": mean ", mean_, " and std ", std_, " must be finite");
    PARITY_ENFORCE(std_ >= 0, ErrorKind::kBadArgument, label(), ": std ", std_, " is negative");
  }
  void Run() override {
    Tensor* out = Output(0);
    out->Resize(OutputShape());
    float* data = out->mutable_data<float>();
    std::normal_distribution<float> dist(mean_, std_ > 0 ? std_ : 1.0f);
    for (int64_t i = 0; i < out->numel(); ++i) data[i] = std_ > 0 ? dist(generator_) : mean_;
  }

 private:
  std::mt19937 generator_;
  float mean_;
  float std_;
};

// Uniform on [-s, s] with s = sqrt(3 / fan_in), fan_in = numel / dims[0] (Caffe2's XavierFill).
class XavierFillOp final : public FillerOp {
 public:
  XavierFillOp(const caffe2::OperatorDef& def, Workspace* ws) : FillerOp(def, ws), generator_(Seed()) {}
  void Run() override {
    Tensor* out = Output(0);
    const std::vector<int64_t> shape = OutputShape();
    // fan_in is counted per row of dims[0]: a scalar has no rows (Caffe2 read past its dims).
    PARITY_ENFORCE(!shape.empty(), ErrorKind::kShapeMismatch, label(),
                   ": needs an output of rank >= 1 to count fan_in over, got ", ShapeString(shape));
    out->Resize(shape);
    float* data = out->mutable_data<float>();
    if (out->numel() == 0) return;  // nothing to draw; fan_in would be 0 / 0
    int64_t fan_in = out->numel() / out->dim(0);
    float scale = std::sqrt(3.0f / static_cast<float>(fan_in));
    std::uniform_real_distribution<float> dist(-scale, scale);
    for (int64_t i = 0; i < out->numel(); ++i) data[i] = dist(generator_);
  }

 private:
  std::mt19937 generator_;
};

PARITY_OP_SCHEMA(UniformFill)
    .Apply(FillerArgs)
    .Impure("draws from its own random stream, which each run continues")
    .Arg("min", ArgType::kFloat, 0.0, "Lower bound.")
    .Arg("max", ArgType::kFloat, 1.0, "Upper bound.")
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      return FillerShape(def, args, in, DataType::kFloat);
    })
    .Doc("Uniform random values in [min, max], seeded by DeviceOption.random_seed.");
PARITY_REGISTER_CPU_OPERATOR(UniformFill, UniformFillOp);

PARITY_OP_SCHEMA(GaussianFill)
    .Apply(FillerArgs)
    .Impure("draws from its own random stream, which each run continues")
    .Arg("mean", ArgType::kFloat, 0.0, "Mean.")
    .Arg("std", ArgType::kFloat, 1.0, "Standard deviation.")
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      return FillerShape(def, args, in, DataType::kFloat);
    })
    .Doc("Normal random values, seeded by DeviceOption.random_seed.");
PARITY_REGISTER_CPU_OPERATOR(GaussianFill, GaussianFillOp);

PARITY_OP_SCHEMA(XavierFill)
    .Apply(FillerArgs)
    .Impure("draws from its own random stream, which each run continues")
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      return FillerShape(def, args, in, DataType::kFloat);
    })
    .Doc("Uniform on [-sqrt(3/fan_in), sqrt(3/fan_in)], fan_in = numel / dims[0].");
PARITY_REGISTER_CPU_OPERATOR(XavierFill, XavierFillOp);

// ---------------------------------------------------------------------------------------------
// Copy and Alias.

class CopyOp final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    if (InputBlob(0) == OutputBlob(0)) return;
    Output(0)->CopyFrom(Input(0));
  }
};

// The output shares the input's storage: later writes through either are seen by both.
class AliasOp final : public Operator {
 public:
  using Operator::Operator;
  void Run() override { Output(0)->ShareData(Input(0)); }
};

PARITY_OP_SCHEMA(Copy)
    .NumInputs(1)
    .NumOutputs(1)
    .AllowInplace({{0, 0}})
    .ShapeInference(IdentityShape)
    .InputDoc(0, "input", "Any tensor.")
    .OutputDoc(0, "output", "A deep copy of the input.")
    .Doc("Copies the input into the output (same dtype and dims, separate storage).");
PARITY_REGISTER_CPU_OPERATOR(Copy, CopyOp);

// Caffe2 runs these under a CUDA device option, moving a tensor between host and device memory.
// On the CPU they are identity copies, so nets exported for a GPU (and the fuse_copy_pairs and
// assign_device_option transforms) run and are checked here; the device kernels come with gpu/.
namespace {
OpSchema& DeviceCopySchema(OpSchema& schema) {
  return schema.NumInputs(1).NumOutputs(1).ShapeInference(IdentityShape);
}
}  // namespace

PARITY_OP_SCHEMA(CopyCPUToGPU)
    .Apply(DeviceCopySchema)
    .InputDoc(0, "input", "A tensor in host memory.")
    .OutputDoc(0, "output", "Its copy in device memory (host memory on the CPU).")
    .Doc("Copies a tensor from the CPU to the GPU (an identity copy on the CPU).");
PARITY_REGISTER_CPU_OPERATOR(CopyCPUToGPU, CopyOp);

PARITY_OP_SCHEMA(CopyGPUToCPU)
    .Apply(DeviceCopySchema)
    .InputDoc(0, "input", "A tensor in device memory.")
    .OutputDoc(0, "output", "Its copy in host memory.")
    .Doc("Copies a tensor from the GPU to the CPU (an identity copy on the CPU).");
PARITY_REGISTER_CPU_OPERATOR(CopyGPUToCPU, CopyOp);

PARITY_OP_SCHEMA(EnsureCPUOutput)
    .Apply(DeviceCopySchema)
    .InputDoc(0, "input", "A tensor on any device.")
    .OutputDoc(0, "output", "Its copy in host memory.")
    .Doc("Copies a tensor to the CPU wherever it is (Caffe2's EnsureCPUOutput; an identity copy "
         "on the CPU).");
PARITY_REGISTER_CPU_OPERATOR(EnsureCPUOutput, CopyOp);

PARITY_OP_SCHEMA(Alias)
    .NumInputs(1)
    .NumOutputs(1)
    .ShapeInference(IdentityShape)
    .InputDoc(0, "input", "Any tensor.")
    .OutputDoc(0, "output", "A tensor sharing the input's storage.")
    .Doc("Makes the output share the input's storage (no copy).");
PARITY_REGISTER_CPU_OPERATOR(Alias, AliasOp);

}  // namespace parity

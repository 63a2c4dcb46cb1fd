// The interpreter proper: TensorProto <-> Value conversion, the op loop, error context, trace.
#include "reference/interpreter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <new>

#include "reference/kernel.h"

namespace parity::reference {

// ---- OpContext ----

template <typename T>
const Value<T>& OpContext<T>::Input(int i) const {
  const Value<T>* v = ws->Find(def.input(i));
  PARITY_ENFORCE(v != nullptr, ErrorKind::kMissingBlob, "input ", i, " '", def.input(i),
                 "' does not exist");
  PARITY_ENFORCE(IsTensorType(v->dtype), ErrorKind::kShapeMismatch, "input ", i, " '", def.input(i),
                 "' is a ", DTypeName(v->dtype), ", not a tensor");
  return *v;
}

template <typename T>
const Value<T>& OpContext<T>::RealInput(int i) const {
  const Value<T>& v = Input(i);
  PARITY_ENFORCE(v.is_real(), ErrorKind::kShapeMismatch, "input ", i, " '", def.input(i),
                 "' must be a floating tensor, got ", DTypeName(v.dtype));
  return v;
}

template <typename T>
const Value<T>& OpContext<T>::IndexInput(int i) const {
  const Value<T>& v = Input(i);
  PARITY_ENFORCE(v.dtype == DType::kInt32 || v.dtype == DType::kInt64, ErrorKind::kShapeMismatch,
                 "input ", i, " '", def.input(i), "' must be int32 or int64, got ",
                 DTypeName(v.dtype));
  return v;
}

template class OpContext<double>;
template class OpContext<float>;

// ---- Conversion ----

template <typename T>
Value<T> FromProto(const std::string& name, const caffe2::TensorProto& p, int64_t cap) {
  using P = caffe2::TensorProto;
  DType dtype;
  PARITY_ENFORCE(DTypeFromProto(p.data_type(), &dtype), ErrorKind::kBadArgument, "input blob '",
                 name, "': data_type ", p.data_type(), " is not supported by the reference");
  Dims dims(p.dims().begin(), p.dims().end());
  Value<T> v = MakeTensor<T>(dtype, dims, cap);
  const int64_t n = v.size();
  int64_t have = 0;
  const bool raw = !p.raw_data().empty();
  size_t elem = 0;
  switch (p.data_type()) {
    case P::FLOAT:
      have = raw ? 0 : p.float_data_size();
      elem = 4;
      break;
    case P::DOUBLE:
      have = raw ? 0 : p.double_data_size();
      elem = 8;
      break;
    case P::INT64:
      have = raw ? 0 : p.int64_data_size();
      elem = 8;
      break;
    case P::INT32:
      have = raw ? 0 : p.int32_data_size();
      elem = 4;
      break;
    case P::INT16:
    case P::UINT16:
      have = raw ? 0 : p.int32_data_size();
      elem = 2;
      break;
    default:
      have = raw ? 0 : p.int32_data_size();
      elem = 1;
      break;
  }
  if (raw) {
    // One representation of the values: raw_data beside a typed field is ambiguous.
    const bool typed = p.float_data_size() > 0 || p.double_data_size() > 0 ||
                       p.int32_data_size() > 0 || p.int64_data_size() > 0 ||
                       !p.byte_data().empty() || p.string_data_size() > 0;
    PARITY_ENFORCE(!typed, ErrorKind::kInvalidNet, "input blob '", name,
                   "': has both raw_data and a typed value field");
    PARITY_ENFORCE(p.raw_data().size() == static_cast<size_t>(n) * elem, ErrorKind::kInvalidNet,
                   "input blob '", name, "': raw_data has ", p.raw_data().size(), " bytes, shape ",
                   ShapeString(dims), " needs ", n * static_cast<int64_t>(elem));
    // A bool is one byte of 0 or 1.
    for (int64_t k = 0; p.data_type() == P::BOOL && k < n; ++k) {
      const unsigned char b = static_cast<unsigned char>(p.raw_data()[k]);
      PARITY_ENFORCE(b <= 1, ErrorKind::kInvalidNet, "input blob '", name,
                     "': bool raw_data byte ", k, " is ", static_cast<int>(b),
                     " (a bool is 0 or 1)");
    }
  } else {
    PARITY_ENFORCE(have == n, ErrorKind::kInvalidNet, "input blob '", name, "': ", have,
                   " values for shape ", ShapeString(dims));
  }
  const char* bytes = p.raw_data().data();
  for (int64_t k = 0; k < n; ++k) {
    switch (p.data_type()) {
      case P::FLOAT: {
        float f;
        if (raw)
          std::memcpy(&f, bytes + 4 * k, 4);
        else
          f = p.float_data(k);
        v.r()[k] = static_cast<T>(f);
        break;
      }
      case P::DOUBLE: {
        double d;
        if (raw)
          std::memcpy(&d, bytes + 8 * k, 8);
        else
          d = p.double_data(k);
        v.r()[k] = static_cast<T>(d);
        break;
      }
      case P::INT64: {
        int64_t x;
        if (raw)
          std::memcpy(&x, bytes + 8 * k, 8);
        else
          x = p.int64_data(k);
        v.i()[k] = x;
        break;
      }
      default: {
        int64_t x = 0;
        if (raw) {
          if (elem == 4) {
            int32_t y;
            std::memcpy(&y, bytes + 4 * k, 4);
            x = y;
          } else if (elem == 2) {
            uint16_t y;
            std::memcpy(&y, bytes + 2 * k, 2);
            x = y;
          } else {
            x = static_cast<uint8_t>(bytes[k]);
          }
        } else {
          x = p.int32_data(k);
        }
        v.i()[k] = WrapInt(dtype, x);
      }
    }
  }
  return v;
}

template Value<double> FromProto(const std::string&, const caffe2::TensorProto&, int64_t);
template Value<float> FromProto(const std::string&, const caffe2::TensorProto&, int64_t);

namespace {

int ProtoType(DType d, bool f64) {
  using P = caffe2::TensorProto;
  switch (d) {
    case DType::kReal:
      return f64 ? P::DOUBLE : P::FLOAT;
    case DType::kBool:
      return P::BOOL;
    case DType::kInt8:
      return P::INT8;
    case DType::kUInt8:
      return P::UINT8;
    case DType::kInt16:
      return P::INT16;
    case DType::kUInt16:
      return P::UINT16;
    case DType::kInt32:
      return P::INT32;
    default:
      return P::INT64;
  }
}

}  // namespace

template <typename T>
caffe2::TensorProto ToProto(const std::string& name, const Value<T>& v) {
  caffe2::TensorProto p;
  p.set_name(name);
  for (int64_t d : v.dims) p.add_dims(d);
  constexpr bool f64 = std::is_same<T, double>::value;
  p.set_data_type(static_cast<caffe2::TensorProto::DataType>(ProtoType(v.dtype, f64)));
  if (v.is_real()) {
    for (T x : v.r()) {
      if (f64)
        p.add_double_data(x);
      else
        p.add_float_data(static_cast<float>(x));
    }
  } else if (v.dtype == DType::kInt64) {
    for (int64_t x : v.i()) p.add_int64_data(x);
  } else {
    for (int64_t x : v.i()) p.add_int32_data(static_cast<int32_t>(x));
  }
  return p;
}

template caffe2::TensorProto ToProto(const std::string&, const Value<double>&);
template caffe2::TensorProto ToProto(const std::string&, const Value<float>&);

namespace {

bool IsSet(const Value<double>& v) { return v.real || v.ints || v.scope; }
bool IsSet(const Value<float>& v) { return v.real || v.ints || v.scope; }

std::string OpLabel(const caffe2::OperatorDef& op, int index) {
  std::string s = "op #" + std::to_string(index) + " (" + op.type();
  if (!op.name().empty()) s += " '" + op.name() + "'";
  return s + ")";
}

}  // namespace

// ---- Runner ----

template <typename T>
Runner<T>::Runner(const RunOptions& options) : options_(options), rng_(0) {}

template <typename T>
void Runner<T>::RunNet(Workspace<T>* ws, const caffe2::NetDef& net, bool top_level) {
  for (int i = 0; i < net.op_size(); ++i) {
    caffe2::OperatorDef op = net.op(i);
    // NetDef.device_option is copied into ops that lack one (Caffe2's net construction).
    if (!op.has_device_option() && net.has_device_option()) {
      *op.mutable_device_option() = net.device_option();
    }
    // Errors name the op by its position in its own net, as production does; the trace numbers
    // top-level ops on across the init net and the net (RunNets).
    RunOp(ws, op, i, top_level);
  }
}

template <typename T>
void Runner<T>::RunOp(Workspace<T>* ws, const caffe2::OperatorDef& op, int index, bool top_level) {
  try {
    const OpSchema* schema = Registry::Get().Find(op.type());
    if (schema == nullptr) {
      const auto fd = FiniteDifferenceOnlyOps();
      auto it = fd.find(op.type());
      PARITY_ENFORCE(it == fd.end(), ErrorKind::kUnknownOp, "op type '", op.type(),
                     "' is finite-differences only in the reference: ", it->second);
      throw MakeError(ErrorKind::kUnknownOp, "op type '", op.type(),
                      "' is not implemented by the reference");
    }
    auto arity_ok = [](int n, int lo, int hi) { return n >= lo && (hi < 0 || n <= hi); };
    PARITY_ENFORCE(
        arity_ok(op.input_size(), schema->min_inputs, schema->max_inputs), ErrorKind::kBadArgument,
        op.input_size(), " inputs, expected ", schema->min_inputs, "..",
        schema->max_inputs < 0 ? std::string("inf") : std::to_string(schema->max_inputs));
    PARITY_ENFORCE(
        arity_ok(op.output_size(), schema->min_outputs, schema->max_outputs),
        ErrorKind::kBadArgument, op.output_size(), " outputs, expected ", schema->min_outputs, "..",
        schema->max_outputs < 0 ? std::string("inf") : std::to_string(schema->max_outputs));
    // caffe2.proto's DeviceTypeProto runs from PROTO_CPU = 0 to PROTO_COMPILE_TIME_MAX_DEVICE_TYPES
    // = 11 (exclusive). The reference computes the op's math whichever device it names.
    const int device_type = op.has_device_option() ? op.device_option().device_type() : 0;
    PARITY_ENFORCE(device_type >= 0 && device_type < 11, ErrorKind::kBadArgument,
                   "device_option.device_type ", device_type,
                   " is not a DeviceTypeProto value (0 CPU, 1 CUDA, ... 10)");
    // In place: Caffe2's OpSchema::Verify rejects an input and an output naming the same blob
    // unless the schema allows that pair, and requires the enforced pairs to share.
    for (int in = 0; in < op.input_size() && !schema->any_inplace; ++in) {
      for (int out = 0; out < op.output_size(); ++out) {
        if (op.input(in) != op.output(out)) continue;
        const std::pair<int, int> pair{in, out};
        const bool allowed =
            std::find(schema->inplace.begin(), schema->inplace.end(), pair) !=
                schema->inplace.end() ||
            std::find(schema->enforce_inplace.begin(), schema->enforce_inplace.end(), pair) !=
                schema->enforce_inplace.end();
        PARITY_ENFORCE(allowed, ErrorKind::kBadArgument, "input ", in, " and output ", out,
                       " are both '", op.input(in), "', but ", op.type(),
                       " cannot run in place on them");
      }
    }
    for (const auto& [in, out] : schema->enforce_inplace) {
      if (in >= op.input_size() || out >= op.output_size()) continue;
      PARITY_ENFORCE(op.input(in) == op.output(out), ErrorKind::kBadArgument, "output ", out, " ('",
                     op.output(out), "') must be the same blob as input ", in, " ('", op.input(in),
                     "')");
    }
    if (op.has_device_option() && op.device_option().has_random_seed()) {
      rng_.seed(op.device_option().random_seed());
    }
    OpContext<T> ctx(op, *schema, ws, this);
    if constexpr (std::is_same<T, double>::value) {
      schema->f64(ctx);
    } else {
      schema->f32(ctx);
    }
    TraceEntry entry;
    for (int k = 0; k < op.output_size(); ++k) {
      if (!IsSet(ctx.outputs()[k])) continue;
      ws->Write(op.output(k), std::move(ctx.outputs()[k]), ctx.rebind(k));
    }
    for (int k = 0; k < op.output_size() && first_non_finite_.empty(); ++k) {
      const Value<T>* v = ws->Find(op.output(k));
      if (v == nullptr || !v->real) continue;
      for (T x : *v->real) {
        if (std::isfinite(x)) continue;
        first_non_finite_ = OpLabel(op, index) + " wrote inf or NaN to '" + op.output(k) + "'";
        break;
      }
    }
    const int trace_index = top_level ? trace_index_++ : -1;
    if (top_level && options_.trace) {
      entry.op_index = trace_index;
      entry.op_type = op.type();
      for (int k = 0; k < op.output_size(); ++k) {
        const Value<T>* v = ws->Find(op.output(k));
        if (v && IsTensorType(v->dtype)) entry.outputs[op.output(k)] = ToProto(op.output(k), *v);
      }
      trace_.push_back(std::move(entry));
    }
  } catch (Error& e) {
    e.AddContext(OpLabel(op, index));
    throw;
  } catch (const std::bad_alloc&) {
    throw MakeError(ErrorKind::kResourceLimit, OpLabel(op, index), ": out of memory");
  } catch (const std::exception& e) {
    throw MakeError(ErrorKind::kInternal, OpLabel(op, index), ": ", e.what());
  }
}

template class Runner<double>;
template class Runner<float>;

// ---- Public entry points ----

namespace {

template <typename T>
RunResult RunAll(const caffe2::NetDef* init_net, const caffe2::NetDef& net,
                 const std::map<std::string, caffe2::TensorProto>& inputs,
                 const RunOptions& options) {
  PARITY_ENFORCE(options.max_alloc_bytes > 0 && options.max_loop_iterations >= 0,
                 ErrorKind::kBadArgument, "RunOptions: caps must be positive");
  // The executors Caffe2 registers for NetDef.type ("" is "simple"); the reference runs every one
  // sequentially, which is what they all compute, and rejects other names as production does.
  for (const caffe2::NetDef* def : {init_net, &net}) {
    if (def == nullptr) continue;
    static const char* const kNetTypes[] = {"",          "simple",           "dag",
                                            "async_dag", "async_scheduling", "async_simple"};
    PARITY_ENFORCE(
        std::find(std::begin(kNetTypes), std::end(kNetTypes), def->type()) != std::end(kNetTypes),
        ErrorKind::kInvalidNet, "net '", def->name(), "': unknown net type '", def->type(), "'");
    PARITY_ENFORCE(def->num_workers() >= 0, ErrorKind::kInvalidNet, "net '", def->name(),
                   "': num_workers ", def->num_workers(), " is negative");
  }
  Runner<T> runner(options);
  Workspace<T> ws;
  for (const auto& [name, proto] : inputs) {
    ws.Write(name, FromProto<T>(name, proto, options.max_alloc_bytes));
  }
  // A failing op is named within the net that holds it (the init net's own name for its ops).
  for (const caffe2::NetDef* def : {init_net, &net}) {
    if (def == nullptr) continue;
    try {
      runner.RunNet(&ws, *def, true);
    } catch (Error& e) {
      if (!def->name().empty()) e.AddContext("net '" + def->name() + "'");
      throw;
    }
  }
  RunResult result;
  for (const auto& [name, v] : ws.local_blobs()) {
    if (IsTensorType(v.dtype) && IsSet(v)) result.blobs[name] = ToProto(name, v);
  }
  result.trace = std::move(runner.trace());
  result.first_non_finite = runner.first_non_finite();
  return result;
}

}  // namespace

RunResult RunNet(const caffe2::NetDef& net,
                 const std::map<std::string, caffe2::TensorProto>& inputs,
                 const RunOptions& options) {
  if (options.precision == Precision::kF64) return RunAll<double>(nullptr, net, inputs, options);
  return RunAll<float>(nullptr, net, inputs, options);
}

RunResult RunNets(const caffe2::NetDef& init_net, const caffe2::NetDef& net,
                  const std::map<std::string, caffe2::TensorProto>& inputs,
                  const RunOptions& options) {
  if (options.precision == Precision::kF64) return RunAll<double>(&init_net, net, inputs, options);
  return RunAll<float>(&init_net, net, inputs, options);
}

}  // namespace parity::reference

#include "core/rnn/links.h"


#include "core/net.h"

namespace parity {

std::vector<RnnLink> ReadLinks(const ArgumentHelper& args, const std::string& prefix,
                               bool with_window) {
  const auto internal = args.GetVector<std::string>(prefix + "link_internal");
  const auto external = args.GetVector<std::string>(prefix + "link_external");
  const auto offset = args.GetVector<int64_t>(prefix + "link_offset");
  std::vector<int64_t> window;
  if (with_window) window = args.GetVector<int64_t>(prefix + "link_window");
  if (window.empty()) window.assign(internal.size(), 1);
  PARITY_ENFORCE(internal.size() == external.size() && internal.size() == offset.size() &&
                     internal.size() == window.size(),
                 ErrorKind::kBadArgument, args.op_label(), ": ", prefix, "link_internal (",
                 internal.size(), "), ", prefix, "link_external (", external.size(), "), ", prefix,
                 "link_offset (", offset.size(), ")", with_window ? " and link_window (" : "",
                 with_window ? std::to_string(window.size()) + ")" : "",
                 " must have the same length");
  std::vector<RnnLink> links;
  for (size_t i = 0; i < internal.size(); ++i) {
    PARITY_ENFORCE(offset[i] >= 0 && window[i] >= 0, ErrorKind::kBadArgument, args.op_label(),
                   ": link '", internal[i], "' -> '", external[i], "' has offset ", offset[i],
                   " and window ", window[i], "; both must be >= 0");
    links.push_back({internal[i], external[i], offset[i], window[i]});
  }
  return links;
}

std::vector<RnnAlias> ReadAliases(const ArgumentHelper& args) {
  const auto src = args.GetVector<std::string>("alias_src");
  const auto dst = args.GetVector<std::string>("alias_dst");
  const auto offset = args.GetVector<int64_t>("alias_offset");
  PARITY_ENFORCE(src.size() == offset.size() && dst.size() == offset.size(),
                 ErrorKind::kBadArgument, args.op_label(), ": alias_src (", src.size(),
                 "), alias_dst (", dst.size(), ") and alias_offset (", offset.size(),
                 ") must have the same length");
  std::vector<RnnAlias> aliases;
  for (size_t i = 0; i < src.size(); ++i) aliases.push_back({src[i], dst[i], offset[i]});
  return aliases;
}

std::string RemappedName(const ArgumentHelper& args, const std::string& blob) {
  return args.Get<std::string>(blob + ".rename", blob);
}

std::vector<RnnLink> RemappedLinks(const ArgumentHelper& args, std::vector<RnnLink> links) {
  for (RnnLink& l : links) {
    l.internal = RemappedName(args, l.internal);
    l.external = RemappedName(args, l.external);
  }
  return links;
}

void PrependOps(std::vector<caffe2::OperatorDef> ops, caffe2::NetDef* net) {
  for (const caffe2::OperatorDef& op : net->op()) ops.push_back(op);
  net->clear_op();
  for (caffe2::OperatorDef& op : ops) *net->add_op() = std::move(op);
}

void PrependApplyLinkOps(const std::vector<RnnLink>& links, const std::string& timestep,
                         const caffe2::DeviceOption& device, caffe2::NetDef* net) {
  std::vector<caffe2::OperatorDef> ops;
  for (const RnnLink& link : links) {
    caffe2::OperatorDef op;
    op.set_type("rnn_internal_apply_link");
    op.add_input(timestep);
    op.add_input(link.external);
    op.add_output(link.internal);
    op.add_output(link.external);
    *op.mutable_device_option() = device;
    caffe2::Argument* offset = op.add_arg();
    offset->set_name("offset");
    offset->set_i(link.offset);
    caffe2::Argument* window = op.add_arg();
    window->set_name("window");
    window->set_i(link.window);
    ops.push_back(std::move(op));
  }
  PrependOps(std::move(ops), net);
}

void ApplyLink(const RnnLink& link, int64_t t, const Tensor& external, Tensor* internal) {
  PARITY_ENFORCE(external.ndim() >= 1, ErrorKind::kShapeMismatch, "link '", link.internal, "' -> '",
                 link.external, "': the external blob must have a time axis, got ",
                 external.DebugString());
  // offset and window are the user's integers: t + offset + window may wrap past INT64_MAX and
  // come out negative, which a plain comparison would take as inside the tensor.
  int64_t begin = 0, end = 0;
  const bool representable = !__builtin_add_overflow(t, link.offset, &begin) &&
                             !__builtin_add_overflow(begin, link.window, &end);
  PARITY_ENFORCE(representable && begin >= 0 && end <= external.dim(0), ErrorKind::kShapeMismatch,
                 "link '", link.internal, "' -> '", link.external, "' at timestep ", t, ": ",
                 representable ? "rows [" + std::to_string(begin) + ", " + std::to_string(end) +
                                     ") are"
                               : "offset " + std::to_string(link.offset) + " and window " +
                                     std::to_string(link.window) + " give rows",
                 " outside ", external.DebugString());
  std::vector<int64_t> dims = external.dims();
  dims[0] = link.window;
  const int64_t row = external.dim(0) == 0 ? 0 : external.numel() / external.dim(0);
  *internal = external.View(begin * row, dims);
}

void SettleLink(const RnnLink& link, int64_t t, const Tensor& external, const Blob* internal) {
  Tensor rows;
  ApplyLink(link, t, external, &rows);
  const Tensor* value =
      internal != nullptr && internal->IsTensor() ? &internal->GetTensor() : nullptr;
  PARITY_ENFORCE(value != nullptr && value->dtype() == rows.dtype() &&
                     value->dims() == rows.dims() && value->has_data() &&
                     value->device() == rows.device(),
                 ErrorKind::kShapeMismatch, "linked blob '", link.internal, "' must stay ",
                 rows.DebugString(), " (rows of '", link.external, "') on device type ",
                 rows.device().type, ", got ",
                 internal == nullptr ? "no blob" : internal->Describe(),
                 value == nullptr ? "" : " on device type " + std::to_string(value->device().type));
  if (rows.nbytes() > 0 && value->raw_data() != rows.raw_data()) {
    CopyBytes(rows.device(), rows.raw_mutable_data(), value->raw_data(), rows.nbytes());
  }
}

void ApplyOffsetAlias(const RnnAlias& alias, const Tensor& src, Tensor* dst) {
  PARITY_ENFORCE(src.ndim() >= 1, ErrorKind::kShapeMismatch, "alias '", alias.dst, "' of '",
                 alias.src, "': the source must have a time axis, got ", src.DebugString());
  const int64_t rows = src.dim(0);
  const int64_t begin = alias.offset >= 0 ? alias.offset : rows + alias.offset;
  PARITY_ENFORCE(begin >= 0 && begin <= rows, ErrorKind::kShapeMismatch, "alias '", alias.dst,
                 "' of '", alias.src, "' at offset ", alias.offset, " is outside ",
                 src.DebugString());
  std::vector<int64_t> dims = src.dims();
  dims[0] = rows - begin;
  const int64_t row = rows == 0 ? 0 : src.numel() / rows;
  *dst = src.View(begin * row, dims);
}

void SetTimestep(Workspace* step, const std::string& name, int64_t t) {
  Tensor* timestep = step->CreateLocalBlob(name)->GetMutableTensor();
  timestep->Resize({1});
  timestep->mutable_data<int32_t>()[0] = static_cast<int32_t>(t);
}

NetBase* StepNet(Workspace* ws, const std::string& name, const caffe2::NetDef& def) {
  if (NetBase* net = ws->GetNet(name)) return net;
  caffe2::NetDef named = def;
  named.set_name(name);
  // Caffe2's recurrent_net marks step nets 'rnn' for its RNN executor; they run as plain nets.
  named.set_type("simple");
  return ws->CreateNet(named);
}

}  // namespace parity

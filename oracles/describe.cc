#include "oracles/describe.h"

#include <sstream>

#include "core/proto/error.h"
#include "core/proto/utf8.h"
#include "oracles/tolerance.h"

namespace parity::oracles {

std::string DescribeFinding(const Finding& f) {
  std::ostringstream out;
  out.precision(9);
  out << "[" << f.oracle() << "] " << f.signature().error_class() << ": " << Printable(f.message())
      << "\n";
  if (f.has_backend()) out << "  backend under test: " << Printable(f.backend()) << "\n";
  if (f.blamed_op_index() >= 0) {
    out << "  blamed op #" << f.blamed_op_index() << " (" << Printable(f.blamed_op_type()) << ")\n";
  }
  if (f.has_blamed_op_path() && f.blamed_op_path().find(" > ") != std::string::npos) {
    out << "  inside " << Printable(f.blamed_op_path()) << "\n";
  }
  if (f.stack_size() > 0) out << "  stack:\n";
  for (int i = 0; i < f.stack_size(); ++i)
    out << "    #" << i << " " << Printable(f.stack(i)) << "\n";
  for (const BlobComparison& c : f.comparisons()) {
    const Metrics& m = c.metrics();
    out << "  blob '" << Printable(c.blob()) << "': " << m.mismatch_count() << "/"
        << m.element_count() << " out of tolerance, max abs error " << m.max_abs_error()
        << ", max rel error " << m.max_rel_error() << ", norm error " << m.norm_error()
        << " (allowed " << m.norm_tolerance() << ")\n";
    std::vector<double> expected = ProtoValues(c.expected());
    std::vector<double> actual = ProtoValues(c.actual());
    if (m.worst_index() >= 0 && m.worst_index() < static_cast<int64_t>(expected.size()) &&
        m.worst_index() < static_cast<int64_t>(actual.size())) {
      out << "    worst element " << m.worst_index() << ": expected " << expected[m.worst_index()]
          << ", got " << actual[m.worst_index()] << "\n";
    }
  }
  out << "  repro: " << Printable(f.repro_command()) << "\n";
  return out.str();
}

std::string DescribeFindingBrief(const Finding& f) {
  std::string out = "[" + f.oracle() + "] " + f.signature().error_class();
  if (f.blamed_op_index() >= 0) {
    out += " in op #" + std::to_string(f.blamed_op_index()) + " (" + Printable(f.blamed_op_type()) +
           ")";
  }
  std::string message = Printable(f.message());
  if (message.size() > 300) message = Utf8Prefix(message, 300) + "...";
  return out + ": " + message + "\n";
}

}  // namespace parity::oracles

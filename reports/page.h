// The frame every report page shares: one HTML document with inline CSS, readable without
// JavaScript (a few lines sort the tables when it runs).
#ifndef PARITY_REPORTS_PAGE_H_
#define PARITY_REPORTS_PAGE_H_

#include <string>

namespace parity::reports {

// A complete page: `title` is escaped, `body` is HTML the caller built (and escaped).
std::string Page(const std::string& title, const std::string& body);

}  // namespace parity::reports

#endif  // PARITY_REPORTS_PAGE_H_

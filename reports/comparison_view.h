// How one compared blob differs, as the part of a finding's HTML page that an engineer triaging it
// reads first (after XLA's mismatch summaries and Polygraphy's error histograms): shapes, the
// tolerance, the oracle's metrics, the worst elements, an error histogram in decades and a heatmap
// of |error|.
#ifndef PARITY_REPORTS_COMPARISON_VIEW_H_
#define PARITY_REPORTS_COMPARISON_VIEW_H_

#include <string>

#include "core/proto/parity.pb.h"

namespace parity::reports {

// The most elements listed in the worst-elements table.
constexpr int kWorstElementCount = 10;
// The heatmap of one 2-D slice has at most this many cells per side (larger slices are
// downsampled, each cell showing the largest |error| of its block).
constexpr int kHeatmapMaxCells = 64;
// Tensors of rank 3 and more are drawn as 2-D slices over their last two dims: at most this many.
constexpr int kHeatmapMaxSlices = 4;

// An HTML fragment, <div class="comparison">...</div> (no <html> or <head>), describing
// `comparison`:
//  - the blob name, and dtype and shape of expected and actual (a missing, empty, unreadable or
//    non-numeric side, or shapes that differ, are said in words and skip what needs values);
//  - the oracle's metrics as recorded: tolerance, max abs/rel error, the worst element's index as
//    [i, j, ...], mismatch count and percentage;
//  - recomputed from the tensors (every numeric dtype, float16 included, read as double): the
//    kWorstElementCount elements with the largest |actual - expected|, a NaN where expected held a
//    number first, then other NaN/inf disagreements, then by |error|; a histogram of |error| in
//    decade buckets; and an inline-SVG heatmap of |error| (log colour scale).
// Work is linear in the element count with small constants and the fragment's size is bounded
// whatever the tensor's size (no per-element output): at most kHeatmapMaxSlices slices of
// kHeatmapMaxCells x kHeatmapMaxCells cells. Every string from the case goes through Escape.
std::string ComparisonHtml(const BlobComparison& comparison);

}  // namespace parity::reports

#endif  // PARITY_REPORTS_COMPARISON_VIEW_H_

// A campaign over a narrow --ops set whose ops rarely chain into a net: an index whose net cannot
// be drawn is a single-op case instead of an internal error that stops the campaign. The seed is
// one a 15-s campaign (--seed 33 --ops LSTMUnit,GRUUnit,RecurrentNetwork) stopped on, exit 3.
#include <gtest/gtest.h>

#include "fuzz/campaign.h"
#include "oracles/seeds.h"

namespace parity::fuzz {
namespace {

TEST(CampaignCase, AnIndexWithoutANetIsASingleOpCase) {
  CampaignOptions options;
  options.seed = 33;
  options.ops = {"LSTMUnit", "GRUUnit", "RecurrentNetwork"};
  constexpr uint64_t kNoNet = 1875952089075213118ull;
  int64_t index = -1;
  for (int64_t i = 0; i < 100000 && index < 0; ++i) {
    if (oracles::SeedAt(options.seed, static_cast<uint64_t>(i)) == kNoNet) index = i;
  }
  ASSERT_GE(index, 0);
  ASSERT_EQ(index % 2, 1) << "a net index (odd indices draw nets)";
  const Case c = CampaignCase(options, index);
  ASSERT_EQ(c.net().op_size(), 1) << c.description();
  EXPECT_EQ(c.seed(), kNoNet);
  // Reproducible: the same index gives the same case.
  EXPECT_EQ(CampaignCase(options, index).SerializeAsString(), c.SerializeAsString());
}

}  // namespace
}  // namespace parity::fuzz

// Shared by the DCQCN and DCTCP scripted tests (test-cc-dcqcn.cc, test-cc-dctcp.cc, test-cc-presets.cc): the
// 100 Gb/s line rate and the flow they run on.
#ifndef MLNET_TESTS_CC_DCQCN_DCTCP_TEST_UTIL_H
#define MLNET_TESTS_CC_DCQCN_DCTCP_TEST_UTIL_H

#include <cstdint>

#include "congestion-control.h"

namespace mlnet::cc {

inline constexpr uint64_t kLine = 100'000'000'000ull;
inline constexpr double kL = 1e11;
inline constexpr TimeNs kUs = 1000;

inline FlowParams flowOf(uint64_t bdpBytes = 0, uint32_t mtuBytes = 1000) {
    FlowParams f;
    f.lineRateBps = kLine;
    f.baseRttNs = 4'160;
    f.bdpBytes = bdpBytes;
    f.mtuBytes = mtuBytes;
    return f;
}

}  // namespace mlnet::cc

#endif

#include "congestion-control.h"

#include <algorithm>
#include <cmath>

namespace mlnet::cc {

namespace {
__extension__ typedef unsigned __int128 WideProduct;  // bdp x rate exceeds 64 bits on large BDPs
}  // namespace

NoCongestionControl::NoCongestionControl(const FlowParams& flow, uint64_t windowBytes) {
    m_rateBps = flow.lineRateBps;
    m_windowBytes = windowBytes;
}

const char* NoCongestionControl::name() const {
    return "none";
}

void CongestionControl::publishRate(double rateBps, WindowMode mode, uint64_t bdpBytes, double lineRateBps,
                                    bool integerWindow) {
    m_rateBps = static_cast<uint64_t>(std::llround(rateBps));
    ++m_rateUpdates;
    if (mode == WindowMode::None || bdpBytes == 0) {
        m_windowBytes = 0;
    } else if (mode == WindowMode::Bdp) {
        m_windowBytes = bdpBytes;
    } else if (integerWindow) {
        m_windowBytes =
            std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<WideProduct>(bdpBytes) * m_rateBps /
                                                        static_cast<uint64_t>(lineRateBps)));
    } else {
        m_windowBytes = std::max<uint64_t>(
            1, static_cast<uint64_t>(static_cast<double>(bdpBytes) * rateBps / lineRateBps));
    }
}

}  // namespace mlnet::cc

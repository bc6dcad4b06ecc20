#include "congestion-control.h"

#include <algorithm>

#include "rounding.h"

namespace mlnet::cc {

namespace {
__extension__ typedef unsigned __int128 WideProduct;  // bdp x rate exceeds 64 bits on large BDPs
}  // namespace

FlowParams onPort(FlowParams flow, uint64_t lineRateBps) {
    flow.lineRateBps = lineRateBps;
    const WideProduct portBdp = static_cast<WideProduct>(flow.baseRttNs) * lineRateBps / 8'000'000'000u;
    if (flow.baseRttNs > 0 && portBdp < flow.bdpBytes) {
        flow.bdpBytes = static_cast<uint64_t>(portBdp);
    }
    return flow;
}

NoCongestionControl::NoCongestionControl(const FlowParams& flow, uint64_t windowBytes) {
    m_rateBps = flow.lineRateBps;
    m_windowBytes = windowBytes;
}

const char* NoCongestionControl::name() const {
    return "none";
}

void CongestionControl::publishRate(double rateBps, WindowMode mode, uint64_t bdpBytes, double lineRateBps,
                                    bool integerWindow) {
    m_rateBps = roundToUint(rateBps);
    ++m_rateUpdates;
    if (mode == WindowMode::None || bdpBytes == 0) {
        m_windowBytes = 0;
    } else if (mode == WindowMode::Bdp) {
        m_windowBytes = bdpBytes;
    } else if (integerWindow) {
        // This runs on every HPCC ACK: a 128-bit division is a library call, so it is kept for products
        // that need it.
        const WideProduct product = static_cast<WideProduct>(bdpBytes) * m_rateBps;
        const uint64_t line = static_cast<uint64_t>(lineRateBps);
        m_windowBytes = std::max<uint64_t>(1, (product >> 64) == 0 ? static_cast<uint64_t>(product) / line
                                                                   : static_cast<uint64_t>(product / line));
    } else {
        m_windowBytes = std::max<uint64_t>(
            1, static_cast<uint64_t>(static_cast<double>(bdpBytes) * rateBps / lineRateBps));
    }
}

}  // namespace mlnet::cc

#include "congestion-control.h"

namespace mlnet::cc {

NoCongestionControl::NoCongestionControl(const FlowParams& flow, uint64_t windowBytes) {
    m_rateBps = flow.lineRateBps;
    m_windowBytes = windowBytes;
}

const char* NoCongestionControl::name() const {
    return "none";
}

}  // namespace mlnet::cc

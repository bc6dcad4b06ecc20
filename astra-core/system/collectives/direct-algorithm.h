// Direct (and directN): every peer gets its block straight away, at most `window` messages in flight; each
// processed receipt lets the next send go. An all-reduce runs as a reduce-scatter half and an all-gather
// half.
#ifndef MLNET_SYSTEM_COLLECTIVES_DIRECT_ALGORITHM_H
#define MLNET_SYSTEM_COLLECTIVES_DIRECT_ALGORITHM_H

#include "system/collectives/phase-algorithm.h"

namespace mlnet {

class DirectAlgorithm final : public PhaseAlgorithm {
private:
    void onStart() override;
    void beginHalf(uint64_t);
    void onReceipt(uint64_t);
    void onProcessed(uint64_t);
    bool reducing() const;

    uint64_t m_messageBytes = 0;
    uint32_t m_peers = 0;   // n - 1: messages each way per half
    uint32_t m_window = 0;  // sends issued before the first receipt
    uint32_t m_sent = 0;
    uint32_t m_processed = 0;
    uint32_t m_half = 0;  // all-reduce: 1 in the all-gather half
};

}  // namespace mlnet

#endif

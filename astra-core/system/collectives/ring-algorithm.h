// Ring: one message in flight per rank; send k + 1 waits until receipt k has been processed.
#ifndef MLNET_SYSTEM_COLLECTIVES_RING_ALGORITHM_H
#define MLNET_SYSTEM_COLLECTIVES_RING_ALGORITHM_H

#include "system/collectives/phase-algorithm.h"

namespace mlnet {

class RingAlgorithm final : public PhaseAlgorithm {
private:
    void onStart() override;
    void sendStep(uint64_t);
    void onReceipt(uint64_t);

    Rank m_next = 0;
    Rank m_previous = 0;
    uint64_t m_messageBytes = 0;
    uint32_t m_steps = 0;
    uint32_t m_reducingReceipts = 0;  // the first receipts carry partial sums, the rest finished blocks
    uint32_t m_receipts = 0;
};

}  // namespace mlnet

#endif

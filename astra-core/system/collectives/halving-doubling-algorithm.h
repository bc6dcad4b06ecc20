// Halving-doubling: step k exchanges with the partner at position XOR distance; reduce-scatter halves the
// block while the distance doubles, all-gather mirrors it, all-reduce runs both.
#ifndef MLNET_SYSTEM_COLLECTIVES_HALVING_DOUBLING_ALGORITHM_H
#define MLNET_SYSTEM_COLLECTIVES_HALVING_DOUBLING_ALGORITHM_H

#include "system/collectives/phase-algorithm.h"

namespace mlnet {

class HalvingDoublingAlgorithm final : public PhaseAlgorithm {
private:
    void onStart() override;
    void sendStep(uint64_t);
    void onReceipt(uint64_t);

    uint32_t m_levels = 0;  // log2 of the group size
    uint32_t m_steps = 0;
    uint32_t m_receipts = 0;
    uint64_t m_messageBytes = 0;  // of the step in flight
};

}  // namespace mlnet

#endif

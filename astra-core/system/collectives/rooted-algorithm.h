// Rooted collectives over one line of ranks, rooted at position 0. Broadcast: a chain root -> 1 -> 2 ...;
// reduce: the reverse chain with a reduction per hop; gather and scatter: one message of input/n between the
// root and every other rank.
#ifndef MLNET_SYSTEM_COLLECTIVES_ROOTED_ALGORITHM_H
#define MLNET_SYSTEM_COLLECTIVES_ROOTED_ALGORITHM_H

#include "system/collectives/phase-algorithm.h"

namespace mlnet {

// Every rank has one of two roles. A source (broadcast root, reduce tail, gather leaves, scatter root) sends
// after one endpoint delay and is done when its messages have arrived. A sink processes each receipt and,
// in a chain, passes the chunk on to the next rank before it is done.
class RootedAlgorithm final : public PhaseAlgorithm {
private:
    void onStart() override;
    void sendAll(uint64_t);
    void onSent(uint64_t);
    void onReceipt(uint64_t);
    void onProcessed(uint64_t);

    static constexpr uint32_t kNoForward = UINT32_MAX;

    uint32_t m_first = 0;  // positions [m_first, m_end) this rank sends to or receives from
    uint32_t m_end = 0;
    uint32_t m_forward = kNoForward;  // chain sinks: the next position
    uint32_t m_completed = 0;         // arrived sends (source) or processed receipts (sink)
    uint64_t m_messageBytes = 0;
    bool m_source = false;
};

}  // namespace mlnet

#endif

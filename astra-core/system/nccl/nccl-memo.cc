#include "nccl-memo.h"

#include <algorithm>

namespace mlnet::nccl {

void CollectiveMemo::replaying(uint64_t domain, TimePs startPs, const Outcome& outcome) {
    DomainState& d = m_domains[domain];
    const TimePs last =
        outcome.finishPs.empty() ? 0 : *std::max_element(outcome.finishPs.begin(), outcome.finishPs.end());
    d.heldUntilPs = std::max(d.heldUntilPs, startPs + last);
    ++d.replays;
    ++m_stats.replayed;
    m_stats.replayedMessages += outcome.messages;
    m_stats.replayedBytes += outcome.bytes;
}

void CollectiveMemo::replayEnded(bool clean) {
    if (!clean) {
        ++m_stats.interfered;
        m_stopped = true;
    }
}

}  // namespace mlnet::nccl

#include "nccl-memo.h"

#include <algorithm>

namespace mlnet::nccl {

void CollectiveMemo::recordingEnded(uint64_t domain, Key key, const Outcome* outcome) {
    --m_domains[domain].recordings;
    if (!outcome || !enabled()) {  // another's messages in the domain, or the memo stopped meanwhile
        ++m_stats.discarded;
        return;
    }
    const auto [it, fresh] = m_outcomes.try_emplace(std::move(key), Entry{*outcome});
    if (fresh) {
        ++m_stats.recorded;
        return;
    }
    // Groups recording one key side by side check the key: the same start offsets must give the same
    // finishes. Where they do not, what decides the outcome is not all in the key, so it is never replayed.
    const Outcome& kept = it->second.outcome;
    if (kept.finishPs == outcome->finishPs && kept.messages == outcome->messages &&
        kept.bytes == outcome->bytes) {
        ++m_stats.confirmed;
    } else {
        ++m_stats.mismatched;
        it->second.unstable = true;
    }
}

void CollectiveMemo::replaying(uint64_t domain, TimePs startPs, const Outcome& outcome) {
    DomainState& d = m_domains[domain];
    const TimePs last = *std::max_element(outcome.finishPs.begin(), outcome.finishPs.end());
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

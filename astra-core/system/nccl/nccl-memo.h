// Collectives inside a private domain (a server's NVLink, which nothing but its own GPUs' messages can use,
// NetworkApi::PrivateDomain) repeat exactly: every layer's and every micro-batch's tensor-parallel
// all-reduce moves the same bytes between the same GPUs of an idle domain, its members starting at the same
// offsets from one another. What it then does (when each member finishes) depends on nothing else, so the
// first one is simulated and its outcome recorded, and each repeat takes that outcome without sending a
// message (`--memoize-collectives`).
//
// Conservative by construction: a collective is a candidate only when every member has joined before the
// first one starts (so the key holds every start), the domain is idle then and no replay holds it. A
// recording is kept only if the domain carried nothing but the collective's own messages until it ended; a
// replay during which anything else started in its domain is counted as interfered (its outcome may be
// wrong) and ends memoization for the rest of the run.
#ifndef MLNET_SYSTEM_NCCL_NCCL_MEMO_H
#define MLNET_SYSTEM_NCCL_NCCL_MEMO_H

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "util/time.h"

namespace mlnet::nccl {

class CollectiveMemo {
public:
    // Everything the outcome depends on: the domain's shape with the members' places, the collective's
    // parameters as the model resolved them, and each member's start relative to the first.
    using Key = std::vector<uint64_t>;
    struct Outcome {
        std::vector<TimePs> finishPs;  // per member, from the first start (the network's clock)
        uint64_t messages = 0, bytes = 0;
    };
    struct Stats {
        uint64_t candidates = 0;  // collectives that could be recorded or replayed
        uint64_t recorded = 0;    // simulated, the domain theirs alone: outcome kept
        uint64_t confirmed = 0;   // recorded again (side by side with the first) with the same outcome
        uint64_t mismatched =
            0;                   // recorded again with another outcome: the key is not enough, never replayed
        uint64_t discarded = 0;  // simulated, but another's messages used the domain (or the memo stopped)
        uint64_t replayed = 0;   // took a recorded outcome
        uint64_t interfered = 0;  // replays during which something else started in the domain
        uint64_t replayedMessages = 0, replayedBytes = 0;
        uint64_t outcomes = 0;  // distinct outcomes held
    };

    explicit CollectiveMemo(bool on) : m_on(on) {}
    // On, and not stopped by an interfered replay.
    bool enabled() const { return m_on && !m_stopped; }

    // Whether a replay or a recording holds `domain` at `nowPs` (a replay up to and including the instant
    // of its last finish, whose callbacks may not have run yet). A second collective there would see, or
    // be seen by, the first's messages.
    bool busy(uint64_t domain, TimePs nowPs) const {
        const auto it = m_domains.find(domain);
        return it != m_domains.end() &&
               ((it->second.replays > 0 && it->second.heldUntilPs >= nowPs) || it->second.recordings > 0);
    }
    uint64_t replaysIn(uint64_t domain) const {
        const auto it = m_domains.find(domain);
        return it == m_domains.end() ? 0 : it->second.replays;
    }

    const Outcome* find(const Key& key) const {
        const auto it = m_outcomes.find(key);
        return it == m_outcomes.end() || it->second.unstable ? nullptr : &it->second.outcome;
    }
    void candidate() { ++m_stats.candidates; }
    void recordingStarted(uint64_t domain) { ++m_domains[domain].recordings; }
    // A recording in `domain` ended; `outcome` when the domain was its alone, else discarded.
    void recordingEnded(uint64_t domain, Key key, const Outcome* outcome);
    // A replay of `outcome` in `domain` from `startPs`.
    void replaying(uint64_t domain, TimePs startPs, const Outcome& outcome);
    // A replay ended; `clean`: nothing else started in its domain meanwhile.
    void replayEnded(bool clean);

    Stats stats() const {
        Stats s = m_stats;
        s.outcomes = m_outcomes.size();
        return s;
    }

private:
    struct DomainState {
        TimePs heldUntilPs = 0;
        uint64_t replays = 0;
        uint32_t recordings = 0;
    };
    struct Entry {
        Outcome outcome;
        bool unstable = false;  // two recordings disagreed
    };
    bool m_on, m_stopped = false;
    std::map<Key, Entry> m_outcomes;
    std::unordered_map<uint64_t, DomainState> m_domains;
    Stats m_stats;
};

}  // namespace mlnet::nccl

#endif

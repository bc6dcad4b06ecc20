// The one interface every collective algorithm implements: run one rank's part of one phase of one chunk and
// report completion. The engine owns queues, admission and the chunk's way through its phases; an algorithm
// owns only what its phase needs, and reaches the network through a PhaseHost so that every message is
// counted the same way.
//
// Algorithms are state machines whose events are member functions bound with makeCallback, so the message
// path allocates nothing and adds no virtual call of its own; start() is virtual, and runs once per phase.
#ifndef MLNET_SYSTEM_COLLECTIVES_PHASE_ALGORITHM_H
#define MLNET_SYSTEM_COLLECTIVES_PHASE_ALGORITHM_H

#include <cstdint>
#include <deque>
#include <vector>

#include "network/network-api.h"
#include "system/collective-plan.h"
#include "system/collectives/collective-record.h"
#include "system/collectives/collective-tag.h"
#include "util/pools.h"

namespace mlnet {

// One rank's part of one phase, as the engine hands it to an algorithm. The engine keeps it in place until
// `done` has run, so an algorithm may keep a pointer to it.
struct PhaseRun {
    Rank self;
    uint32_t record;  // index of the collective's record, which counts the bytes sent per dimension
    const PhaseSpec* spec;
    uint64_t chunkSeq;  // alternates the two trees of double binary tree between chunks
    CollectiveTag tag;  // of the phase's messages; only direct all-reduce varies a field (half)
    Callback done;      // the algorithm's last act; the engine may reuse the algorithm object inside it
};

// The network as the algorithms see it. Every send goes through here, so no algorithm can leave a message
// out of the message count or of its record's bytes per dimension.
class PhaseHost {
public:
    PhaseHost(NetworkApi& network, double localMemBwGBps, std::vector<CollectiveRecord>& records)
        : m_network(network), m_localMemBwGBps(localMemBwGBps), m_records(records) {}

    NetworkApi& network() const { return m_network; }
    uint64_t messagesSent() const { return m_messagesSent; }

    void send(Rank self, uint32_t record, uint32_t dimension, Rank peer, uint64_t tag, uint64_t bytes,
              Callback sent) {
        ++m_messagesSent;
        m_records[record].bytesSentPerDim[dimension] += bytes;
        m_network.send(self, peer, tag, bytes, m_records[record].commPriority, sent);
    }

    TimeNs reductionNs(uint64_t bytes) const {
        if (m_localMemBwGBps <= 0) {
            return 0;
        }
        // ASTRA-sim charges one write and two reads, each truncated on its own, with this exact double
        // expression.
        const double perPass = static_cast<double>(bytes) / (m_localMemBwGBps * 1e9) * 1e9;
        return 3 * static_cast<TimeNs>(perPass);
    }

private:
    NetworkApi& m_network;
    double m_localMemBwGBps;
    std::vector<CollectiveRecord>& m_records;
    uint64_t m_messagesSent = 0;
};

class PhaseAlgorithm {
public:
    virtual ~PhaseAlgorithm() = default;

    // Binds the object to `run` (a pooled object is reused for unrelated phases) and begins the phase.
    void start(PhaseHost& host, const PhaseRun& run) {
        m_host = &host;
        m_spec = run.spec;
        m_self = run.self;
        m_record = run.record;
        m_wireTag = run.tag.encode();
        m_run = &run;
        onStart();
    }

protected:
    virtual void onStart() = 0;

    const PhaseSpec& spec() const { return *m_spec; }
    const PeerSet& peers() const { return m_spec->peers; }
    const PhaseRun& run() const { return *m_run; }
    TimeNs endpointDelayNs() const { return m_spec->endpointDelayNs; }
    TimeNs reductionNs(uint64_t bytes) const { return m_host->reductionNs(bytes); }
    // The peer `offset` positions after this rank in ring order (size - k: k positions before).
    Rank ringPeer(uint32_t offset) const { return peers().at((peers().position + offset) % peers().size); }

    void send(Rank peer, uint64_t bytes, Callback sent = {}) { sendTagged(peer, m_wireTag, bytes, sent); }
    void sendTagged(Rank peer, uint64_t tag, uint64_t bytes, Callback sent) {
        m_host->send(m_self, m_record, m_spec->dimension, peer, tag, bytes, sent);
    }
    void recv(Rank peer, uint64_t bytes, Callback received) { recvTagged(peer, m_wireTag, bytes, received); }
    void recvTagged(Rank peer, uint64_t tag, uint64_t bytes, Callback received) {
        m_host->network().recv(peer, m_self, tag, bytes, received);
    }
    void after(TimeNs delayNs, Callback callback) { m_host->network().schedule(delayNs, callback); }
    // Messages of the two halves of a direct all-reduce must not match each other's receives.
    void useHalfTag(uint32_t half) {
        CollectiveTag tag = m_run->tag;
        tag.half = half;
        m_wireTag = tag.encode();
    }
    // Must be the last statement of the caller: the engine may start another phase on this object inside.
    void finish() {
        const Callback done = m_run->done;
        done();
    }
    // Schedules the completion itself, so the phase needs no handler of its own for a trailing delay.
    void finishAfter(TimeNs delayNs) { after(delayNs, m_run->done); }

private:
    // What every message needs is copied next to the derived class's state: the message path then touches
    // only this object, the host and the spec.
    PhaseHost* m_host = nullptr;
    const PhaseSpec* m_spec = nullptr;
    Rank m_self = 0;
    uint32_t m_record = 0;
    uint64_t m_wireTag = 0;
    const PhaseRun* m_run = nullptr;
};

// Recycled algorithm objects of one kind: a phase takes one when it starts and returns it when it ends, so
// steady state allocates nothing. The free list holds base pointers so that the engine can return an object
// without knowing its kind.
template <typename Algorithm>
using PhasePool = ObjectPool<Algorithm, PhaseAlgorithm>;

}  // namespace mlnet

#endif

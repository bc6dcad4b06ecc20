// Common part of the analytical backends: the event queue, message matching and the bookkeeping of messages
// in flight. A subclass decides only when a message's last byte reaches its destination.
#ifndef MLNET_NETWORK_ANALYTICAL_NETWORK_H
#define MLNET_NETWORK_ANALYTICAL_NETWORK_H

#include <vector>

#include "common/event-queue.h"
#include "network/message-matcher.h"
#include "network/network-api.h"
#include "network/topology.h"

namespace mlnet {

class AnalyticalNetwork : public NetworkApi {
public:
    // Ranks run on the topology's NPUs (Topology::npuOfRank); transmit() sees NPUs.
    AnalyticalNetwork(EventQueue& queue, const Topology& topology)
        : m_queue(queue), m_topology(topology), m_numRanks(topology.numRanks()) {}

    TimeNs now() const override { return m_queue.now(); }
    void schedule(TimeNs delayNs, Callback callback) override { m_queue.schedule(delayNs, callback); }
    void send(Rank src, Rank dst, uint64_t tag, uint64_t sizeBytes, Callback sent) override;
    void recv(Rank src, Rank dst, uint64_t tag, uint64_t sizeBytes, Callback received) override;
    uint32_t numRanks() const override { return m_numRanks; }

    EventQueue& queue() { return m_queue; }
    const MessageMatcher& matcher() const { return m_matcher; }
    uint64_t messagesDelivered() const { return m_delivered; }
    uint64_t bytesDelivered() const { return m_deliveredBytes; }

protected:
    // Starts moving message `id` from NPU src to NPU dst; the subclass must call arrived(id) exactly once,
    // from an event (never from within transmit itself), when the message's last byte is at dst.
    virtual void transmit(uint64_t id, uint32_t srcNpu, uint32_t dstNpu, uint64_t sizeBytes) = 0;
    void arrived(uint64_t id);

    EventQueue& m_queue;
    const Topology& m_topology;

private:
    struct Message {
        Rank src, dst;
        uint64_t tag, sizeBytes;
        Callback sent;
    };
    uint32_t m_numRanks;
    MessageMatcher m_matcher;
    std::vector<Message> m_inFlight;  // pooled: ids are reused through m_free
    std::vector<uint64_t> m_free;
    std::vector<Callback> m_postReady;
    std::vector<Callback> m_arrivalReady;
    uint64_t m_delivered = 0;
    uint64_t m_deliveredBytes = 0;
};

}  // namespace mlnet

#endif

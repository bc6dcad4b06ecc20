// What every backend shares: pooled records of the messages in flight, byte-counted FIFO matching of arrivals
// with posted receives per (src, dst, tag), and the two ends of a message. A backend decides when a message's
// last byte is at its destination (delivered: matching receives complete) and when its sender may consider it
// done (acknowledged: the send callback fires). The analytical backends do both at arrival, as ASTRA-sim
// does; the packet model delivers when the last byte has arrived in order and acknowledges at the sender's
// last ACK.
#ifndef MLNET_NETWORK_MESSAGE_NETWORK_H
#define MLNET_NETWORK_MESSAGE_NETWORK_H

#include <algorithm>
#include <vector>

#include "network/message-matcher.h"
#include "network/network-api.h"
#include "util/pools.h"

namespace mlnet {

class MessageNetwork : public NetworkApi {
public:
    explicit MessageNetwork(uint32_t numRanks, uint32_t numEndpoints = 0)
        : m_numRanks(numRanks), m_numEndpoints(std::max(numRanks, numEndpoints)) {}

    void send(Rank src, Rank dst, uint64_t tag, uint64_t sizeBytes, uint32_t commPriority,
              Callback sent) override;
    void recv(Rank src, Rank dst, uint64_t tag, uint64_t sizeBytes, Callback received) override;
    uint32_t numRanks() const override { return m_numRanks; }
    uint32_t numEndpoints() const override { return m_numEndpoints; }
    void countReplayed(uint64_t messages, uint64_t bytes) override;

    const MessageMatcher& matcher() const { return m_matcher; }
    uint64_t messagesDelivered() const { return m_delivered; }
    uint64_t bytesDelivered() const { return m_deliveredBytes; }
    uint64_t messagesSent() const { return m_sent; }
    uint64_t bytesSent() const { return m_sentBytes; }
    // Records alive now (sent and not yet both delivered and acknowledged): the pool never holds more.
    std::size_t messagesInFlight() const { return m_inFlight.inUse(); }
    // The most records ever alive at once (the pool's size).
    std::size_t peakRecords() const { return m_inFlight.size(); }

protected:
    // Starts moving message `id`. The subclass must call delivered(id) and acknowledged(id) exactly once each
    // (or arrived(id) for both), from events, never from within transmit itself.
    virtual void transmit(uint64_t id, Rank src, Rank dst, uint64_t sizeBytes) = 0;
    void delivered(uint64_t id);
    void acknowledged(uint64_t id);
    // Both at once, in ASTRA-sim's order: the send callback, then the receives it completes.
    void arrived(uint64_t id);

    struct Message {
        Rank src, dst;
        uint64_t tag, sizeBytes;
        uint32_t commPriority;
        Callback sent;
        uint8_t pending;  // kDelivery | kAcknowledgement still to come
    };
    const Message& message(uint64_t id) const { return m_inFlight[id]; }

private:
    static constexpr uint8_t kDelivery = 1, kAcknowledgement = 2;
    void settle(uint64_t id, uint8_t what);

    uint32_t m_numRanks, m_numEndpoints;
    MessageMatcher m_matcher;
    SlotPool<Message, uint64_t> m_inFlight;  // ids are slots, reused
    std::vector<Callback> m_postReady;
    std::vector<Callback> m_arrivalReady;
    uint64_t m_sent = 0, m_sentBytes = 0;
    uint64_t m_delivered = 0, m_deliveredBytes = 0;
};

}  // namespace mlnet

#endif

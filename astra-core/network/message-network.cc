#include "message-network.h"

#include <stdexcept>
#include <string>

namespace mlnet {

void MessageNetwork::send(Rank src, Rank dst, uint64_t tag, uint64_t sizeBytes, uint32_t commPriority,
                          Callback sent) {
    if (src >= m_numEndpoints || dst >= m_numEndpoints) {
        throw std::out_of_range("send " + std::to_string(src) + "->" + std::to_string(dst) +
                                ": rank beyond " + std::to_string(m_numRanks) + " NPUs and " +
                                std::to_string(m_numEndpoints - m_numRanks) + " reduction engines");
    }
    const uint64_t id = m_inFlight.acquire();
    m_inFlight[id] = Message{src, dst, tag, sizeBytes, commPriority, sent, kDelivery | kAcknowledgement};
    ++m_sent;
    m_sentBytes += sizeBytes;
    transmit(id, src, dst, sizeBytes);
}

void MessageNetwork::recv(Rank src, Rank dst, uint64_t tag, uint64_t sizeBytes, Callback received) {
    m_postReady.clear();
    m_matcher.post(src, dst, tag, sizeBytes, received, m_postReady);
    // Data already here: complete on a zero-delay event, as ASTRA-sim does, so that the caller finishes
    // posting first.
    for (const Callback& cb : m_postReady) {
        schedule(0, cb);
    }
}

void MessageNetwork::countReplayed(uint64_t messages, uint64_t bytes) {
    m_sent += messages;
    m_sentBytes += bytes;
    m_delivered += messages;
    m_deliveredBytes += bytes;
}

void MessageNetwork::settle(uint64_t id, uint8_t what) {
    Message& m = m_inFlight[id];
    m.pending &= static_cast<uint8_t>(~what);
    if (m.pending == 0) {
        m_inFlight.release(id);
    }
}

void MessageNetwork::delivered(uint64_t id) {
    const Message m = m_inFlight[id];
    settle(id, kDelivery);
    ++m_delivered;
    m_deliveredBytes += m.sizeBytes;
    m_arrivalReady.clear();
    m_matcher.arrive(m.src, m.dst, m.tag, m.sizeBytes, m_arrivalReady);
    // Handlers may send and post receives, but neither touches m_arrivalReady: transmit() never delivers
    // synchronously and recv() collects into m_postReady.
    for (std::size_t i = 0; i < m_arrivalReady.size(); ++i) {
        m_arrivalReady[i]();
    }
}

void MessageNetwork::acknowledged(uint64_t id) {
    const Callback sent = m_inFlight[id].sent;
    settle(id, kAcknowledgement);
    if (sent) {
        sent();
    }
}

void MessageNetwork::arrived(uint64_t id) {
    const Message m = m_inFlight[id];
    m_inFlight.release(id);
    ++m_delivered;
    m_deliveredBytes += m.sizeBytes;
    m_arrivalReady.clear();
    m_matcher.arrive(m.src, m.dst, m.tag, m.sizeBytes, m_arrivalReady);
    // ASTRA-sim's analytical frontends fire the send handler at arrival, before the receive handler.
    if (m.sent) {
        m.sent();
    }
    for (std::size_t i = 0; i < m_arrivalReady.size(); ++i) {
        m_arrivalReady[i]();
    }
}

}  // namespace mlnet

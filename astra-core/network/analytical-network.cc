#include "analytical-network.h"

#include <stdexcept>
#include <string>

namespace mlnet {

void AnalyticalNetwork::send(Rank src, Rank dst, uint64_t tag, uint64_t sizeBytes, Callback sent) {
    if (src >= m_numRanks || dst >= m_numRanks) {
        throw std::out_of_range("send " + std::to_string(src) + "->" + std::to_string(dst) +
                                ": rank beyond " + std::to_string(m_numRanks) + " NPUs");
    }
    uint64_t id;
    if (!m_free.empty()) {
        id = m_free.back();
        m_free.pop_back();
        m_inFlight[id] = {src, dst, tag, sizeBytes, sent};
    } else {
        id = m_inFlight.size();
        m_inFlight.push_back({src, dst, tag, sizeBytes, sent});
    }
    transmit(id, m_topology.npuOfRank(src), m_topology.npuOfRank(dst), sizeBytes);
}

void AnalyticalNetwork::recv(Rank src, Rank dst, uint64_t tag, uint64_t sizeBytes, Callback received) {
    m_postReady.clear();
    m_matcher.post(src, dst, tag, sizeBytes, received, m_postReady);
    // Data already here: complete on a zero-delay event, as ASTRA-sim does, so that the caller finishes
    // posting first.
    for (const Callback& cb : m_postReady) {
        m_queue.schedule(0, cb);
    }
}

void AnalyticalNetwork::arrived(uint64_t id) {
    const Message m = m_inFlight[id];
    m_free.push_back(id);
    ++m_delivered;
    m_deliveredBytes += m.sizeBytes;
    m_arrivalReady.clear();
    m_matcher.arrive(m.src, m.dst, m.tag, m.sizeBytes, m_arrivalReady);
    // ASTRA-sim's analytical frontends fire the send handler at arrival, before the receive handler.
    if (m.sent) {
        m.sent();
    }
    // Handlers may send and post receives, but neither touches m_arrivalReady: transmit() never calls
    // arrived() synchronously and recv() collects into m_postReady.
    for (std::size_t i = 0; i < m_arrivalReady.size(); ++i) {
        m_arrivalReady[i]();
    }
}

}  // namespace mlnet

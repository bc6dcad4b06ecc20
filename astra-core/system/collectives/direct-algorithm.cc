#include "direct-algorithm.h"

#include <algorithm>

namespace mlnet {

void DirectAlgorithm::onStart() {
    const PhaseSpec& p = spec();
    const uint32_t n = p.peers.size;
    m_messageBytes = p.kind == PhaseKind::AllGather ? p.inputBytes : p.inputBytes / n;
    m_window = p.algorithm.window ? std::min(p.algorithm.window, n - 1) : n - 1;
    m_peers = n - 1;
    m_sent = m_processed = m_half = 0;
    after(p.endpointDelayNs, makeCallback<&DirectAlgorithm::beginHalf>(this));
}

void DirectAlgorithm::beginHalf(uint64_t) {
    const uint32_t n = peers().size;
    m_processed = 0;
    for (uint32_t k = 1; k < n; ++k) {
        recv(ringPeer(n - k), m_messageBytes, makeCallback<&DirectAlgorithm::onReceipt>(this));
    }
    for (m_sent = 0; m_sent < m_window; ++m_sent) {
        send(ringPeer(m_sent + 1), m_messageBytes);
    }
}

bool DirectAlgorithm::reducing() const {
    const PhaseKind kind = spec().kind;
    return (kind == PhaseKind::AllReduce && m_half == 0) || kind == PhaseKind::ReduceScatter;
}

void DirectAlgorithm::onReceipt(uint64_t) {
    after(endpointDelayNs() + (reducing() ? reductionNs(m_messageBytes) : 0),
          makeCallback<&DirectAlgorithm::onProcessed>(this));
}

void DirectAlgorithm::onProcessed(uint64_t) {
    if (m_sent < m_peers) {
        send(ringPeer(m_sent + 1), m_messageBytes);
        ++m_sent;
    }
    if (++m_processed < m_peers) {
        return;
    }
    if (spec().kind == PhaseKind::AllReduce && m_half == 0) {
        m_half = 1;  // the all-gather half leaves as soon as the last reduced block is in
        useHalfTag(m_half);
        beginHalf(0);
        return;
    }
    finish();
}

}  // namespace mlnet

#include "rooted-algorithm.h"

namespace mlnet {

void RootedAlgorithm::onStart() {
    const PhaseSpec& p = spec();
    const uint32_t n = p.peers.size;
    const uint32_t pos = p.peers.position;
    const bool blockPerRank = p.kind == PhaseKind::Gather || p.kind == PhaseKind::Scatter;
    m_messageBytes = blockPerRank ? p.inputBytes / n : p.inputBytes;
    m_completed = 0;
    m_forward = kNoForward;
    switch (p.kind) {
        case PhaseKind::Broadcast:  // 0 -> 1 -> ... -> n-1
            m_source = pos == 0;
            m_first = m_source ? 1 : pos - 1;
            m_end = m_first + 1;
            if (!m_source && pos + 1 < n) {
                m_forward = pos + 1;
            }
            break;
        case PhaseKind::Reduce:  // n-1 -> n-2 -> ... -> 0
            m_source = pos == n - 1;
            m_first = m_source ? n - 2 : pos + 1;
            m_end = m_first + 1;
            if (!m_source && pos > 0) {
                m_forward = pos - 1;
            }
            break;
        case PhaseKind::Gather:
            m_source = pos != 0;
            m_first = m_source ? 0 : 1;
            m_end = m_source ? 1 : n;
            break;
        default:  // scatter
            m_source = pos == 0;
            m_first = m_source ? 1 : 0;
            m_end = m_source ? n : 1;
            break;
    }
    if (m_source) {
        after(p.endpointDelayNs, makeCallback<&RootedAlgorithm::sendAll>(this));
        return;
    }
    for (uint32_t k = m_first; k < m_end; ++k) {
        recv(p.peers.at(k), m_messageBytes, makeCallback<&RootedAlgorithm::onReceipt>(this));
    }
}

void RootedAlgorithm::sendAll(uint64_t) {
    for (uint32_t k = m_first; k < m_end; ++k) {
        send(peers().at(k), m_messageBytes, makeCallback<&RootedAlgorithm::onSent>(this));
    }
}

void RootedAlgorithm::onSent(uint64_t) {
    if (++m_completed == m_end - m_first) {
        finish();
    }
}

void RootedAlgorithm::onReceipt(uint64_t) {
    const TimeNs reduce = spec().kind == PhaseKind::Reduce ? reductionNs(m_messageBytes) : 0;
    after(endpointDelayNs() + reduce, makeCallback<&RootedAlgorithm::onProcessed>(this));
}

void RootedAlgorithm::onProcessed(uint64_t) {
    if (++m_completed < m_end - m_first) {
        return;
    }
    if (m_forward != kNoForward) {
        send(peers().at(m_forward), m_messageBytes);
    }
    finish();
}

}  // namespace mlnet

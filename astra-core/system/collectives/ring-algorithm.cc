#include "ring-algorithm.h"

namespace mlnet {

void RingAlgorithm::onStart() {
    const PhaseSpec& p = spec();
    const uint32_t n = p.peers.size;
    m_next = ringPeer(1);
    m_previous = ringPeer(n - 1);
    m_receipts = 0;
    switch (p.kind) {
        case PhaseKind::AllReduce:
            m_messageBytes = p.inputBytes / n;
            m_steps = 2 * (n - 1);
            m_reducingReceipts = n - 1;
            break;
        case PhaseKind::ReduceScatter:
            m_messageBytes = p.inputBytes / n;
            m_steps = n - 1;
            m_reducingReceipts = n - 1;
            break;
        case PhaseKind::AllGather:
            m_messageBytes = p.inputBytes;
            m_steps = n - 1;
            m_reducingReceipts = 0;
            break;
        default:  // all-to-all: the block for distance k crosses k links, n(n-1)/2 hops in all
            m_messageBytes = p.inputBytes / n;
            m_steps = n * (n - 1) / 2;
            m_reducingReceipts = 0;
            break;
    }
    after(p.endpointDelayNs, makeCallback<&RingAlgorithm::sendStep>(this));
}

void RingAlgorithm::sendStep(uint64_t) {
    send(m_next, m_messageBytes);
    recv(m_previous, m_messageBytes, makeCallback<&RingAlgorithm::onReceipt>(this));
}

void RingAlgorithm::onReceipt(uint64_t) {
    const TimeNs delay =
        endpointDelayNs() + (m_receipts < m_reducingReceipts ? reductionNs(m_messageBytes) : 0);
    if (++m_receipts == m_steps) {
        finishAfter(delay);
        return;
    }
    after(delay, makeCallback<&RingAlgorithm::sendStep>(this));
}

}  // namespace mlnet

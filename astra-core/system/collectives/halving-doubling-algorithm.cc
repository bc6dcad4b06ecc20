#include "halving-doubling-algorithm.h"

namespace mlnet {

namespace {

uint32_t log2Exact(uint32_t n) {
    uint32_t l = 0;
    while ((1u << l) < n) {
        ++l;
    }
    return l;
}

}  // namespace

void HalvingDoublingAlgorithm::onStart() {
    const PhaseSpec& p = spec();
    m_levels = log2Exact(p.peers.size);
    m_steps = p.kind == PhaseKind::AllReduce ? 2 * m_levels : m_levels;
    m_receipts = 0;
    after(p.endpointDelayNs, makeCallback<&HalvingDoublingAlgorithm::sendStep>(this));
}

void HalvingDoublingAlgorithm::sendStep(uint64_t) {
    const PhaseSpec& p = spec();
    const uint32_t k = m_receipts;
    uint32_t distance;
    if (p.kind == PhaseKind::AllGather) {
        distance = p.peers.size >> (k + 1);
        m_messageBytes = p.inputBytes << k;
    } else {
        // All-reduce's second half retraces the first in reverse.
        const uint32_t j = k < m_levels ? k : 2 * m_levels - 1 - k;
        distance = 1u << j;
        m_messageBytes = p.inputBytes >> (j + 1);
    }
    const Rank peer = p.peers.at(p.peers.position ^ distance);
    send(peer, m_messageBytes);
    recv(peer, m_messageBytes, makeCallback<&HalvingDoublingAlgorithm::onReceipt>(this));
}

void HalvingDoublingAlgorithm::onReceipt(uint64_t) {
    // ASTRA-sim reduces receipts 1 .. levels-1 of the reducing half, each on that step's message size.
    const bool reducing = spec().kind != PhaseKind::AllGather && m_receipts >= 1 && m_receipts < m_levels;
    const TimeNs delay = endpointDelayNs() + (reducing ? reductionNs(m_messageBytes) : 0);
    if (++m_receipts == m_steps) {
        finishAfter(delay);
        return;
    }
    after(delay, makeCallback<&HalvingDoublingAlgorithm::sendStep>(this));
}

}  // namespace mlnet

#include "switch-mmu.h"

#include <algorithm>

namespace mlnet::roce {

SwitchMmu::SwitchMmu(MmuConfig config) : m_config(std::move(config)) {
    const std::size_t ports = m_config.ports.size();
    m_in.resize(ports * kPriorities);
    for (std::size_t i = 0; i < m_in.size(); ++i) {
        m_in[i].alphaShift = static_cast<uint8_t>(m_config.ports[i / kPriorities].alphaShift);
    }
    m_egress.resize(ports);
    for (std::size_t i = 0; i < ports; ++i) {
        m_egress[i].kminBytes = m_config.ports[i].kminBytes;
        m_egress[i].kmaxBytes = m_config.ports[i].kmaxBytes;
        m_egress[i].pmax = m_config.ports[i].pmax;
    }
    m_setAsideBytes = SetAsideBytes(m_config);
}

uint64_t SwitchMmu::SetAsideBytes(const MmuConfig& config) {
    uint64_t bytes = 0;
    for (const MmuPortConfig& p : config.ports) {
        bytes += config.pfcEnabled ? p.headroomBytes : 0;
    }
    // Every (port, priority) owns its reserve; the reference's budget counts one per port.
    return bytes + (config.referenceAccounting ? 1 : kPriorities) * config.ports.size() * config.reserveBytes;
}

uint64_t SwitchMmu::threshold(uint32_t inPort) const {
    return threshold(m_in[index(inPort, 0)]);
}

uint64_t SwitchMmu::threshold(const Ingress& in) const {
    const uint64_t committed = m_setAsideBytes + m_sharedUsed;
    const uint64_t free = m_config.bufferBytes > committed ? m_config.bufferBytes - committed : 0;
    return free >> in.alphaShift;
}

bool SwitchMmu::admit(uint32_t inPort, uint8_t priority, uint32_t outPort, uint32_t bytes) {
    Ingress& in = m_in[index(inPort, priority)];
    const uint64_t privateAfter = in.privateBytes + bytes;
    const uint64_t sharedAfter = beyondReserve(privateAfter);
    const uint64_t sharedGrowth = sharedAfter - in.shared;
    // Once a queue spills into headroom it stays there until it drains, so packets are not reordered across
    // pools.
    const bool toShared = (in.headroom == 0 || m_config.referenceAccounting) &&
                          (sharedGrowth == 0 || sharedAfter <= threshold(in));
    if (toShared) {
        m_sharedUsed += sharedGrowth;
        in.privateBytes = privateAfter;
        in.shared = sharedAfter;
    } else if (m_config.pfcEnabled && in.headroom + bytes <= m_config.ports[inPort].headroomBytes) {
        // Each priority has the port's whole headroom: what arrives after its own pause is at most one round
        // trip of the link, whatever the other priorities hold (a shared allowance dropped frames whenever
        // two lossless classes were paused on one port).
        in.headroom += bytes;
    } else {
        return false;
    }
    m_egress[outPort].bytes[priority] += bytes;
    m_egress[outPort].portBytes += bytes;
    m_total += bytes;
    m_peak = std::max(m_peak, m_total);
    return true;
}

void SwitchMmu::release(uint32_t inPort, uint8_t priority, uint32_t outPort, uint32_t bytes) {
    Ingress& in = m_in[index(inPort, priority)];
    // Headroom drains first, then the shared part, then the reserve (the reference's order).
    const uint64_t fromHeadroom = std::min<uint64_t>(in.headroom, bytes);
    in.headroom -= fromHeadroom;
    in.privateBytes -= bytes - fromHeadroom;
    const uint64_t sharedAfter = beyondReserve(in.privateBytes);
    m_sharedUsed -= in.shared - sharedAfter;
    in.shared = sharedAfter;
    m_egress[outPort].bytes[priority] -= bytes;
    m_egress[outPort].portBytes -= bytes;
    m_total -= bytes;
}

bool SwitchMmu::checkPause(uint32_t inPort, uint8_t priority) {
    Ingress& in = m_in[index(inPort, priority)];
    if (!m_config.pfcEnabled || in.paused) {
        return false;
    }
    if (in.headroom > 0 || in.shared >= threshold(in)) {
        in.paused = true;
        return true;
    }
    return false;
}

bool SwitchMmu::checkResume(uint32_t inPort, uint8_t priority) {
    Ingress& in = m_in[index(inPort, priority)];
    if (!in.paused || in.headroom > 0) {
        return false;
    }
    if (in.shared == 0 || in.shared + m_config.resumeOffsetBytes <= threshold(in)) {
        in.paused = false;
        return true;
    }
    return false;
}

double SwitchMmu::ecnMarkProbability(uint32_t outPort, uint8_t priority) const {
    if (!m_config.ecnEnabled) {
        return 0;
    }
    const Egress& p = m_egress[outPort];
    const uint64_t q = p.bytes[priority];
    if (q > p.kmaxBytes) {
        return 1;
    }
    if (q > p.kminBytes && p.kmaxBytes > p.kminBytes) {
        return p.pmax * static_cast<double>(q - p.kminBytes) / static_cast<double>(p.kmaxBytes - p.kminBytes);
    }
    return 0;
}

}  // namespace mlnet::roce

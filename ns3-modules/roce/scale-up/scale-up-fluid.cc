#include "scale-up-fluid.h"

#include <cmath>

#include "roce-simulator-impl.h"
#include "roce-timing.h"

namespace mlnet::roce {

ScaleUpFluid::ScaleUpFluid(const TopologySpec& spec, const Routing& routing)
    : m_spec(spec),
      m_routing(routing),
      m_fluid(*this, makeCallback<&ScaleUpFluid::Arrived>(this)),
      m_link(2 * spec.cables.size(), UINT32_MAX) {
    const auto scaleUp = [&](uint32_t v) { return spec.isSwitch(v) && spec.tierName(v) == kTier; };
    for (uint32_t c = 0; c < spec.cables.size(); ++c) {
        const SpecCable& cable = spec.cables[c];
        if (!scaleUp(cable.a) && !scaleUp(cable.b)) {
            continue;
        }
        const double bytesPerNs = static_cast<double>(cable.rateBps) / 8e9;
        const double delayNs = static_cast<double>(cable.delayPs) / 1000.0;
        m_link[2 * c] = m_fluid.addLink(bytesPerNs, delayNs);
        m_link[2 * c + 1] = m_fluid.addLink(bytesPerNs, delayNs);
        m_any = true;
        if (!spec.isSwitch(cable.a) || !spec.isSwitch(cable.b)) {
            const uint32_t host = spec.isSwitch(cable.a) ? cable.b : cable.a;
            if (m_switchesOf.size() <= host) {
                m_switchesOf.resize(spec.numHosts());
            }
            m_switchesOf[host].push_back(spec.isSwitch(cable.a) ? cable.a : cable.b);
        }
    }
}

bool ScaleUpFluid::ShareASwitch(uint32_t a, uint32_t b) const {
    if (a >= m_switchesOf.size() || b >= m_switchesOf.size()) {
        return false;
    }
    for (uint32_t s : m_switchesOf[a]) {
        for (uint32_t t : m_switchesOf[b]) {
            if (s == t) {
                return true;
            }
        }
    }
    return false;
}

bool ScaleUpFluid::TryStart(uint64_t messageId, uint32_t srcHost, uint32_t dstHost, uint64_t sizeBytes,
                            RoceNic::Done& sent, RoceNic::Received& received) {
    // Hosts on no common scale-up switch (another server) need no route walk.
    if (srcHost == dstHost || !ShareASwitch(srcHost, dstHost) ||
        !m_routing.directedPath(srcHost, dstHost, m_routing.flowKey(0, 0, false), m_cables)) {
        return false;
    }
    m_route.clear();
    for (uint32_t directed : m_cables) {
        const uint32_t link = m_link[directed];
        if (link == UINT32_MAX) {
            return false;  // the route leaves the scale-up domain: RoCE carries it
        }
        m_route.push_back(link);
    }
    const uint32_t slot = m_pending.acquire();
    Pending& p = m_pending[slot];
    p.id = messageId;
    p.sizeBytes = sizeBytes;
    p.src = srcHost;
    p.dst = dstHost;
    p.startPs = simNowPs();
    p.sent = std::move(sent);
    p.received = std::move(received);
    ++m_messages;
    m_bytes += sizeBytes;
    m_fluid.start(slot, m_route, sizeBytes);
    return true;
}

void ScaleUpFluid::Arrived(uint64_t slot) {
    Pending& p = m_pending[static_cast<uint32_t>(slot)];
    const TimePs now = simNowPs();
    const FlowCompletion done{p.id, p.src, p.dst, 0, p.sizeBytes, p.startPs, now, 0, true};
    const RoceNic::Done sent = std::move(p.sent);
    const RoceNic::Received received = std::move(p.received);
    p.sent = nullptr;
    p.received = nullptr;
    m_pending.release(static_cast<uint32_t>(slot));
    m_deliveredBytes += done.sizeBytes;
    if (received) {
        received(done.flowId, now);
    }
    if (sent) {
        sent(done);
    }
}

ScaleUpStats ScaleUpFluid::Stats() const {
    const FluidLinks::Counters& c = m_fluid.counters();
    return ScaleUpStats{m_messages, m_bytes, c.rateRecomputations, c.largestComponentFlows};
}

}  // namespace mlnet::roce

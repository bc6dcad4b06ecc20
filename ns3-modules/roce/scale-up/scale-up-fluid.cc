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
    for (uint32_t c = 0; c < spec.cables.size(); ++c) {
        const SpecCable& cable = spec.cables[c];
        if (!IsScaleUpSwitch(cable.a) && !IsScaleUpSwitch(cable.b)) {
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
    FindPrivateDomains();
}

bool ScaleUpFluid::IsScaleUpSwitch(uint32_t node) const {
    return m_spec.isSwitch(node) && m_spec.tierName(node) == kTier;
}

void ScaleUpFluid::FindPrivateDomains() {
    m_domainOf.assign(m_spec.numHosts(), UINT32_MAX);
    m_placeOf.assign(m_spec.numHosts(), 0);
    std::map<uint32_t, std::vector<uint32_t>> cablesOf;  // per scale-up switch
    for (uint32_t c = 0; c < m_spec.cables.size(); ++c) {
        const SpecCable& cable = m_spec.cables[c];
        for (const uint32_t v : {cable.a, cable.b}) {
            if (IsScaleUpSwitch(v)) {
                cablesOf[v].push_back(c);
            }
        }
    }
    for (const auto& [sw, cables] : cablesOf) {
        std::vector<uint64_t> layout;
        bool private_ = true;
        for (uint32_t c : cables) {
            const SpecCable& cable = m_spec.cables[c];
            const uint32_t other = cable.a == sw ? cable.b : cable.a;
            private_ = private_ && !m_spec.isSwitch(other) && other < m_switchesOf.size() &&
                       m_switchesOf[other].size() == 1;
            layout.push_back(cable.rateBps);
            layout.push_back(cable.delayPs);
        }
        if (!private_) {
            continue;
        }
        const uint32_t domain = static_cast<uint32_t>(m_domains.size());
        m_domains.push_back(
            {0, 0,
             m_layouts.emplace(std::move(layout), static_cast<uint32_t>(m_layouts.size())).first->second});
        for (uint32_t i = 0; i < cables.size(); ++i) {
            const SpecCable& cable = m_spec.cables[cables[i]];
            const uint32_t host = cable.a == sw ? cable.b : cable.a;
            m_domainOf[host] = domain;
            m_placeOf[host] = i;
        }
    }
}

bool ScaleUpFluid::PrivateDomain(const std::vector<uint32_t>& hosts, NetworkApi::PrivateDomain& out) const {
    if (hosts.empty() || hosts[0] >= m_domainOf.size() || m_domainOf[hosts[0]] == UINT32_MAX) {
        return false;
    }
    const uint32_t domain = m_domainOf[hosts[0]];
    std::vector<uint64_t> key{m_domains[domain].layout};
    for (uint32_t h : hosts) {
        if (h >= m_domainOf.size() || m_domainOf[h] != domain) {
            return false;
        }
        key.push_back(m_placeOf[h]);
    }
    const Domain& d = m_domains[domain];
    out.id = domain;
    out.shape = m_shapes.emplace(std::move(key), m_shapes.size()).first->second;
    out.messagesStarted = d.messagesStarted;
    out.idle = d.inFlight == 0;
    return true;
}

void ScaleUpFluid::CountReplayed(uint64_t messages, uint64_t bytes) {
    m_messages += messages;
    m_bytes += bytes;
    m_deliveredBytes += bytes;
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
    p.domain = m_domainOf[srcHost];
    if (p.domain != UINT32_MAX) {
        ++m_domains[p.domain].messagesStarted;
        ++m_domains[p.domain].inFlight;
    }
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
    if (p.domain != UINT32_MAX) {
        --m_domains[p.domain].inFlight;
    }
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

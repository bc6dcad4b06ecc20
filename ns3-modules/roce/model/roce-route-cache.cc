#include "roce-route-cache.h"

namespace mlnet::roce {

template <typename Add>
void RoceRouteCache::Walk(const TopologySpec& spec, const Routing& routing, uint32_t srcHost,
                          uint32_t dstHost, uint16_t udpSrcPort, Add add) {
    // The NIC's port as RoceNic::PortTowards picks it, then every forwarding vertex's choice, until the
    // destination (or a vertex without a route, or a walk longer than the network, which a route cannot be).
    const uint32_t first =
        spec.numPorts(srcHost) == 1 ? 0 : routing.choose(srcHost, srcHost, dstHost, udpSrcPort);
    uint32_t v = first == UINT32_MAX ? dstHost : spec.portPeer(srcHost, first);
    for (uint32_t steps = 0; v != dstHost && steps <= spec.numVertices(); ++steps) {
        const uint32_t port = routing.choose(v, srcHost, dstHost, udpSrcPort);
        if (port == UINT32_MAX) {
            break;
        }
        add(port);
        v = spec.portPeer(v, port);
    }
}

uint32_t RoceRouteCache::Find(uint32_t srcHost, uint32_t dstHost, uint16_t udpSrcPort) {
    const uint64_t key = (uint64_t{srcHost} << 40) ^ (uint64_t{dstHost} << 16) ^ udpSrcPort;
    const auto [it, made] = m_offsets.try_emplace(key, static_cast<uint32_t>(m_ports.size()));
    if (!made) {
        return it->second;
    }
    Walk(m_spec, m_routing, srcHost, dstHost, udpSrcPort,
         [this](uint32_t port) { m_ports.push_back(static_cast<uint16_t>(port)); });
    m_ports.push_back(kUnreachable);  // read only by a packet that went astray: the switch then reports it
    return it->second;
}

uint32_t RoceRouteCache::Length(const TopologySpec& spec, const Routing& routing, uint32_t srcHost,
                                uint32_t dstHost, uint16_t udpSrcPort) {
    uint32_t hops = 0;
    Walk(spec, routing, srcHost, dstHost, udpSrcPort, [&hops](uint32_t) { ++hops; });
    return hops;
}

}  // namespace mlnet::roce

#include "roce-route.h"

namespace mlnet::roce {

namespace {

// Calls add(port) for the egress port at every forwarding vertex, in order: the NIC's port as
// RoceNic::PortTowards picks it, then every vertex's choice until the destination (or a vertex without a
// route, or a walk longer than the network, which a route cannot be).
template <typename Add>
void walk(const TopologySpec& spec, const Routing& routing, uint32_t srcHost, uint32_t dstHost,
          uint32_t flowKey, Add add) {
    const uint32_t first =
        spec.numPorts(srcHost) == 1 ? 0 : routing.choose(srcHost, srcHost, dstHost, flowKey);
    uint32_t v = first == UINT32_MAX ? dstHost : spec.portPeer(srcHost, first);
    for (uint32_t steps = 0; v != dstHost && steps <= spec.numVertices(); ++steps) {
        const uint32_t port = routing.choose(v, srcHost, dstHost, flowKey);
        if (port == UINT32_MAX) {
            break;
        }
        add(port);
        v = spec.portPeer(v, port);
    }
}

}  // namespace

RoceRoute RoceRoute::Compute(const TopologySpec& spec, const Routing& routing, uint32_t srcHost,
                             uint32_t dstHost, uint32_t flowKey) {
    RoceRoute route;
    uint32_t hops = 0;
    walk(spec, routing, srcHost, dstHost, flowKey, [&](uint32_t port) {
        if (hops < kMaxHops) {
            // 16 bits suffice: TopologySpec::validate refuses vertices with more ports (routing tables number
            // them in 16 bits too), and built networks stay far below.
            route.ports[hops] = static_cast<uint16_t>(port);
        }
        ++hops;
    });
    // A path too long to carry: switches route it.
    route.length = hops <= kMaxHops ? static_cast<uint8_t>(hops) : 0;
    return route;
}

uint32_t RoceRoute::Length(const TopologySpec& spec, const Routing& routing, uint32_t srcHost,
                           uint32_t dstHost, uint32_t flowKey) {
    uint32_t hops = 0;
    walk(spec, routing, srcHost, dstHost, flowKey, [&hops](uint32_t) { ++hops; });
    return hops;
}

}  // namespace mlnet::roce

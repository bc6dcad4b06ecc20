// The route of a (source host, destination host, UDP source port): the egress port at every vertex that
// forwards it after the sending NIC, from the fabric's Routing, computed once when a queue pair (or its
// receive side) opens. Packets carry the route's offset and a hop count, so a switch forwards with one array
// read instead of a range-table lookup and an ECMP hash per packet (as htsim's routes, computed once from the
// structure). Routes never change once made (cables that fail keep their routes), so a recycled queue-pair
// slot can never make a late packet of its previous connection take another path.
#ifndef MLNET_ROCE_ROUTE_CACHE_H
#define MLNET_ROCE_ROUTE_CACHE_H

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "network/routing.h"
#include "network/topology-spec.h"

namespace mlnet::roce {

class RoceRouteCache {
public:
    static constexpr uint32_t kNoRoute = UINT32_MAX;  // a packet without one: switches route it themselves
    static constexpr uint16_t kUnreachable = UINT16_MAX;

    RoceRouteCache(const TopologySpec& spec, const Routing& routing) : m_spec(spec), m_routing(routing) {}

    // The offset of the route, made on first use.
    uint32_t Find(uint32_t srcHost, uint32_t dstHost, uint16_t udpSrcPort);
    // The egress port at the hop-th forwarding vertex (0: the first after the NIC); kUnreachable when the
    // routing has none there.
    uint16_t Port(uint32_t offset, uint32_t hop) const { return m_ports[offset + hop]; }
    std::size_t Routes() const { return m_offsets.size(); }
    // The number of forwarding vertices on the route, without keeping it.
    static uint32_t Length(const TopologySpec& spec, const Routing& routing, uint32_t srcHost,
                           uint32_t dstHost, uint16_t udpSrcPort);

private:
    // Calls add(port) for the egress port at every forwarding vertex, in order.
    template <typename Add>
    static void Walk(const TopologySpec& spec, const Routing& routing, uint32_t srcHost, uint32_t dstHost,
                     uint16_t udpSrcPort, Add add);

    const TopologySpec& m_spec;
    const Routing& m_routing;
    std::unordered_map<uint64_t, uint32_t> m_offsets;
    std::vector<uint16_t> m_ports;
};

}  // namespace mlnet::roce

#endif

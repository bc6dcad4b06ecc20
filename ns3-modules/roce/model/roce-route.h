// The route of a (source host, destination host, UDP source port): the egress port at every vertex that
// forwards it after the sending NIC, from the fabric's Routing, computed once when a queue pair (or its
// receive side) opens and copied into each packet it sends, so a switch forwards with one array read instead
// of a range-table lookup and an ECMP hash per packet (as htsim's routes, computed once from the structure).
// Packets own their copy: a recycled queue-pair slot can never send a late packet of its previous connection
// elsewhere.
#ifndef MLNET_ROCE_ROUTE_H
#define MLNET_ROCE_ROUTE_H

#include <cstdint>

#include "network/routing.h"
#include "network/topology-spec.h"

namespace mlnet::roce {

struct RoceRoute {
    // What fits beside the hop path's other fields in the packet's first cache line: the longest fat-tree
    // path (five switches) and more; longer paths are routed by the switches.
    static constexpr uint32_t kMaxHops = 11;

    uint16_t ports[kMaxHops];
    // Ports in use. 0: no route carried (a longer path, or a packet built without one): switches then route
    // the packet themselves.
    uint8_t length = 0;

    static RoceRoute Compute(const TopologySpec& spec, const Routing& routing, uint32_t srcHost,
                             uint32_t dstHost, uint32_t flowKey);
    // The number of forwarding vertices, however many.
    static uint32_t Length(const TopologySpec& spec, const Routing& routing, uint32_t srcHost,
                           uint32_t dstHost, uint32_t flowKey);
};

}  // namespace mlnet::roce

#endif

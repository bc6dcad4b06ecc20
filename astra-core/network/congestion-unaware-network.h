// ASTRA-sim's congestion-unaware analytical network: a message takes floor(hops x latency + size / bandwidth)
// ns and never shares a link with anything, however many messages are in flight.
#ifndef MLNET_NETWORK_CONGESTION_UNAWARE_NETWORK_H
#define MLNET_NETWORK_CONGESTION_UNAWARE_NETWORK_H

#include <vector>

#include "network/analytical-network.h"
#include "network/topology.h"

namespace mlnet {

class CongestionUnawareNetwork : public AnalyticalNetwork {
public:
    // `topology` must outlive the network. On graph topologies a message is charged the sum of the latencies
    // on its route and the route's slowest link; `routing` applies to multi-dimensional networks.
    CongestionUnawareNetwork(const Topology& topology, EventQueue& queue,
                             UnawareRouting routing = UnawareRouting::LowestDimension);

    // Delivery delay of one message; 0 when src == dst.
    TimeNs delayNs(Rank src, Rank dst, uint64_t sizeBytes) const;

protected:
    void transmit(uint64_t id, Rank src, Rank dst, uint64_t sizeBytes) override;

private:
    const Topology& m_topology;
    UnawareRouting m_routing;
    mutable std::vector<uint32_t> m_route;
};

}  // namespace mlnet

#endif

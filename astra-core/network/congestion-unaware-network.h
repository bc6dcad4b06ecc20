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

    // Delivery delay of one message between two NPUs; 0 when src == dst. On graphs the route is that of a
    // flow with UDP source port flowPort (equal-cost paths may differ in latency and bandwidth).
    TimeNs delayNs(uint32_t srcNpu, uint32_t dstNpu, uint64_t sizeBytes,
                   uint16_t flowPort = FlowPortAllocator::kFirst) const;

protected:
    void transmitNpus(uint64_t id, uint32_t srcNpu, uint32_t dstNpu, uint64_t sizeBytes) override;

private:
    UnawareRouting m_routing;
    FlowPortAllocator m_flowPorts;
    mutable std::vector<uint32_t> m_route;
};

}  // namespace mlnet

#endif

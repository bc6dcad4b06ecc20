// Flow-level congestion-aware analytical network: each message is a fluid flow over its route (FluidLinks:
// max-min fair sharing of every link, arrival one path latency after the last byte leaves, cut-through unlike
// ASTRA-sim's per-hop store-and-forward). Works on multi-dimensional and graph topologies.
//
// Events run on whole nanoseconds: rate changes at the next whole nanosecond after a flow drains (never
// early), arrivals truncated like ASTRA-sim's event times, so an uncontended message arrives exactly when the
// congestion-unaware formula floor(latency + size / bandwidth) says and the bandwidth bound holds to within
// that truncation (< 1 ns).
#ifndef MLNET_NETWORK_CONGESTION_AWARE_NETWORK_H
#define MLNET_NETWORK_CONGESTION_AWARE_NETWORK_H

#include <vector>

#include "network/analytical-network.h"
#include "network/fluid-links.h"
#include "network/topology.h"

namespace mlnet {

class CongestionAwareNetwork : public AnalyticalNetwork, private FluidLinks::Clock {
public:
    // `topology` must outlive the network.
    CongestionAwareNetwork(const Topology& topology, EventQueue& queue);

    using Counters = FluidLinks::Counters;
    const Counters& counters() const { return m_fluid.counters(); }
    std::size_t activeFlows() const { return m_fluid.activeFlows(); }
    // Bytes of all messages routed over a link so far, for utilization and bandwidth-bound checks.
    uint64_t linkBytes(uint32_t link) const { return m_fluid.linkBytes(link); }

protected:
    void transmitNpus(uint64_t id, uint32_t srcNpu, uint32_t dstNpu, uint64_t sizeBytes) override;

private:
    double nowNs() const override { return static_cast<double>(m_queue.now()); }
    void soon(Callback callback) override { m_queue.schedule(0, callback); }
    void atDeparture(double timeNs, Callback callback) override;
    void atArrival(double timeNs, Callback callback) override;

    FluidLinks m_fluid;
    std::vector<uint32_t> m_route;
    FlowPortAllocator m_flowPorts;  // spreads successive messages of one pair over equal-cost paths
};

}  // namespace mlnet

#endif

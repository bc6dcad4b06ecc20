// Flow-level congestion-aware analytical network. Each message is a fluid flow over its route; the flows in
// flight share every link max-min fairly, and a message arrives one path latency after its last byte leaves
// the source (cut-through, unlike ASTRA-sim's per-hop store-and-forward). Works on multi-dimensional and
// graph topologies.
//
// Rates change only when flows start or finish, and then only for the flows that transitively share a link
// with the changed ones: disjoint traffic (a ring step) costs O(route length) per flow, however many flows
// are in flight. Starts and finishes at the same nanosecond are batched into one recomputation.
//
// Rates and remaining bytes are exact (double); only event times are whole nanoseconds, rounded up so that no
// message ever beats its bandwidth bound. An uncontended message therefore arrives ceil(latency + size /
// bandwidth) after it is sent: 1 ns after the congestion-unaware model whenever that sum is fractional.
#ifndef MLNET_NETWORK_CONGESTION_AWARE_NETWORK_H
#define MLNET_NETWORK_CONGESTION_AWARE_NETWORK_H

#include <memory>
#include <vector>

#include "network/analytical-network.h"
#include "network/topology.h"

namespace mlnet {

class CongestionAwareNetwork : public AnalyticalNetwork {
public:
    // `topology` must outlive the network.
    CongestionAwareNetwork(const Topology& topology, EventQueue& queue);

    struct Counters {
        uint64_t flowsStarted = 0;
        uint64_t flowsCompleted = 0;         // last byte sent; arrival follows after the path latency
        uint64_t rateRecomputations = 0;     // water-filling passes, one per batch of simultaneous changes
        uint64_t flowRateUpdates = 0;        // flows whose rate was recomputed, summed over passes
        uint64_t largestComponentFlows = 0;  // most flows ever recomputed together
        uint64_t staleFinishEvents = 0;      // finish events superseded by a rate change
    };
    const Counters& counters() const { return m_counters; }
    std::size_t activeFlows() const { return m_activeFlows; }
    // Bytes of all messages routed over a link so far, for utilization and bandwidth-bound checks.
    uint64_t linkBytes(uint32_t link) const { return m_links[link].carriedBytes; }

protected:
    void transmitNpus(uint64_t id, uint32_t srcNpu, uint32_t dstNpu, uint64_t sizeBytes) override;

private:
    struct Hop {
        uint32_t link;
        uint32_t slot;  // this flow's index in the link's flow list, for O(1) removal
    };
    // Indexed by message id, so slots are pooled by the base class; `hops` keeps its capacity across reuse.
    struct Flow {
        std::vector<Hop> hops;
        double remainingBytes = 0;  // at updatedNs
        double rateBytesPerNs = 0;
        double newRateBytesPerNs = 0;
        double updatedNs = 0;
        double finishNs = 0;  // exact time the last byte leaves at the current rate
        double pathLatencyNs = 0;
        uint64_t stamp = 0;
        uint32_t component = 0;
        uint32_t generation = 0;  // finish events carry it; a rate change makes older ones stale
        bool active = false;
        bool frozen = false;
    };
    struct LinkFlow {
        uint32_t flow;
        uint32_t hop;  // index into the flow's hops
    };
    struct LinkState {
        std::vector<LinkFlow> flows;
        double bandwidthBytesPerNs = 0;
        double latencyNs = 0;
        double residualBytesPerNs = 0;
        uint64_t carriedBytes = 0;
        uint64_t stamp = 0;
        uint32_t component = 0;
        uint32_t unfrozen = 0;
        uint32_t version = 0;
    };
    // A link whose flow set changed, and the exact time of the change (a departure's last byte can fall
    // between the whole nanoseconds on which events run).
    struct Change {
        uint32_t link;
        double timeNs;
    };
    struct Share {
        double bytesPerNs;
        uint32_t link;
        uint32_t version;
    };

    void markDirty(const Flow& flow, double changeNs);
    void recompute(uint64_t);
    void collectComponent(uint32_t seedLink);
    void waterFill();
    void onFinish(uint64_t arg);

    std::vector<Flow> m_flows;
    std::vector<LinkState> m_links;
    std::vector<Change> m_changes;
    std::vector<double> m_componentChangeNs;
    std::vector<uint32_t> m_componentLinks;
    std::vector<uint32_t> m_componentFlows;
    std::vector<uint32_t> m_stack;
    std::vector<uint32_t> m_route;
    std::vector<Share> m_heap;
    uint64_t m_epoch = 0;
    FlowPortAllocator m_flowPorts;  // spreads successive messages of one pair over equal-cost paths
    std::size_t m_activeFlows = 0;
    bool m_recomputeScheduled = false;
    Counters m_counters;
};

}  // namespace mlnet

#endif

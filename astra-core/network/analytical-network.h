// Common part of the analytical backends: the event queue, and the ranks' NPUs on the topology. A subclass
// decides only when a message's last byte reaches its destination NPU (then both ends of the message
// complete, as in ASTRA-sim).
#ifndef MLNET_NETWORK_ANALYTICAL_NETWORK_H
#define MLNET_NETWORK_ANALYTICAL_NETWORK_H

#include "common/event-queue.h"
#include "network/message-network.h"
#include "network/topology.h"

namespace mlnet {

class AnalyticalNetwork : public MessageNetwork {
public:
    // Ranks (and reduction engines) run on the topology's NPUs (Topology::npuOfEndpoint); transmitNpus() sees
    // NPUs.
    AnalyticalNetwork(EventQueue& queue, const Topology& topology)
        : MessageNetwork(topology.numRanks(), topology.numEndpoints()),
          m_queue(queue),
          m_topology(topology) {}

    TimeNs now() const override { return m_queue.now(); }
    void schedule(TimeNs delayNs, Callback callback) override { m_queue.schedule(delayNs, callback); }

    EventQueue& queue() { return m_queue; }

protected:
    // Starts moving message `id` from NPU src to NPU dst; the subclass calls arrived(id) once, from an event,
    // when the message's last byte is at dst.
    virtual void transmitNpus(uint64_t id, uint32_t srcNpu, uint32_t dstNpu, uint64_t sizeBytes) = 0;

    EventQueue& m_queue;
    const Topology& m_topology;

private:
    void transmit(uint64_t id, Rank src, Rank dst, uint64_t sizeBytes) final {
        transmitNpus(id, m_topology.npuOfEndpoint(src), m_topology.npuOfEndpoint(dst), sizeBytes);
    }
};

// Which analytical model: ASTRA-sim's congestion-unaware formula, or max-min fair flows on every link.
enum class NetworkModel { CongestionUnaware, CongestionAware };

// `topology` must outlive the network; `routing` applies to the congestion-unaware model only.
std::unique_ptr<AnalyticalNetwork> makeAnalyticalNetwork(
    const Topology& topology, NetworkModel model, EventQueue& queue,
    UnawareRouting routing = UnawareRouting::LowestDimension);

}  // namespace mlnet

#endif

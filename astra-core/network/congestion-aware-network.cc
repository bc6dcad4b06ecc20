#include "congestion-aware-network.h"

#include <cmath>
#include <stdexcept>

namespace mlnet {

CongestionAwareNetwork::CongestionAwareNetwork(const Topology& topology, EventQueue& queue)
    : AnalyticalNetwork(queue, topology),
      m_fluid(*this, makeCallback<&CongestionAwareNetwork::arrived>(this)),
      m_flowPorts(topology.numNpus()) {
    for (uint32_t id = 0; id < topology.numLinks(); ++id) {
        const Link link = topology.link(id);
        m_fluid.addLink(link.bandwidthBytesPerNs, link.latencyNs);
    }
}

void CongestionAwareNetwork::atDeparture(double timeNs, Callback callback) {
    m_queue.scheduleAt(saturatedNs(std::ceil(timeNs)), callback);
}

void CongestionAwareNetwork::atArrival(double timeNs, Callback callback) {
    m_queue.scheduleAt(saturatedNs(timeNs), callback);
}

void CongestionAwareNetwork::transmitNpus(uint64_t id, uint32_t srcNpu, uint32_t dstNpu, uint64_t sizeBytes) {
    if (id > UINT32_MAX) {
        throw std::length_error("congestion-aware network: more than 2^32 messages in flight");
    }
    // Each message is a flow with its own UDP source port, routed as the packet model routes it.
    m_topology.route(srcNpu, dstNpu, m_topology.isMultiDimensional() ? 0 : m_flowPorts.next(srcNpu), m_route);
    m_fluid.start(static_cast<uint32_t>(id), m_route, sizeBytes);
}

}  // namespace mlnet

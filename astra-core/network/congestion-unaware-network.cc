#include "congestion-unaware-network.h"

#include <algorithm>

namespace mlnet {

CongestionUnawareNetwork::CongestionUnawareNetwork(const Topology& topology, EventQueue& queue,
                                                   UnawareRouting routing)
    : AnalyticalNetwork(queue, topology), m_routing(routing), m_flowPorts(topology.numNpus()) {}

TimeNs CongestionUnawareNetwork::delayNs(uint32_t src, uint32_t dst, uint64_t sizeBytes,
                                         uint16_t flowPort) const {
    if (src == dst) {
        return 0;
    }
    // Same operation order and types as ASTRA-sim (int hops x double latency, double size / bandwidth,
    // truncation), so results agree to the nanosecond.
    double linkDelayNs = 0;
    double bandwidthBytesPerNs = 0;
    if (m_topology.isMultiDimensional()) {
        const std::vector<Dimension>& dims = m_topology.dimensions();
        for (std::size_t d = 0; d < dims.size(); ++d) {
            const uint32_t a = m_topology.coordinate(src, d);
            const uint32_t b = m_topology.coordinate(dst, d);
            if (a == b) {
                continue;
            }
            const int hops = static_cast<int>(Topology::hops(dims[d].kind, dims[d].npus, a, b));
            linkDelayNs += hops * dims[d].latencyNs;
            bandwidthBytesPerNs = bandwidthBytesPerNs == 0
                                      ? dims[d].bandwidthBytesPerNs
                                      : std::min(bandwidthBytesPerNs, dims[d].bandwidthBytesPerNs);
            if (m_routing == UnawareRouting::LowestDimension) {
                break;
            }
        }
    } else {
        m_topology.route(src, dst, flowPort, m_route);
        for (uint32_t id : m_route) {
            const Link link = m_topology.link(id);
            linkDelayNs += link.latencyNs;
            bandwidthBytesPerNs = bandwidthBytesPerNs == 0
                                      ? link.bandwidthBytesPerNs
                                      : std::min(bandwidthBytesPerNs, link.bandwidthBytesPerNs);
        }
    }
    const double serializationNs = static_cast<double>(sizeBytes) / bandwidthBytesPerNs;
    return saturatedNs(linkDelayNs + serializationNs);
}

void CongestionUnawareNetwork::transmitNpus(uint64_t id, uint32_t srcNpu, uint32_t dstNpu,
                                            uint64_t sizeBytes) {
    const uint16_t flowPort = m_topology.isMultiDimensional() ? 0 : m_flowPorts.next(srcNpu);
    m_queue.schedule(delayNs(srcNpu, dstNpu, sizeBytes, flowPort),
                     makeCallback<&CongestionUnawareNetwork::arrived>(this, id));
}

}  // namespace mlnet

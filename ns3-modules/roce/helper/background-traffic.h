// Background flows sharing the fabric with the training traffic, in their own traffic class: Poisson arrivals
// at every host of a set, sizes drawn from a flow-size distribution (the HPCC traffic generator's CDF files:
// lines of
// "<size bytes> <cumulative percent>", linearly interpolated), destinations uniform over the other hosts of
// the set, at an offered load that is a fraction of each host's NIC rate. Their FCT slowdowns are reported
// apart from the training's messages.
#ifndef MLNET_ROCE_BACKGROUND_TRAFFIC_H
#define MLNET_ROCE_BACKGROUND_TRAFFIC_H

#include <nlohmann/json.hpp>

#include <vector>

#include "ns3/random-variable-stream.h"

#include "flow-size-cdf.h"
#include "network-description.h"
#include "roce-fabric.h"

namespace mlnet::roce {

class BackgroundTraffic {
public:
    // Errors (the CDF, hosts out of range, fewer than two hosts) go to diag.
    BackgroundTraffic(RoceFabric& fabric, const BackgroundSettings& settings, Diagnostics& diag);
    // Schedules the first arrival of every host now; arrivals continue until the simulation stops.
    void Start();
    // Fixes the streams of the arrival gaps and destination draws; returns the streams used (2).
    int64_t AssignStreams(int64_t stream);
    // Flows started and finished, bytes, and the FCT slowdown (FCT over the ideal FCT) percentiles.
    nlohmann::ordered_json Summary() const;

private:
    void Arrival(uint32_t index);

    RoceFabric& m_fabric;
    BackgroundSettings m_settings;
    std::optional<FlowSizeCdf> m_cdf;
    std::vector<uint32_t> m_hosts;
    std::vector<double> m_meanGapPs;  // per host
    ns3::Ptr<ns3::ExponentialRandomVariable> m_gap;
    ns3::Ptr<ns3::UniformRandomVariable> m_uniform;
    uint64_t m_next = uint64_t{1} << 61;  // message ids apart from the training's
    uint64_t m_started = 0, m_bytes = 0;
    std::vector<double> m_slowdowns;
};

}  // namespace mlnet::roce

#endif

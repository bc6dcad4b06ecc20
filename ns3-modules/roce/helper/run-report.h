// What a run says about its network, shared by mlnet-flows and mlnet-ns3: totals (drops, PFC pauses and
// paused time, ECN marks, CNPs, NACKs, timeouts, retransmissions, packet-hops), the largest and the
// 99th-percentile egress queue of every switch tier (time-weighted), and the pfc.txt and queue-sample
// streams.
#ifndef MLNET_ROCE_RUN_REPORT_H
#define MLNET_ROCE_RUN_REPORT_H

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "result-writers.h"
#include "roce-fabric.h"

namespace mlnet::roce {

struct TierQueues {
    uint64_t ports = 0;
    uint64_t maxBytes = 0;
    uint64_t p99Bytes = 0;  // over time and ports (0 without SwitchSettings::queueHistograms)
};

// The switch egress port whose queue was longest on average over the run: where congestion was worst.
// mlnet-ns3 names it; its --rate-trace-port records the rates of the flows through it.
struct BusiestPort {
    uint32_t nodeId = 0, port = 0;  // the switch's node id in the topology, its egress port
    uint32_t peerNodeId = 0;        // the node the port sends to
    std::string tier, peerTier;
    uint64_t rateBps = 0;
    double meanQueueBytes = 0;
    uint64_t p99QueueBytes = 0, maxQueueBytes = 0;
    TimePs pausedPs = 0;  // the port's sending paused by PFC from its peer
};

struct NetworkTotals {
    uint64_t drops = 0;
    uint64_t pauseFrames = 0;  // PFC pause frames received (resumes not counted)
    TimePs pausedPs = 0;       // summed over every port: time its transmitter was paused
    uint64_t ecnMarks = 0;
    uint64_t cnps = 0, nacks = 0, timeouts = 0;
    uint64_t retransmittedBytes = 0;
    uint64_t dataPacketHops = 0;
    uint64_t deliveredBytes = 0;
    std::map<std::string, TierQueues> tiers;
    std::optional<BusiestPort> busiest;  // with SwitchSettings::queueHistograms and a queue somewhere
    // Switches whose buffer held more than its size at some moment, and the largest excess. The buffer sets
    // aside one PFC headroom per port, as the reference does; lossless classes of one port that are paused at
    // once each fill a headroom, so together they can overfill it. Lossless means nothing is dropped, not
    // that the buffer was big enough: a result with an overfull switch assumed more memory than it was given.
    uint64_t overfullSwitches = 0;
    uint64_t worstOverfillBytes = 0;
    uint32_t worstOverfillNode = 0;
};

NetworkTotals networkTotals(const RoceFabric& fabric);
// A warning naming the worst overfull switch, if any (the run's result stands; the buffer was too small).
void warnOverfullBuffers(const NetworkTotals& totals, Diagnostics& diag);
nlohmann::ordered_json toJson(const NetworkTotals& totals);
// Per switch: drops, ECN marks, pauses sent, peak buffer, and per port the bytes sent and the largest queue.
nlohmann::ordered_json switchesJson(const RoceFabric& fabric);

// pfc.txt (the reference's columns) and the queue samples ("time_ns switch port bytes"), streamed to their
// files while the fabric runs, so a long run holds none of them; construct before the run, commit() after.
// An empty path leaves that file out. Each file appears whole at commit() or not at all.
class MonitorFiles {
public:
    MonitorFiles(RoceFabric& fabric, const std::string& pfcPath, const std::string& queuePath,
                 Diagnostics& diag);
    MonitorFiles(const MonitorFiles&) = delete;
    MonitorFiles& operator=(const MonitorFiles&) = delete;
    bool commit();

private:
    void AddQueueSample(uint32_t nodeId, uint32_t port, uint64_t bytes);

    std::unique_ptr<PfcStream> m_pfc;
    std::unique_ptr<QueueSampleStream> m_queues;
};

}  // namespace mlnet::roce

#endif

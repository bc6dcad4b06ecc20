// What a run says about its network, shared by mlnet-flows and mlnet-ns3: totals (drops, PFC pauses and
// paused time, ECN marks, CNPs, NACKs, timeouts, retransmissions, packet-hops), the largest and the
// 99th-percentile egress queue of every switch tier (time-weighted), and the pfc.txt and queue-sample files.
#ifndef MLNET_ROCE_RUN_REPORT_H
#define MLNET_ROCE_RUN_REPORT_H

#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "roce-fabric.h"

namespace mlnet::roce {

struct TierQueues {
    uint64_t ports = 0;
    uint64_t maxBytes = 0;
    uint64_t p99Bytes = 0;  // over time and ports (0 without SwitchSettings::queueHistograms)
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
};

NetworkTotals networkTotals(const RoceFabric& fabric);
nlohmann::ordered_json toJson(const NetworkTotals& totals);
// Per switch: drops, ECN marks, pauses sent, peak buffer, and per port the bytes sent and the largest queue.
nlohmann::ordered_json switchesJson(const RoceFabric& fabric);

// pfc.txt in the reference's columns; the queue samples as "time_ns switch port bytes" lines inside [startNs,
// endNs]. Both atomic; false (reported) on failure.
bool writePfcFile(const RoceFabric& fabric, const std::string& path, Diagnostics& diag);
bool writeQueueSamples(const RoceFabric& fabric, const std::string& path, uint64_t startNs, uint64_t endNs,
                       Diagnostics& diag);

}  // namespace mlnet::roce

#endif

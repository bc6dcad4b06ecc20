// Everything mlnet-ns3 needs to know about the network besides the trace: the topology (one TopologySpec) and
// the packet model's settings, read from whichever form the user has:
// - our JSON network description: "topology" (see astra-core/network/topology-description.h) plus the packet
//   model's sections, every one optional, every value with its unit:
//     "switch": {"buffer": "32MB", "reserve": "4KB", "pfc": true, "ecn": true, "headroom-factor": 1.5,
//     "cut-through": true, "int-multi": 1 (the reference's INT_MULTI, for the int-fields rule),
//                "ecn-per-25gbps": {"kmin": "100KB", "kmax": "400KB", "pmax": 0.2},
//                "tiers": {"spine": {"buffer": "64MB", "pfc": true, "ecn": true, "ecn-per-25gbps": {...}}}}
//     "nic": {"payload": "4KB", "ack-interval": "1B", "ack-chunk": "0B", "ack-priority": 0, "rto": "1ms",
//             "cnp-interval": "50us", "nack-interval": "500us", "connections": "per-message" | "per-peer",
//             "traffic-class": 3, "priority-classes": [3, 5], "global-base-rtt": true}
//       (a collective's messages travel in priority-classes[comm_priority], the last entry for higher
//       priorities; without the list every message takes traffic-class)
//     "congestion-control": {"algorithm": "dcqcn", "preset": "paper", "parameters": {"EWMA_GAIN": ...}}
//       (parameters are config.txt keys, used with the "config" preset)
//     "links": {"error-rate": 0}
//     "outputs": {"queue-interval": "1us", "timeline": true, "timeline-flows": 100000}
//       (queue samples, "time_ns switch port bytes" in qlen.txt, are written when "queue-samples" is true or
//       any of "queue-interval", "queue-start", "queue-end" is given)
//     "run": {"time-limit": "10s", "hang-check": "10ms", "seed": 1}
//     "background": {"flow-size-cdf": "WebSearch.txt", "load": 0.3, "hosts": [0, 1, ...], "traffic-class": 4}
//     "model-rules": {"compat": "hpcc", "framing": "rocev2", ...}   (the --compat, --framing, --hpcc-queue,
//       --flow-starts, --ecmp, --hpcc-rate-change, --nic-arbitration, --int-fields, --ecn-draws, --mmu,
//       --pfc-pause, --ack-class, --retransmit, --delivery options of model-rules.h, as keys)
// - ASTRA-sim's ns-3 backend configuration: config.txt (HPCC keys, TOPOLOGY_FILE) or its config.json;
// - SimAI's: its SimAI.conf (config.txt keys) with its topology file (TOPOLOGY_FILE or --topology);
// - an ASTRA-sim analytical network YAML (or its JSON keys): a multi-dimensional network at packet level.
// Forms without packet-model sections use the defaults below (RoCEv2 4 KB payloads, cut-through switches, 32
// MB buffers, PFC, ECN 100/400 KB per 25 Gb/s, DCQCN with the paper's parameters).
#ifndef MLNET_ROCE_NETWORK_DESCRIPTION_H
#define MLNET_ROCE_NETWORK_DESCRIPTION_H

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fabric-settings.h"
#include "hpcc-config.h"
#include "model-rules.h"
#include "network/topology-spec.h"
#include "util/diagnostics.h"

namespace mlnet::roce {

struct BackgroundSettings {
    std::string source;           // the description it came from, for messages
    std::string flowSizeCdf;      // HPCC traffic-generator CDF: "<size bytes> <cumulative %>" per line
    double load = 0;              // offered load per host, a fraction of its NIC rate
    std::vector<uint32_t> hosts;  // host indices that send and receive (empty: every host)
    uint8_t trafficClass = 4;
    uint16_t dport = 200;
};

struct PacketModelSettings {
    std::string source;  // the file the settings came from
    FabricSettings fabric;
    std::string cc = "dcqcn";  // none, dcqcn, dctcp, timely, hpcc
    std::string ccPreset = "paper";
    HpccConfig ccParameters;  // the "config" preset's values
    uint8_t trafficClass = 3;
    std::vector<uint8_t> priorityClasses;  // by comm_priority; empty: every message in trafficClass
    ModelRuleOptions ruleOptions;          // "model-rules"; the command line's options apply on top
    // HPCC-style configurations name their outputs; empty: the output directory's defaults.
    std::string fctPath, pfcPath, queuePath;
    TimePs queueIntervalPs = 1'000'000;  // queue samples at most every 1 us per port
    TimePs queueStartPs = 0, queueEndPs = UINT64_MAX;
    bool timeline = true;
    uint64_t timelineFlows =
        100'000;  // message slices in the timeline at most (compute and collectives: all)
    TimePs timeLimitPs = UINT64_MAX;
    TimePs hangCheckPs = 10'000'000'000ull;
    uint64_t seed = 1;
    std::optional<BackgroundSettings> background;
    std::optional<HpccConfig::LinkDown> linkDown;
    // How the description was given, for the summary: "json", "astra-ns3-config", "simai",
    // "astra-analytical".
    std::string form;
    // The packet-model sections a JSON description gave ("switch", "nic", ...), for tools that honour only
    // some of them (mlnet-flows) and must refuse the rest.
    std::vector<std::string> sectionsGiven;
};

struct NetworkDescription {
    std::shared_ptr<const TopologySpec> topology;
    PacketModelSettings settings;
};

// Reads a network configuration in any of the forms above; errors name the file, the line and the key.
// Relative paths inside ASTRA-sim / HPCC configurations are taken from the working directory, as ASTRA-sim
// does, and otherwise from the configuration's folder. `topologyFile`, for config.txt-style configurations
// only, replaces their TOPOLOGY_FILE (SimAI passes its topology separately, -n FILE). A SimAI topology file
// (simai-topology.h) makes the configuration a SimAI.conf, read with SimAI's semantics
// (simai-config.h): GPUs are the hosts, NVSwitches the "scale-up" tier, which does not mark ECN.
std::optional<NetworkDescription> loadNetworkDescription(const std::string& path, Diagnostics& diag,
                                                         const std::string& topologyFile = "");

// The topology of a network file for tools that take their packet-model settings elsewhere (mlnet-flows,
// mlnet-trafficgen): a JSON network description is read whole, every section checked by the rules mlnet-ns3
// applies, and its settings returned in `settings` when given (the caller refuses what it cannot honour);
// other forms (HPCC topology files, ASTRA-sim YAML) as loadTopologyDescription reads them.
std::shared_ptr<const TopologySpec> loadTopologyOfNetwork(
    const std::string& path, Diagnostics& diag, std::optional<PacketModelSettings>* settings = nullptr);

// The settings of an HPCC-style configuration (config.txt keys), for a network given by it.
PacketModelSettings packetSettingsFromHpccConfig(const HpccConfig& config);

}  // namespace mlnet::roce

#endif

// Network descriptions as files, read into one TopologySpec for both network models:
// - an ASTRA-sim network YAML (topology / npus_count / bandwidth / latency lists: a multi-dimensional
// network,
//   bandwidth in GB/s of 2^30 bytes, latency in ns), or the same keys in JSON;
// - an HPCC topology file (any name not ending in .json, .yml or .yaml);
// - our JSON network description, whose "topology" object names a builder or a file:
//     {"builder": "fat-tree", "k": 4, "rate": "100Gbps", "delay": "1us"}
//     {"builder": "clos", "leaves": 8, "hosts-per-leaf": 16, "spines": 8, "rate": "200Gbps", "delay":
//     "0.5us"}
//       (three tiers with "pods", "leaves"/"spines" per pod and "cores-per-spine"; "oversubscription" derives
//       the leaf uplink rate)
//     {"builder": "rail-optimised", "servers": 16, "nics-per-server": 8, "spines": 8, ...}
//     {"builder": "multi-dimensional", "topology": ["Ring", "Switch"], "npus_count": [4, 4],
//      "bandwidth": [50, 50], "latency": [500, 500]}
//     {"file": "topo.txt"}                       (HPCC format, relative to the JSON file)
//     {"nodes": 3, "switches": [2], "links": [{"a": 0, "b": 2, "rate": "100Gbps", "delay": "1us"}, ...]}
//   Builders take per-tier link settings ("host-rate", "leaf-delay", ...: the uplinks of that tier) and
//   "scale-up": {"npus-per-server": 8, "rate": "3600Gbps", "delay": "250ns"} ("nvls": true: the scale-up
//   switches reduce and multicast, each through a reduction engine), and "sharp": "<tier>" makes every switch
//   of that scale-out tier reduce (SHARP-class, e.g. "rail"); an optional top-level "ranks" lists the host id
//   of every rank. The other top-level sections (kPacketModelSections) belong to the packet
//   model and are read there; anything else is an error.
// The analytical tools' older JSON forms keep working: {"topology": "FatTree", "k": 4, "bandwidth": 50,
// "latency": 500} and {"topology-file": "topo.txt"}.
#ifndef MLNET_NETWORK_TOPOLOGY_DESCRIPTION_H
#define MLNET_NETWORK_TOPOLOGY_DESCRIPTION_H

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

#include "network/topology-spec.h"
#include "util/diagnostics.h"

namespace mlnet {

// Top-level sections of a JSON network description that the packet model reads (ns3-modules/roce/helper).
inline constexpr const char* kPacketModelSections[] = {"links",      "switch",  "nic", "congestion-control",
                                                       "background", "outputs", "run", "model-rules"};

// Reads a description (see above). Errors name the file, the line where known and the key; null on errors.
std::shared_ptr<const TopologySpec> loadTopologyDescription(const std::string& path, Diagnostics& diag);

// The topology of a parsed JSON network description `doc` (read from `path`, whose `text` gives lines):
// its "topology" (object or an older form) and "ranks". Other top-level keys are not checked here.
std::shared_ptr<const TopologySpec> topologyFromJson(const nlohmann::json& doc, const std::string& path,
                                                     const std::string& text, Diagnostics& diag);

}  // namespace mlnet

#endif

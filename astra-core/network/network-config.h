// Network configuration files: ASTRA-sim's analytical YAML (one list entry per dimension), the same keys in
// JSON, and our JSON extensions for graph topologies (a k-ary fat-tree, or an HPCC-format topology file).
#ifndef MLNET_NETWORK_NETWORK_CONFIG_H
#define MLNET_NETWORK_NETWORK_CONFIG_H

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "network/topology.h"
#include "util/diagnostics.h"

namespace mlnet {

// Either `dimensions` (multi-dimensional network) or `graph` is set once the file loaded without errors.
struct NetworkConfig {
    std::string path;
    std::vector<Dimension> dimensions;
    std::shared_ptr<const Topology> graph;
};

// Reads a network configuration, JSON when the name ends in ".json", otherwise YAML:
//   topology: [Ring, FullyConnected, Switch, ...]   npus_count: [...]   bandwidth: [...] (GB/s)   latency:
//   [...] (ns)
// (scalars are accepted for one dimension). JSON also accepts {"topology": "FatTree", "k": 4, "bandwidth":
// 50, "latency": 500} and {"topology-file": "hpcc_topo.txt"} (relative to the JSON file). Unknown keys are
// errors. Problems go to `diag`, naming the file, the line where known, the key and what was expected.
NetworkConfig loadNetworkConfig(const std::string& path, Diagnostics& diag);

// Reads an HPCC-format topology file: "<nodes> <switches> <links>", the switch ids, then one line per cable
// "<a> <b> <rate, e.g. 100Gbps> <delay, e.g. 1000ns> <error rate>" (a link each way). Non-switch ids, in
// increasing order, become NPUs 0..H-1; switches follow in increasing id order.
std::optional<Topology> loadHpccTopology(const std::string& path, Diagnostics& diag);

// Throws std::invalid_argument when the configuration holds no network (it failed to load).
Topology makeTopology(const NetworkConfig& config);

}  // namespace mlnet

#endif

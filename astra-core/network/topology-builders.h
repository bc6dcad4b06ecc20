// Builders of common training networks as TopologySpecs, each with its routes written from the structure (as
// htsim computes fat-tree routes by arithmetic): no search, and routing state proportional to the ports.
// Every builder throws std::invalid_argument with the offending parameter when the shape is impossible.
#ifndef MLNET_NETWORK_TOPOLOGY_BUILDERS_H
#define MLNET_NETWORK_TOPOLOGY_BUILDERS_H

#include <cstdint>
#include <vector>

#include "network/topology-spec.h"

namespace mlnet {

struct LinkSettings {
    uint64_t rateBps = 100'000'000'000ull;
    TimePs delayPs = 1'000'000;  // 1 us
    double errorRate = 0;
};

// Three-tier Clos networks and two-tier leaf-spine networks. Hosts hang off leaves; leaves connect to every
// spine of their pod; in three tiers, spine j of every pod connects to cores j*coresPerSpine ..
// (j+1)*coresPerSpine-1. Two tiers: pods = 0 (one pod, no cores). Oversubscription at the leaf is
// hostsPerLeaf x host rate : spinesPerPod x leaf rate.
struct ClosShape {
    uint32_t pods = 0;  // 0: two-tier leaf-spine
    uint32_t leavesPerPod = 1;
    uint32_t spinesPerPod = 1;
    uint32_t hostsPerLeaf = 1;
    uint32_t coresPerSpine = 0;  // three tiers only
    LinkSettings host;           // host - leaf
    LinkSettings leaf;           // leaf - spine
    LinkSettings spine;          // spine - core
};
TopologySpec buildClos(const ClosShape& shape);

// One switch with `hosts` hosts (the incast experiment, ASTRA-sim's 8-host ns-3 example): host h on port h.
TopologySpec buildStar(uint32_t hosts, const LinkSettings& link);

// The k-ary fat-tree (k even): k pods of k/2 edge and k/2 aggregation switches, k/2 hosts per edge switch,
// k^2/4 cores; every link `link` unless the tier's own settings are given to buildClos.
TopologySpec buildFatTree(uint32_t k, const LinkSettings& link);

// Rail-optimised: `servers` servers of `nicsPerServer` GPUs, each GPU with one NIC; NIC r of every server is
// on rail switch r, and every rail switch connects to every one of `spines` spines. Ranks are numbered
// server-major (rank = server x nicsPerServer + r, as NCCL numbers them); hosts are numbered rail-major so
// each rail's hosts are one block of the routing tables.
TopologySpec buildRailOptimised(uint32_t servers, uint32_t nicsPerServer, uint32_t spines,
                                const LinkSettings& host, const LinkSettings& leaf);

// Adds a scale-up domain (NVSwitch-class switch) per server: the hosts of ranks [s x npusPerServer,
// (s+1) x npusPerServer) get a second port on server s's switch, which carries all traffic between them while
// everything else keeps using the scale-out NIC. With `reduces` (NVLink SHARP, as NCCL's NVLS uses it) each
// scale-up switch also gets a reduction engine (TopologySpec::engines), cabled to it at the sum of its GPU
// links' rates so that the GPU links, not the engine, bound what the switch reduces and multicasts.
void addScaleUp(TopologySpec& spec, uint32_t npusPerServer, const LinkSettings& link, bool reduces = false);

// Gives each of `switches` (vertex indices) a reduction engine (TopologySpec::engines): a host vertex after
// the existing hosts (switch indices move up), cabled to its switch at the sum of the switch's port rates
// with no delay, reached from the hosts the switch serves through it. In-network reduction (NVLS in a
// scale-up switch, SHARP-class in a scale-out one) sends contributions to the engine and results from it.
void addReductionEngines(TopologySpec& spec, const std::vector<uint32_t>& switches);

// ASTRA-sim's multi-dimensional network at packet level: NPU i has one port per link it needs (Ring: two, or
// one for a ring of two; FullyConnected: n-1; Switch: one to the dimension's switch), links carry the
// dimension's bandwidth (bytes/ns, rounded to whole b/s) and latency (rounded to whole ps), and messages
// route in dimension order through the NPUs on the way, as ASTRA-sim's NPU-to-NPU links do.
TopologySpec buildMultiDimensional(const std::vector<Dimension>& dimensions);

}  // namespace mlnet

#endif

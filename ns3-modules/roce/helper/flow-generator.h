// Flow files for the HPCC-style experiments, generated as the reference's traffic_gen.py does and then some:
// Poisson arrivals at every host at an offered load (a fraction of the host's NIC rate) with sizes from a CDF
// and destinations uniform over the other hosts; incast rounds (many senders, one receiver); a random
// permutation (every host sends to one other, each host receiving once); and an all-to-all. Deterministic for
// a seed: the draws come from std::mt19937_64 through our own transforms, not from the library's
// distributions.
#ifndef MLNET_ROCE_FLOW_GENERATOR_H
#define MLNET_ROCE_FLOW_GENERATOR_H

#include <cstdint>
#include <vector>

#include "flow-file.h"
#include "flow-size-cdf.h"

namespace mlnet::roce {

struct FlowHost {
    uint32_t nodeId;   // as the topology file names it
    uint64_t rateBps;  // its NIC rate: the offered load is a fraction of it
};

struct FlowDefaults {
    uint64_t startNs = 2'000'000'000;  // the reference's base time (2 s)
    uint8_t priority = 3;
    uint16_t dport = 100;
    uint64_t seed = 1;
};

// Arrivals at each host with exponential gaps of mean 8 * mean size / (load * rate), from startNs until
// startNs + durationNs. Requires load in (0, 1] and at least two hosts.
std::vector<FlowSpec> poissonFlows(const std::vector<FlowHost>& hosts, const FlowSizeCdf& cdf, double load,
                                   uint64_t durationNs, const FlowDefaults& defaults);

// `rounds` rounds, `intervalNs` apart: in each, `senders` distinct hosts other than hosts[receiver] each
// start a flow of sizeBytes to it at the same time. Requires senders < hosts.size().
std::vector<FlowSpec> incastFlows(const std::vector<FlowHost>& hosts, uint32_t receiver, uint32_t senders,
                                  uint64_t sizeBytes, uint32_t rounds, uint64_t intervalNs,
                                  const FlowDefaults& defaults);

// One flow of sizeBytes from every host to its image under a random permutation without fixed points.
std::vector<FlowSpec> permutationFlows(const std::vector<FlowHost>& hosts, uint64_t sizeBytes,
                                       const FlowDefaults& defaults);

// One flow of sizeBytes from every host to every other, all at startNs: hosts.size()·(hosts.size()-1) flows
// ordered by source, then destination, in the order of `hosts` (the order of hpcc-bench's all-to-all files).
std::vector<FlowSpec> allToAllFlows(const std::vector<FlowHost>& hosts, uint64_t sizeBytes,
                                    const FlowDefaults& defaults);

}  // namespace mlnet::roce

#endif

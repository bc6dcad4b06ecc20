// Shared by the topology, network configuration and analytical network tests (test-network-topology.cc,
// test-analytical-network.cc): one-dimensional networks, the HPCC k4 fat tree and networks from node ids.
#ifndef MLNET_TESTS_ANALYTICAL_NETWORK_TEST_UTIL_H
#define MLNET_TESTS_ANALYTICAL_NETWORK_TEST_UTIL_H

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "network/dimension.h"
#include "network/hpcc-topology.h"
#include "network/topology.h"
#include "util/diagnostics.h"

namespace mlnet::test {

inline const double kGbps50 = gigabytesPerSecondToBytesPerNs(50);
// hpcc-bench's k=4 fat-tree, the golden cases' topology: what `mlnet-topology --builder=fat-tree --k=4
// --write-hpcc=FILE --hpcc-link-order=tiers` writes (test-topology checks that it still does).
inline const std::string kK4Topo = std::string(MLNET_SOURCE_DIR) + "/tests/golden/k4.txt";

inline Topology oneDim(DimensionKind kind, uint32_t npus, double gbps = 50, double latencyNs = 500) {
    return Topology::multiDimensional({{kind, npus, gigabytesPerSecondToBytesPerNs(gbps), latencyNs}});
}

inline Topology loadK4() {
    Diagnostics diag;
    auto topology = loadHpccTopologyFile(kK4Topo, diag);
    if (!topology) {
        throw std::runtime_error(diag.format(Severity::Error));
    }
    return Topology::fromSpec(std::make_shared<const TopologySpec>(std::move(*topology)));
}

// A network from node ids: `switches` are ids hosts..hosts+switches-1; every pair is a cable of `bytesPerNs`
// and `latencyNs` unless given.
struct TestCable {
    uint32_t a, b;
    double bytesPerNs = 1, latencyNs = 1;
};
inline Topology graphOf(uint32_t hosts, uint32_t switches, const std::vector<TestCable>& cables) {
    std::vector<bool> isSwitch(hosts + switches, false);
    for (uint32_t s = hosts; s < hosts + switches; ++s) {
        isSwitch[s] = true;
    }
    std::vector<SpecCable> byId;
    for (const TestCable& c : cables) {
        byId.push_back({c.a, c.b, static_cast<uint64_t>(c.bytesPerNs * 8e9),
                        static_cast<TimePs>(c.latencyNs * 1000), 0, 0});
    }
    Diagnostics diag;
    auto spec = specFromNodeIds(hosts + switches, isSwitch, byId, "test", diag);
    if (!spec) {
        throw std::runtime_error(diag.format(Severity::Error));
    }
    return Topology::fromSpec(std::make_shared<const TopologySpec>(std::move(*spec)));
}

}  // namespace mlnet::test

#endif

// A RoCE fabric with a flow runner and the simulator's lifetime, for tests.
#ifndef MLNET_TESTS_ROCE_TEST_UTIL_H
#define MLNET_TESTS_ROCE_TEST_UTIL_H

#include <memory>

#include "hpcc-flow-runner.h"
#include "network/topology-builders.h"
#include "roce-fabric.h"

namespace mlnet::roce {

inline constexpr uint64_t k100G = 100'000'000'000ull;

struct TestNetwork {
    TestNetwork(std::shared_ptr<const TopologySpec> spec, FabricSettings settings, Diagnostics& diag,
                TimePs hangCheckPs = 10'000'000'000ull)
        : fabric(std::move(spec), std::move(settings), diag), runner(fabric, hangCheckPs) {}
    SimulatorSession session;  // first member: destroyed last, after the fabric
    RoceFabric fabric;
    HpccFlowRunner runner;
};

// Hosts 0..n-1 on one switch (node n), every cable 100 Gb/s and 1 us; host 0's cable loses frames at
// errorRate.
inline std::shared_ptr<const TopologySpec> star(uint32_t hosts, double errorRate = 0) {
    LinkSettings link;
    link.rateBps = k100G;
    TopologySpec spec = buildStar(hosts, link);
    spec.cables[0].errorRate = errorRate;
    return std::make_shared<const TopologySpec>(std::move(spec));
}

}  // namespace mlnet::roce

#endif

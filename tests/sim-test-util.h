// Runs small analytical simulations from traces built in memory.
#ifndef MLNET_TESTS_SIM_TEST_UTIL_H
#define MLNET_TESTS_SIM_TEST_UTIL_H

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "system/simulation.h"
#include "workload/trace-set.h"
#include "workload/trace-writer.h"

namespace mlnet::test {

inline SystemConfig ringSystem(std::size_t dims, uint32_t splits = 1, uint64_t endpointDelayNs = 10,
                               double localMemBwGBps = 1600,
                               CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring) {
    SystemConfig c;
    c.preferredDatasetSplits = splits;
    c.endpointDelayNs = endpointDelayNs;
    c.localMemBwGBps = localMemBwGBps;
    c.collectiveOptimization = CollectiveOptimization::LocalBwAware;
    c.allReduce = c.reduceScatter = c.allGather = c.allToAll =
        std::vector<AlgorithmChoice>(dims, AlgorithmChoice{algorithm, 0});
    c.path = "test-system.json";
    return c;
}

inline Dimension dim(DimensionKind kind, uint32_t npus, double gbps = 50, double latencyNs = 500) {
    return Dimension{kind, npus, gigabytesPerSecondToBytesPerNs(gbps), latencyNs};
}

inline TraceSet loadBuilt(const TraceSetBuilder& builder, const std::string& label = "mem",
                          const TraceSetOptions& options = {}) {
    std::vector<std::string> files;
    for (Rank r = 0; r < builder.size(); ++r) {
        files.push_back(builder.rank(r).serialize());
    }
    Diagnostics diag;
    TraceSet set = loadTraceSetFromMemory(label, files, options, diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    return set;
}

inline SimulationOutcome run(const TraceSet& traces, const SystemConfig& system, const Topology& topology,
                             SimulationOptions options = {}, const RemoteMemoryConfig& memory = {}) {
    Diagnostics diag;
    SimulationOutcome o = simulate(traces, system, topology, memory, options, diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    return o;
}

// ASTRA-sim's per-message network delay, floor(hops * latency + bytes / bandwidth).
inline uint64_t netNs(uint64_t bytes, double gbps = 50, double latencyNs = 500, uint32_t hops = 1) {
    return static_cast<uint64_t>(hops * latencyNs +
                                 static_cast<double>(bytes) / gigabytesPerSecondToBytesPerNs(gbps));
}

// ASTRA-sim's reduction cost of one message: three passes, each truncated.
inline uint64_t reduceNs(uint64_t bytes, double localMemBwGBps = 1600) {
    return 3 * static_cast<uint64_t>(static_cast<double>(bytes) / (localMemBwGBps * 1e9) * 1e9);
}

}  // namespace mlnet::test

#endif

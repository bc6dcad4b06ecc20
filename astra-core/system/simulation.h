// One analytical simulation: trace set + system configuration + topology + memory model in, per-rank finish
// times and per-collective records out. Shared by mlnet-analytical, the tests and the benchmarks.
#ifndef MLNET_SYSTEM_SIMULATION_H
#define MLNET_SYSTEM_SIMULATION_H

#include <string>
#include <vector>

#include "network/congestion-aware-network.h"
#include "network/topology.h"
#include "system/collective-engine.h"
#include "system/system-config.h"
#include "system/trace-executor.h"
#include "workload/trace-set.h"

namespace mlnet {

struct SimulationOptions {
    NetworkModel model = NetworkModel::CongestionUnaware;
    UnawareRouting routing = UnawareRouting::LowestDimension;
    ExecutorOptions executor;
    uint32_t queuesPerDimension = 1;  // --num-queues-per-dim
    double injectionScale = 1.0;      // multiplies endpoint-delay (truncated to whole ns, as in ASTRA-sim)
};

struct SimulationOutcome {
    bool completed = false;  // every rank drained its trace
    TimeNs endNs = 0;
    std::vector<TraceExecutor::RankResult> ranks;
    std::vector<CollectiveEngine::Record> collectives;
    std::string stallReport;  // what unfinished ranks wait for
    uint64_t events = 0;
    uint64_t messages = 0;
    uint64_t bytesDelivered = 0;
    double wallSeconds = 0;
};

// Configuration problems (topology size differs from the trace, algorithm lists, untimeable nodes) are
// reported to `diag` and nothing runs.
SimulationOutcome simulate(const TraceSet& traces, const SystemConfig& system, const Topology& topology,
                           const RemoteMemoryConfig& memory, const SimulationOptions& options,
                           Diagnostics& diag);

// The logical topology collectives see: the network's dimensions, or one dimension over every NPU for graphs.
LogicalTopology logicalTopologyOf(const Topology& topology);

}  // namespace mlnet

#endif

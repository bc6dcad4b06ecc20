// One training-loop simulation: trace set + system configuration + logical topology + memory model, run over
// any NetworkApi (the analytical backends here, the packet-level RoCE fabric in ns3-modules): the trace
// executor, the system layer's collectives and the compute and memory models schedule everything through the
// network's clock, so the same core code runs on either backend. simulate() is the analytical driver, shared
// by mlnet-analytical, the tests and the benchmarks.
#ifndef MLNET_SYSTEM_SIMULATION_H
#define MLNET_SYSTEM_SIMULATION_H

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "network/analytical-network.h"
#include "network/topology-spec.h"
#include "network/topology.h"
#include "system/collective-engine.h"
#include "system/nccl/nccl-collectives.h"
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
    // The physical network (servers, NVLink, NICs), for the NCCL model; required when the system
    // configuration asks for it.
    const TopologySpec* physical = nullptr;
    bool memoizeCollectives = false;  // NCCL: replay repeated collectives of private domains (nccl-memo.h)
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
    // What switches that reduce did (NVLS through the scale-up switches' reduction engines): the sums they
    // formed (one per channel, head and loop) and the bytes into and out of their engines.
    struct InNetworkReduction {
        uint64_t reductions = 0, bytesIn = 0, bytesOut = 0;
    } inNetworkReduction;
    std::optional<nccl::CollectiveMemo::Stats> collectiveMemo;  // with memoizeCollectives
};

class Simulation {
public:
    // Checks the configuration against the traces and the logical topology (algorithm lists, custom
    // implementations, untimeable nodes, the memory model); problems go to diag and valid() is false.
    // Everything passed in must outlive the simulation.
    Simulation(const TraceSet& traces, const SystemConfig& system, const LogicalTopology& logical,
               const RemoteMemoryConfig& memory, const SimulationOptions& options, NetworkApi& network,
               Diagnostics& diag);
    ~Simulation();
    Simulation(const Simulation&) = delete;
    Simulation& operator=(const Simulation&) = delete;

    bool valid() const { return m_valid; }
    void setObserver(ExecutionObserver* observer);
    // Schedules every rank's first issue now; then run the network's event loop. `finished` runs when the
    // last rank is done.
    void start(Callback finished = {});
    bool finished() const;
    uint32_t ranksFinished() const;
    // Per-rank and per-collective results so far, with a stall report when some rank is unfinished. The
    // event, message and wall-clock fields are the driver's to fill.
    SimulationOutcome outcome(TimeNs nowNs) const;

private:
    SystemConfig m_config;
    std::vector<std::unique_ptr<TraceSet>> m_programs;
    CustomCollectives m_custom;
    std::unique_ptr<CollectivePlanner> m_planner;
    std::unique_ptr<CollectiveEngine> m_engine;
    std::unique_ptr<nccl::NcclTopology> m_ncclTopology;
    std::unique_ptr<nccl::NcclCollectives> m_nccl;
    std::unique_ptr<ComputeModel> m_compute;
    std::unique_ptr<MemoryModel> m_memory;
    std::unique_ptr<TraceExecutor> m_executor;
    bool m_valid = false;
};

// The logical topology collectives see: the network's dimensions, or one dimension over every rank for
// graphs.
LogicalTopology logicalTopologyOf(const Topology& topology);

// The analytical run: the topology's ranks must equal the trace's; problems go to `diag` and nothing runs.
// The collectives see `logical` when given, else logicalTopologyOf(topology).
SimulationOutcome simulate(const TraceSet& traces, const SystemConfig& system, const Topology& topology,
                           const RemoteMemoryConfig& memory, const SimulationOptions& options,
                           Diagnostics& diag, const LogicalTopology* logical = nullptr);

}  // namespace mlnet

#endif

#include "simulation.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace mlnet {

LogicalTopology logicalTopologyOf(const Topology& topology) {
    LogicalTopology logical;
    if (topology.isMultiDimensional()) {
        for (const Dimension& d : topology.dimensions()) {
            logical.dimSizes.push_back(d.npus);
            logical.dimBandwidthBytesPerNs.push_back(d.bandwidthBytesPerNs);
        }
    } else {
        double slowest = 0;
        for (const Link& l : topology.links()) {
            slowest = slowest == 0 ? l.bandwidthBytesPerNs : std::min(slowest, l.bandwidthBytesPerNs);
        }
        logical.dimSizes.push_back(topology.numRanks());
        logical.dimBandwidthBytesPerNs.push_back(slowest);
    }
    return logical;
}

Simulation::Simulation(const TraceSet& traces, const SystemConfig& system, const LogicalTopology& logical,
                       const RemoteMemoryConfig& memory, const SimulationOptions& options,
                       NetworkApi& network, Diagnostics& diag)
    : m_config(system) {
    const std::size_t errorsBefore = diag.errorCount();
    if (logical.numNpus() != traces.numRanks()) {
        diag.error(traces.prefix + ": the trace set has " + std::to_string(traces.numRanks()) +
                   " ranks but the logical topology has " + std::to_string(logical.numNpus()) +
                   " NPUs; they must be equal");
        return;
    }
    m_config.queuesPerDimension = options.queuesPerDimension;
    const auto endpointDelayNs =
        static_cast<uint64_t>(static_cast<double>(system.endpointDelayNs) * options.injectionScale);
    m_planner = std::make_unique<CollectivePlanner>(m_config, logical, endpointDelayNs);

    // Custom collective implementations: one graph per communicator position, which must match every
    // communicator the collective runs on.
    const std::pair<const std::string*, const TraceSet**> slots[] = {
        {&m_config.allReduceCustom, &m_custom.allReduce},
        {&m_config.reduceScatterCustom, &m_custom.reduceScatter},
        {&m_config.allGatherCustom, &m_custom.allGather},
        {&m_config.allToAllCustom, &m_custom.allToAll}};
    for (const auto& [prefix, slot] : slots) {
        if (!prefix->empty()) {
            m_programs.push_back(std::make_unique<TraceSet>(loadTraceSet(*prefix, {}, diag)));
            *slot = m_programs.back().get();
        }
    }
    // The collective types the trace runs without a custom implementation: their implementation lists must
    // be usable here.
    std::vector<CollectiveType> used;
    for (const RankTrace& trace : traces.ranks) {
        for (const TraceNode& node : trace.nodes) {
            if (node.isSimulatedCollective() && !m_custom.forType(node.collective) &&
                std::find(used.begin(), used.end(), node.collective) == used.end()) {
                used.push_back(node.collective);
            }
        }
    }
    // The types NCCL runs do not need ASTRA-sim's implementation lists.
    used.erase(std::remove_if(used.begin(), used.end(),
                              [&](CollectiveType t) { return system.ncclFor[static_cast<int>(t)]; }),
               used.end());
    m_planner->validate(diag, used);
    for (const RankTrace& trace : traces.ranks) {
        for (const TraceNode& node : trace.nodes) {
            const TraceSet* program =
                node.isSimulatedCollective() ? m_custom.forType(node.collective) : nullptr;
            if (program && program->numRanks() != traces.groups.members(node.group)->size()) {
                diag.error(atNode(trace.path, node.id) + ": the custom " +
                           std::string(toString(node.collective)) + " implementation " + program->prefix +
                           " has " + std::to_string(program->numRanks()) + " ranks but communicator " +
                           std::to_string(node.group) + " has " +
                           std::to_string(traces.groups.members(node.group)->size()));
                break;
            }
        }
    }
    m_engine = std::make_unique<CollectiveEngine>(network, m_config, *m_planner, traces.groups, m_custom,
                                                  options.executor.overlapCollectives);
    m_compute = std::make_unique<ComputeModel>(m_config);
    m_memory = std::make_unique<MemoryModel>(memory, m_config.localMemBwGBps, traces.numRanks());
    ExecutorOptions executorOptions = options.executor;
    executorOptions.replayOnly |= m_config.replayOnly;
    CollectiveService* collectives = m_engine.get();
    if (system.usesNccl()) {
        nccl::NcclConfig config;
        if (!options.physical) {
            diag.error(system.path +
                       ": the NCCL model (collective-library / implementation \"nccl\") needs the "
                       "physical network: a network description with its servers and NICs");
        } else if (nccl::ncclConfigFrom(system, config, diag)) {
            config.memoize = options.memoizeCollectives;
            m_ncclTopology = std::make_unique<nccl::NcclTopology>(*options.physical, config.platform, diag);
            m_nccl = std::make_unique<nccl::NcclCollectives>(network, *m_ncclTopology, traces.groups, config,
                                                             *m_engine);
            collectives = m_nccl.get();
        }
    }
    m_executor = std::make_unique<TraceExecutor>(traces, network, *collectives, *m_compute, *m_memory,
                                                 executorOptions);
    m_executor->validate(diag);
    m_valid = diag.errorCount() == errorsBefore;  // every problem is reported, not only the first kind
}

Simulation::~Simulation() = default;

void Simulation::setObserver(ExecutionObserver* observer) {
    m_executor->setObserver(observer);
}

void Simulation::start(Callback finished) {
    m_executor->setFinishedCallback(finished);
    m_executor->start();
}

bool Simulation::finished() const {
    return m_executor->allFinished();
}

uint32_t Simulation::ranksFinished() const {
    return m_executor->ranksFinished();
}

SimulationOutcome Simulation::outcome(TimeNs nowNs) const {
    SimulationOutcome outcome;
    outcome.completed = finished();
    outcome.endNs = nowNs;
    outcome.ranks = m_executor->results();
    outcome.collectives = m_engine->records();
    if (m_nccl) {
        for (const nccl::NcclCollectives::Record& r : m_nccl->records()) {
            CollectiveRecord c{r.rank,    r.nodeId, r.type,      r.sizeBytes,        r.group,
                               r.startNs, r.endNs,  r.endNs > 0, r.choice.nChannels, {},
                               0,         {}};
            // All-to-all is NCCL's point-to-point schedule, whatever connections it rides.
            c.nccl = std::string(r.type == CollectiveType::AllToAll ? "P2P" : nccl::algoName(r.choice.algo)) +
                     "/" + nccl::protoName(r.choice.proto) + " x" + std::to_string(r.choice.nChannels);
            outcome.collectives.push_back(std::move(c));
        }
        const nccl::NcclCollectives::EngineCounters& e = m_nccl->engineCounters();
        outcome.inNetworkReduction = {e.reductions, e.bytesIn, e.bytesOut};
        outcome.collectiveMemo = m_nccl->memoStats();
    }
    if (!outcome.completed) {
        outcome.stallReport = m_executor->stallReport();
    }
    return outcome;
}

SimulationOutcome simulate(const TraceSet& traces, const SystemConfig& system, const Topology& topology,
                           const RemoteMemoryConfig& memory, const SimulationOptions& options,
                           Diagnostics& diag, const LogicalTopology* logical) {
    if (traces.numRanks() != topology.numRanks()) {
        diag.error(traces.prefix + ": the trace set has " + std::to_string(traces.numRanks()) +
                   " ranks but the network has " + std::to_string(topology.numRanks()) +
                   " NPUs; they must be equal");
        return {};
    }
    EventQueue queue;
    std::unique_ptr<AnalyticalNetwork> network =
        makeAnalyticalNetwork(topology, options.model, queue, options.routing);
    const LogicalTopology logicalTopology = logical ? *logical : logicalTopologyOf(topology);
    Simulation simulation(traces, system, logicalTopology, memory, options, *network, diag);
    if (!simulation.valid()) {
        return {};
    }
    const auto wallStart = std::chrono::steady_clock::now();
    simulation.start();
    queue.run();
    SimulationOutcome outcome = simulation.outcome(queue.now());
    if (queue.now() >= kTimeLimitNs) {
        diag.error(traces.prefix +
                   ": the simulated time reached 2^62 ns (146 years): a size, bandwidth, latency or "
                   "compute rate is beyond any physical range");
    }
    outcome.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    outcome.events = queue.executed();
    outcome.messages = network->messagesDelivered();
    outcome.bytesDelivered = network->bytesDelivered();
    return outcome;
}

}  // namespace mlnet

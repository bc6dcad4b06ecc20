#include "simulation.h"

#include <chrono>
#include <cmath>
#include <memory>

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

SimulationOutcome simulate(const TraceSet& traces, const SystemConfig& system, const Topology& topology,
                           const RemoteMemoryConfig& memory, const SimulationOptions& options,
                           Diagnostics& diag) {
    SimulationOutcome outcome;
    if (traces.numRanks() != topology.numRanks()) {
        diag.error(traces.prefix + ": the trace set has " + std::to_string(traces.numRanks()) +
                   " ranks but the network has " + std::to_string(topology.numRanks()) +
                   " NPUs; they must be equal");
        return outcome;
    }
    SystemConfig config = system;
    config.queuesPerDimension = options.queuesPerDimension;
    const auto endpointDelayNs =
        static_cast<uint64_t>(static_cast<double>(system.endpointDelayNs) * options.injectionScale);
    CollectivePlanner planner(config, logicalTopologyOf(topology), endpointDelayNs);
    std::string problems = planner.validate();

    // Custom collective implementations: one graph per communicator position, which must match every
    // communicator the collective runs on.
    std::vector<std::unique_ptr<TraceSet>> programs;
    CustomCollectives custom;
    const std::pair<const std::string*, const TraceSet**> slots[] = {
        {&config.allReduceCustom, &custom.allReduce},
        {&config.reduceScatterCustom, &custom.reduceScatter},
        {&config.allGatherCustom, &custom.allGather},
        {&config.allToAllCustom, &custom.allToAll}};
    for (const auto& [prefix, slot] : slots) {
        if (!prefix->empty()) {
            programs.push_back(std::make_unique<TraceSet>(loadTraceSet(*prefix, {}, diag)));
            *slot = programs.back().get();
        }
    }
    for (const RankTrace& trace : traces.ranks) {
        for (const TraceNode& node : trace.nodes) {
            const TraceSet* program =
                node.isSimulatedCollective() ? custom.forType(node.collective) : nullptr;
            if (program && program->numRanks() != traces.groups.members(node.group)->size()) {
                problems += atNode(trace.path, node.id) + ": the custom " +
                            std::string(toString(node.collective)) + " implementation " + program->prefix +
                            " has " + std::to_string(program->numRanks()) + " ranks but communicator " +
                            std::to_string(node.group) + " has " +
                            std::to_string(traces.groups.members(node.group)->size()) + "\n";
                break;
            }
        }
    }
    if (diag.hasErrors()) {
        return outcome;
    }

    EventQueue queue;
    std::unique_ptr<AnalyticalNetwork> network =
        makeAnalyticalNetwork(topology, options.model, queue, options.routing);
    CollectiveEngine engine(*network, config, planner, traces.groups, custom);
    ComputeModel compute(config);
    MemoryModel memoryModel(memory, config.localMemBwGBps, traces.numRanks());
    ExecutorOptions executorOptions = options.executor;
    executorOptions.replayOnly |= config.replayOnly;
    TraceExecutor executor(traces, *network, engine, compute, memoryModel, executorOptions);
    problems += executor.validate();
    if (!problems.empty()) {
        std::size_t start = 0;
        while (start < problems.size()) {
            const std::size_t end = problems.find('\n', start);
            diag.error(problems.substr(start, end - start));
            start = end + 1;
        }
        return outcome;
    }

    const auto wallStart = std::chrono::steady_clock::now();
    executor.start();
    queue.run();
    outcome.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    outcome.completed = executor.allFinished();
    outcome.endNs = queue.now();
    outcome.ranks = executor.results();
    outcome.collectives = engine.records();
    outcome.events = queue.executed();
    outcome.messages = network->messagesDelivered();
    outcome.bytesDelivered = network->bytesDelivered();
    if (!outcome.completed) {
        outcome.stallReport = executor.stallReport();
    }
    return outcome;
}

}  // namespace mlnet

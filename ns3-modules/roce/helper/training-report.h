// The pieces of a packet-level training run around the simulation itself: which hosts the trace's ranks run
// on and which logical topology its collectives see, where the outputs go, the analytical cross-check,
// ASTRA-sim's result lines and the run's summary.json.
#ifndef MLNET_ROCE_TRAINING_REPORT_H
#define MLNET_ROCE_TRAINING_REPORT_H

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "network-description.h"
#include "roce-fabric.h"
#include "run-report.h"
#include "system/simulation.h"

namespace mlnet::roce {

struct TrainingSetup {
    // The description with the trace's ranks mapped to its first hosts (or its own rank map).
    std::shared_ptr<const TopologySpec> topology;
    LogicalTopology logical;
};

// Ranks 0..N-1 of the trace run on the description's first N ranks' hosts: more ranks than hosts is an error.
// The collectives see `logicalDims` when given (their product must be N), else the network's dimensions when
// it has N NPUs, else one dimension of N.
bool prepareTraining(const TraceSet& traces, const TopologySpec& spec,
                     const std::optional<std::vector<uint32_t>>& logicalDims, TrainingSetup& setup,
                     Diagnostics& diag);

struct OutputPaths {
    std::string summary, fct, pfc, queues, timeline;  // empty: not written
    // Files of the output directory by their default names that this run does not write (qlen.txt without
    // queue samples, ...): an earlier run's, removed with the summary so that a folder never mixes two runs.
    std::vector<std::string> stale;
};
// With a directory: every output inside it (created if needed). Without: the configuration's own output paths
// (HPCC-style configurations name them) beside summary.json, or mlnet-ns3-output/.
OutputPaths outputPaths(const std::string& dir, const PacketModelSettings& settings, Diagnostics& diag);
// Removes OutputPaths::stale (reported on failure).
void removeStaleOutputs(const OutputPaths& out, Diagnostics& diag);

struct AnalyticalComparison {
    bool completed = false;
    TimeNs iterationNs = 0;
    std::vector<CollectiveEngine::Record> collectives;
};
// The same trace on the congestion-aware analytical model of the same network (nominal link rates).
std::optional<AnalyticalComparison> compareAnalytical(const TraceSet& traces, const SystemConfig& system,
                                                      const RemoteMemoryConfig& memory,
                                                      SimulationOptions options, const TrainingSetup& setup,
                                                      Diagnostics& diag);

struct TrainingRun {
    SimulationOutcome outcome;
    double cpuSeconds = 0, wallSeconds = 0;
    std::string hangReport;
    bool timeLimited = false;
    NetworkTotals network;
    uint64_t messagesSent = 0, bytesSent = 0;
    uint64_t peakMessageRecords = 0;
    nlohmann::ordered_json background;
    uint64_t timelineMessagesLeftOut = 0;
    std::optional<AnalyticalComparison> analytical;
};

struct RunInputs {
    std::string workload, system, network, form, cc, ccPreset, modelRules;
    TimePs linkDelayOffsetPs = 0;  // --link-delay-offset-ps: added to every cable's delay
    const TrainingSetup& setup;
    const RoceFabric& fabric;
};

// The latest rank finish: the time of the training step.
TimeNs iterationTimeNs(const SimulationOutcome& outcome);
// "sys[i] finished, T cycles, exposed communication E cycles." for every finished rank, as ASTRA-sim prints
// them.
void printResultLines(const SimulationOutcome& outcome);
bool writeSummary(const std::string& path, const RunInputs& inputs, const TrainingRun& run,
                  Diagnostics& diag);
// The iteration time, the network's congestion picture and the cost, in a few lines on stdout.
void printNetworkSummary(const TrainingRun& run, const std::string& cc, const std::string& summaryPath);

}  // namespace mlnet::roce

#endif

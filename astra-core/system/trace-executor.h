// Replays every rank's dependency graph with ASTRA-sim's issue semantics: dependency-free nodes are visited
// in ascending id; a node issues only if its resource is free (one CPU op, one GPU compute op and one GPU
// communication op in flight per rank; receives unlimited). Compute and memory take the time of their models,
// point-to-point messages go to the network and collectives to the system layer.
#ifndef MLNET_SYSTEM_TRACE_EXECUTOR_H
#define MLNET_SYSTEM_TRACE_EXECUTOR_H

#include <cstdint>
#include <string>
#include <vector>

#include "network/network-api.h"
#include "system/collective-service.h"
#include "system/compute-model.h"
#include "workload/trace-set.h"

namespace mlnet {

struct ExecutorOptions {
    // Collectives do not take the communication slot, so several may run at once on a rank (NCCL-like
    // streams).
    bool overlapCollectives = false;
    bool replayOnly = false;  // every node, communication included, takes its recorded duration
};

class TraceExecutor {
public:
    TraceExecutor(const TraceSet& traces, NetworkApi& network, CollectiveService& collectives,
                  const ComputeModel& compute, MemoryModel& memory, ExecutorOptions options = {});

    // Reports problems that would stop the run (untimeable nodes, unusable memory model) to diag; false when
    // there was one.
    bool validate(Diagnostics& diag) const;
    // Told of every node's start and end (timelines); may be null.
    void setObserver(class ExecutionObserver* observer) { m_observer = observer; }
    uint32_t ranksFinished() const { return static_cast<uint32_t>(m_results.size()) - m_unfinishedRanks; }
    // Runs once, when the last rank drains its trace (a packet-level run stops its simulator there).
    void setFinishedCallback(Callback callback) { m_finished = callback; }
    // Schedules every rank's first issue at the current time. Run the network's event loop afterwards.
    void start();

    struct RankResult {
        bool finished = false;
        TimeNs finishNs = 0;
        TimeNs gpuComputeNs = 0;  // sum of GPU compute node durations
        uint64_t nodesDone = 0;
    };
    const std::vector<RankResult>& results() const { return m_results; }
    bool allFinished() const { return m_unfinishedRanks == 0; }
    // For each unfinished rank: the nodes in flight and what they wait for, and how many never became ready.
    std::string stallReport() const;

private:
    enum Slot : uint8_t { kCpu, kGpuCompute, kGpuComm, kUnlimited, kNumSlots };
    struct ReadyHeap {
        std::vector<std::pair<uint64_t, NodeIndex>> items;  // min-heap on node id
        bool empty() const { return items.empty(); }
        void push(uint64_t id, NodeIndex index);
        NodeIndex pop();
        uint64_t topId() const { return items.front().first; }
    };
    struct RankState {
        std::vector<uint32_t> pendingParents;
        std::vector<uint32_t> childBegin;
        std::vector<NodeIndex> children;
        ReadyHeap ready[kNumSlots];
        uint32_t busy[kNumSlots] = {};
        std::vector<bool> inFlight;  // per node
        uint64_t inFlightCount = 0;
        uint64_t remaining = 0;
    };

    Slot slotOf(const TraceNode& node) const;
    void issueReady(Rank rank);
    void rankFinished();
    void startNode(Rank rank, NodeIndex index);
    void complete(uint64_t packed);
    void startRank(uint64_t rank);
    static uint64_t pack(Rank rank, NodeIndex index) { return uint64_t{rank} << 32 | index; }

    const TraceSet& m_traces;
    NetworkApi& m_network;
    CollectiveService& m_collectives;
    const ComputeModel& m_compute;
    MemoryModel& m_memory;
    ExecutorOptions m_options;
    std::vector<RankState> m_ranks;
    std::vector<RankResult> m_results;
    uint32_t m_unfinishedRanks = 0;
    ExecutionObserver* m_observer = nullptr;
    Callback m_finished;
};

// Sees the trace being replayed, node by node, with simulated times.
class ExecutionObserver {
public:
    virtual ~ExecutionObserver() = default;
    virtual void nodeStarted(Rank rank, const TraceNode& node, TimeNs atNs) = 0;
    virtual void nodeFinished(Rank rank, const TraceNode& node, TimeNs atNs) = 0;
};

}  // namespace mlnet

#endif

// The system layer: runs each rank's part of a collective as chunks that move through per-dimension phases,
// each phase executed by a collective algorithm (collectives/*-algorithm.h) over the network interface.
// Timing follows ASTRA-sim 2.x: an endpoint delay when a phase starts and on every receipt,
// 3 x floor(msg / local-mem-bw) per reducing receipt, per-queue admission of `active-chunks-per-dimension`
// chunks, and priorities from the scheduling policy. The engine owns queues, admission and the chunk and
// phase lifecycle; the algorithms own only their phase's steps.
#ifndef MLNET_SYSTEM_COLLECTIVE_ENGINE_H
#define MLNET_SYSTEM_COLLECTIVE_ENGINE_H

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "network/network-api.h"
#include "system/collective-plan.h"
#include "system/collective-service.h"
#include "system/collectives/collective-record.h"
#include "system/collectives/collective-tag.h"
#include "system/collectives/custom-graph-algorithm.h"
#include "system/collectives/direct-algorithm.h"
#include "system/collectives/double-binary-tree-algorithm.h"
#include "system/collectives/halving-doubling-algorithm.h"
#include "system/collectives/phase-algorithm.h"
#include "system/collectives/ring-algorithm.h"
#include "system/collectives/rooted-algorithm.h"
#include "workload/comm-groups.h"
#include "workload/trace-set.h"

namespace mlnet {

class CollectiveEngine : public CollectiveService {
public:
    // queuePerCommunicator: every communicator has its own chunk queues on each rank (NCCL-like streams, for
    // runs whose collectives overlap), instead of ASTRA-sim's queues per dimension shared by all. Shared
    // queues with overlapping collectives of several communicators can deadlock: a rank admits one
    // communicator's chunk while its peer in another communicator admits another's, each waiting for the
    // other. A communicator's queues then run its collectives in issue order (FIFO), whatever the scheduling
    // policy.
    CollectiveEngine(NetworkApi& network, const SystemConfig& config, const CollectivePlanner& planner,
                     const CommGroups& groups, CustomCollectives custom = {},
                     bool queuePerCommunicator = false);

    void issue(Rank rank, const TraceNode& node, Callback done) override;
    std::string describeUnfinished(Rank rank) const override;

    // One entry per rank per collective, in issue order.
    using Record = CollectiveRecord;
    const std::vector<Record>& records() const { return m_records; }
    uint64_t messagesSent() const { return m_host.messagesSent(); }

private:
    struct Collective {
        Rank rank;
        uint32_t chunksLeft;
        uint32_t record;
        int64_t priority;
        Callback done;
        uint32_t queueBase = 0;  // the first of its communicator's queues on the rank (0: shared queues)
    };
    // One chunk of a collective on its way through its phases. A custom graph run is a chunk with one phase
    // that bypasses the queues.
    struct Chunk {
        CollectiveEngine* engine;
        Collective* collective;
        std::vector<PhaseSpec> phases;
        uint32_t phase;
        uint32_t queue;
        // Rank, record, chunk sequence and tag are the chunk's own; spec, tag phase and completion change per
        // phase. The running algorithm points to it.
        PhaseRun run;
        PhaseAlgorithm* algorithm;                    // of the running phase
        std::vector<PhaseAlgorithm*>* algorithmPool;  // where it goes back when the phase ends

        void onPhaseDone(uint64_t) { engine->phaseDone(*this); }
        void onGraphDone(uint64_t) { engine->graphDone(*this); }
    };
    struct Queue {
        uint32_t running = 0;
        std::deque<Chunk*> waiting;  // highest priority first, FIFO among equals
    };

    Collective* newCollective();
    Chunk& newChunk(Collective* c, uint64_t chunkSeq, CollectiveTag tag);
    // Records the end of a collective, recycles it and returns its completion callback for the caller to run.
    Callback finishCollective(Collective* c);

    // Queues and admission.
    uint32_t queueFor(const Chunk& k) const;
    void insertByPriority(Chunk& k);
    void enqueue(Chunk& k);
    void admit(Rank rank, uint32_t queue);
    Queue& queue(Rank rank, uint32_t q) { return m_queues[rank][q]; }
    // The first queue of `group`'s set on `rank`, made on first use (queuePerCommunicator only).
    uint32_t queueBaseOf(Rank rank, GroupId group);

    // Phase lifecycle: dispatch to the algorithm of the phase, then on to the next phase or the end.
    void startPhase(Chunk& k);
    template <typename Algorithm>
    Algorithm& take(Chunk& k, PhasePool<Algorithm>& pool);
    void run(Chunk& k, PhaseAlgorithm& algorithm, Callback done);
    void phaseDone(Chunk& k);
    void startGraph(Collective* c, const TraceNode& node, const TraceSet& program,
                    const std::vector<Rank>& members, CollectiveTag tag);
    void graphDone(Chunk& k);

    NetworkApi& m_network;
    const SystemConfig& m_config;
    const CollectivePlanner& m_planner;
    const CommGroups& m_groups;
    uint32_t m_queuesPerRank;
    uint32_t m_queueThreshold;
    std::vector<std::vector<Queue>> m_queues;  // per rank
    bool m_queuePerCommunicator;
    std::vector<std::vector<GroupId>> m_rankCommunicators;  // per rank, in first-use order
    std::vector<std::vector<double>> m_themisLoadNs;        // per rank, per dimension
    std::unordered_map<GroupId, uint32_t> m_denseGroup;
    std::unordered_map<uint64_t, uint32_t> m_nextSeq;  // (rank, group) -> collectives issued
    ObjectPool<Collective> m_collectives;
    ObjectPool<Chunk> m_chunks;
    std::vector<Record> m_records;
    PhaseHost m_host;
    PhasePool<RingAlgorithm> m_ring;
    PhasePool<DirectAlgorithm> m_direct;
    PhasePool<HalvingDoublingAlgorithm> m_halvingDoubling;
    PhasePool<DoubleBinaryTreeAlgorithm> m_tree;
    PhasePool<RootedAlgorithm> m_rooted;
    PhasePool<CustomGraphAlgorithm> m_graph;
    CustomCollectives m_custom;
    CustomGraphIndex m_graphIndex;
    uint64_t m_issued = 0;
};

}  // namespace mlnet

#endif

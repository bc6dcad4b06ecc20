// The system layer: runs each rank's part of a collective as chunks ("streams") that move through
// per-dimension phases, each phase executed by a collective algorithm (ring, direct, halving-doubling, double
// binary tree, and chains for rooted collectives) over the network interface. Timing follows ASTRA-sim 2.x:
// an endpoint delay when a phase starts and on every receipt, 3 x floor(msg / local-mem-bw) per reducing
// receipt, per-queue admission of `active-chunks-per-dimension` streams, and priorities from the scheduling
// policy.
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
#include "workload/comm-groups.h"
#include "workload/trace-set.h"

namespace mlnet {

// MSCCL-style custom implementations: per collective type, one Chakra graph per position in the communicator
// (SEND/RECV/COMP nodes; comm_src/comm_dst are positions).
struct CustomCollectives {
    const TraceSet* allReduce = nullptr;
    const TraceSet* reduceScatter = nullptr;
    const TraceSet* allGather = nullptr;
    const TraceSet* allToAll = nullptr;
    const TraceSet* forType(CollectiveType type) const;
};

class CollectiveEngine : public CollectiveService {
public:
    CollectiveEngine(NetworkApi& network, const SystemConfig& config, const CollectivePlanner& planner,
                     const CommGroups& groups, CustomCollectives custom = {});

    void issue(Rank rank, const TraceNode& node, Callback done) override;
    std::string describeUnfinished(Rank rank) const override;

    // One entry per rank per collective, in issue order.
    struct Record {
        Rank rank;
        uint64_t nodeId;
        CollectiveType type;
        uint64_t sizeBytes;
        GroupId group;
        TimeNs startNs;
        TimeNs endNs;
        bool finished;
        uint32_t chunks;
        std::vector<uint64_t> bytesSentPerDim;
    };
    const std::vector<Record>& records() const { return m_records; }
    uint64_t messagesSent() const { return m_messagesSent; }

private:
    struct Collective {
        Rank rank;
        uint32_t streamsLeft;
        uint32_t record;
        int64_t priority;
        Callback done;
    };
    struct Stream {
        CollectiveEngine* engine;
        Collective* collective;
        std::vector<PhaseSpec> phases;
        uint32_t phase;
        uint32_t queue;
        uint64_t tagBase;
        uint64_t chunkSeq;  // alternates the double binary trees
        // State of the running phase.
        uint64_t tag;
        uint64_t msgBytes;
        uint32_t steps;
        uint32_t reducingReceipts;
        uint32_t receipts;
        uint32_t processed;
        uint32_t nextPeer;
        uint32_t window;
        uint32_t half;
        uint32_t expected;
    };
    static Stream& as(void* p) { return *static_cast<Stream*>(p); }

    // One rank's run of a custom graph: nodes issue as soon as their parents are done.
    struct CustomRun {
        CollectiveEngine* engine;
        Collective* collective;
        const RankTrace* graph;
        const std::vector<Rank>* members;
        uint64_t tagBase;
        std::vector<uint32_t> pending;
        uint32_t remaining;
    };
    struct CustomGraph {
        std::vector<uint32_t> childBegin;
        std::vector<NodeIndex> children;
    };
    void startCustom(Collective* c, const TraceSet& program, const std::vector<Rank>& members,
                     uint64_t tagBase);
    void startCustomNode(CustomRun& run, NodeIndex index);
    static void customNodeDone(void* run, uint64_t index);
    const CustomGraph& customGraph(const RankTrace& graph);

    struct Queue {
        uint32_t running = 0;
        std::deque<Stream*> waiting;  // highest priority first, FIFO among equals
    };

    // Phase lifecycle and queues.
    // Records the end of a collective, recycles it and returns its completion callback for the caller to run.
    Callback finishCollective(Collective* c);
    void insertByPriority(Stream& s);
    void enqueue(Stream& s);
    void admit(Rank rank, uint32_t queue);
    void startPhase(Stream& s);
    void phaseDone(Stream& s);
    uint32_t queueFor(const Stream& s) const;
    Queue& queue(Rank rank, uint32_t q) { return m_queues[std::size_t{rank} * m_queuesPerRank + q]; }

    // Messaging helpers.
    Rank self(const Stream& s) const { return s.collective->rank; }
    const PhaseSpec& spec(const Stream& s) const { return s.phases[s.phase]; }
    void sendTo(Stream& s, Rank peer, uint64_t bytes, Callback sent = {});
    void recvFrom(Stream& s, Rank peer, uint64_t bytes, Callback::Fn fn, uint64_t arg = 0);
    void later(Stream& s, TimeNs delayNs, Callback::Fn fn, uint64_t arg = 0);
    TimeNs reductionNs(uint64_t bytes) const;

    // Algorithms: each is a small state machine over the Stream's phase fields.
    static void ringStart(Stream& s);
    static void ringSend(void* s, uint64_t);
    static void ringReceipt(void* s, uint64_t);
    static void directStart(Stream& s);
    static void directBegin(void* s, uint64_t);
    static void directReceipt(void* s, uint64_t);
    static void directProcessed(void* s, uint64_t);
    static void hdStart(Stream& s);
    static void hdSend(void* s, uint64_t);
    static void hdReceipt(void* s, uint64_t);
    static void treeStart(Stream& s);
    static void treeLeafSend(void* s, uint64_t);
    static void treeChildReceipt(void* s, uint64_t);
    static void treeChildProcessed(void* s, uint64_t);
    static void treeParentReceipt(void* s, uint64_t);
    static void treeBroadcast(void* s, uint64_t);
    static void finishAfterDelay(void* s, uint64_t);
    static void rootedStart(Stream& s);
    static void rootedSend(void* s, uint64_t);
    static void rootedReceipt(void* s, uint64_t);
    static void rootedProcessed(void* s, uint64_t);
    static void rootedSent(void* s, uint64_t);
    static void finishPhase(void* s, uint64_t);

    NetworkApi& m_network;
    const SystemConfig& m_config;
    const CollectivePlanner& m_planner;
    const CommGroups& m_groups;
    uint32_t m_queuesPerRank;
    uint32_t m_queueThreshold;
    std::vector<Queue> m_queues;
    std::vector<std::vector<double>> m_themisLoadNs;  // per rank, per dimension
    std::unordered_map<GroupId, uint32_t> m_denseGroup;
    std::unordered_map<uint64_t, uint32_t> m_nextSeq;  // (rank, group) -> collectives issued
    std::deque<Collective> m_collectives;
    std::vector<Collective*> m_freeCollectives;
    std::deque<Stream> m_streams;
    std::vector<Stream*> m_freeStreams;
    std::vector<Record> m_records;
    CustomCollectives m_custom;
    std::unordered_map<const RankTrace*, CustomGraph> m_customGraphs;
    std::deque<CustomRun> m_customRuns;
    uint64_t m_messagesSent = 0;
    uint64_t m_issued = 0;
};

}  // namespace mlnet

#endif

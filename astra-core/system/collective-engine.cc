#include "collective-engine.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace mlnet {

namespace {

bool isRooted(PhaseKind kind) {
    return kind == PhaseKind::Broadcast || kind == PhaseKind::Reduce || kind == PhaseKind::Gather ||
           kind == PhaseKind::Scatter;
}

// Custom graphs exist only for these four types (CustomCollectives::forType).
PhaseKind graphPhaseKind(CollectiveType type) {
    switch (type) {
        case CollectiveType::ReduceScatter:
            return PhaseKind::ReduceScatter;
        case CollectiveType::AllGather:
            return PhaseKind::AllGather;
        case CollectiveType::AllToAll:
            return PhaseKind::AllToAll;
        default:
            return PhaseKind::AllReduce;
    }
}

}  // namespace

CollectiveEngine::CollectiveEngine(NetworkApi& network, const SystemConfig& config,
                                   const CollectivePlanner& planner, const CommGroups& groups,
                                   CustomCollectives custom, bool queuePerCommunicator)
    : m_network(network),
      m_config(config),
      m_planner(planner),
      m_groups(groups),
      m_host(network, config.localMemBwGBps, m_records),
      m_custom(custom) {
    const uint32_t dims = std::max<uint32_t>(1, static_cast<uint32_t>(planner.topology().dimSizes.size()));
    m_queuesPerRank = dims * config.queuesPerDimension;
    m_queueThreshold =
        (config.activeChunksPerDimension + config.queuesPerDimension - 1) / config.queuesPerDimension;
    m_queues.assign(network.numRanks(), std::vector<Queue>(m_queuesPerRank));
    m_queuePerCommunicator = queuePerCommunicator;
    if (queuePerCommunicator) {
        m_rankCommunicators.resize(network.numRanks());
    }
    if (config.dimensionScheduling == DimensionScheduling::Themis) {
        m_themisLoadNs.assign(network.numRanks(), std::vector<double>(dims, 0.0));
    }
    uint32_t dense = 0;
    for (const auto& [id, members] : groups.all()) {
        m_denseGroup[id] = dense++;
    }
    if (dense > CollectiveTag::kMaxGroups) {
        throw std::invalid_argument("more than " + std::to_string(CollectiveTag::kMaxGroups) +
                                    " communicators are not supported");
    }
}

void CollectiveEngine::issue(Rank rank, const TraceNode& node, Callback done) {
    const std::vector<Rank>* members = m_groups.members(node.group);
    if (!members) {
        throw std::logic_error("communicator " + std::to_string(node.group) + " vanished after validation");
    }
    const CollectiveType type = node.collective;
    const bool rooted = type == CollectiveType::Broadcast || type == CollectiveType::Reduce ||
                        type == CollectiveType::Gather || type == CollectiveType::Scatter;
    bool flattened = false;
    const std::vector<DimensionSpan> spans =
        m_planner.spans(rank, *members, node.involvedDims, rooted, flattened);
    const uint64_t sizeBytes = type == CollectiveType::Barrier ? members->size() : node.commSizeBytes;
    const std::vector<uint64_t> chunks = m_planner.chunks(type, sizeBytes);
    if (chunks.size() > CollectiveTag::kMaxChunks) {
        throw std::invalid_argument("collective of node " + std::to_string(node.id) + " on rank " +
                                    std::to_string(rank) + " splits into " + std::to_string(chunks.size()) +
                                    " chunks; at most " + std::to_string(CollectiveTag::kMaxChunks) +
                                    " are supported");
    }
    uint32_t& seq = m_nextSeq[uint64_t{rank} << 32 | node.group];
    const auto sequence = static_cast<uint32_t>(seq++ % CollectiveTag::kMaxSequence);

    Collective* c = newCollective();
    const auto dims = std::max<std::size_t>(1, m_planner.topology().dimSizes.size());
    m_records.push_back({rank, node.id, type, node.commSizeBytes, node.group, m_network.now(), 0, false,
                         static_cast<uint32_t>(chunks.size()), std::vector<uint64_t>(dims, 0), node.priority,
                         std::string()});
    const uint64_t issued = m_issued++;
    int64_t priority = 0;
    // A communicator's own queues run its collectives in issue order, as an NCCL stream does: with the
    // policy's LIFO, two members could start different collectives of it first and wait for each other.
    switch (m_queuePerCommunicator ? SchedulingPolicy::Fifo : m_config.schedulingPolicy) {
        case SchedulingPolicy::Lifo:
            priority = static_cast<int64_t>(issued);
            break;
        case SchedulingPolicy::Fifo:
            priority = -static_cast<int64_t>(issued);
            break;
        case SchedulingPolicy::Explicit:
            priority = node.priority;
            break;
    }
    *c = Collective{rank,     0,    static_cast<uint32_t>(m_records.size() - 1),
                    priority, done, m_queuePerCommunicator ? queueBaseOf(rank, node.group) : 0};

    const CollectiveTag collectiveTag{m_denseGroup.at(node.group), sequence, 0, 0, 0};
    if (const TraceSet* program = m_custom.forType(type)) {
        startGraph(c, node, *program, *members, collectiveTag);
        return;
    }

    std::vector<double> noThemis;
    std::vector<double>& themis = m_themisLoadNs.empty() ? noThemis : m_themisLoadNs[rank];
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        std::vector<PhaseSpec> phases = m_planner.phases(type, chunks[i], spans, flattened, themis);
        if (phases.empty()) {
            continue;  // nothing to exchange (a communicator of one rank)
        }
        if (phases.size() > CollectiveTag::kMaxPhases) {
            throw std::invalid_argument("more than " + std::to_string(CollectiveTag::kMaxPhases) +
                                        " phases per chunk");
        }
        CollectiveTag tag = collectiveTag;
        tag.chunk = static_cast<uint32_t>(i);
        Chunk& k = newChunk(c, sequence + i, tag);
        k.phases = std::move(phases);
        ++c->chunksLeft;
        enqueue(k);
    }
    if (c->chunksLeft == 0) {
        m_network.schedule(0, finishCollective(c));
    }
}

uint32_t CollectiveEngine::queueBaseOf(Rank rank, GroupId group) {
    std::vector<GroupId>& seen = m_rankCommunicators[rank];
    const auto it = std::find(seen.begin(), seen.end(), group);
    const auto slot = static_cast<uint32_t>(it - seen.begin());
    if (it == seen.end()) {
        seen.push_back(group);
        if (slot > 0) {  // slot 0 uses the queues every rank starts with
            m_queues[rank].resize(std::size_t{slot + 1} * m_queuesPerRank);
        }
    }
    return slot * m_queuesPerRank;
}

CollectiveEngine::Collective* CollectiveEngine::newCollective() {
    return &m_collectives.acquire();
}

CollectiveEngine::Chunk& CollectiveEngine::newChunk(Collective* c, uint64_t chunkSeq, CollectiveTag tag) {
    Chunk* k = &m_chunks.acquire();
    k->engine = this;
    k->collective = c;
    k->phase = 0;
    k->run = PhaseRun{c->rank, c->record, nullptr, chunkSeq, tag, {}};
    return *k;
}

Callback CollectiveEngine::finishCollective(Collective* c) {
    Record& r = m_records[c->record];
    r.endNs = m_network.now();
    r.finished = true;
    m_collectives.release(*c);
    return c->done;
}

uint32_t CollectiveEngine::queueFor(const Chunk& k) const {
    const PhaseSpec& p = k.phases[k.phase];
    const uint32_t perDim = m_config.queuesPerDimension;
    uint32_t q = 0;
    if (perDim > 1) {
        if (m_config.collectiveOptimization == CollectiveOptimization::LocalBwAware) {
            // First half of a dimension's queues for reduce-scatter/all-reduce phases, second half for
            // all-gathers.
            const uint32_t firstHalf = perDim / 2;
            q = p.kind == PhaseKind::AllGather
                    ? firstHalf + static_cast<uint32_t>(k.run.chunkSeq % (perDim - firstHalf))
                    : static_cast<uint32_t>(k.run.chunkSeq % firstHalf);
        } else {
            q = static_cast<uint32_t>(k.run.chunkSeq % perDim);
        }
    }
    return k.collective->queueBase + p.dimension * perDim + q;
}

void CollectiveEngine::insertByPriority(Chunk& k) {
    // Behind every waiting chunk of equal or higher priority: FIFO among equals.
    Queue& q = queue(k.collective->rank, k.queue);
    auto pos = std::find_if(q.waiting.begin(), q.waiting.end(), [&](const Chunk* other) {
        return other->collective->priority < k.collective->priority;
    });
    q.waiting.insert(pos, &k);
}

void CollectiveEngine::enqueue(Chunk& k) {
    k.queue = queueFor(k);
    insertByPriority(k);
    admit(k.collective->rank, k.queue);
}

void CollectiveEngine::admit(Rank rank, uint32_t index) {
    Queue& q = queue(rank, index);
    while (q.running < m_queueThreshold && !q.waiting.empty()) {
        Chunk* k = q.waiting.front();
        q.waiting.pop_front();
        ++q.running;
        startPhase(*k);
    }
}

template <typename Algorithm>
Algorithm& CollectiveEngine::take(Chunk& k, PhasePool<Algorithm>& pool) {
    Algorithm& a = pool.acquire();
    k.algorithm = &a;
    k.algorithmPool = &pool.freeList();
    return a;
}

void CollectiveEngine::startPhase(Chunk& k) {
    const PhaseSpec& p = k.phases[k.phase];
    const Callback done = makeCallback<&Chunk::onPhaseDone>(&k);
    if (isRooted(p.kind)) {
        run(k, take(k, m_rooted), done);
        return;
    }
    switch (p.algorithm.algorithm) {
        case CollectiveAlgorithm::Direct:
            run(k, take(k, m_direct), done);
            break;
        case CollectiveAlgorithm::HalvingDoubling:
            run(k, take(k, m_halvingDoubling), done);
            break;
        case CollectiveAlgorithm::DoubleBinaryTree:
            run(k, take(k, m_tree), done);
            break;
        default:
            run(k, take(k, m_ring), done);
            break;
    }
}

void CollectiveEngine::run(Chunk& k, PhaseAlgorithm& algorithm, Callback done) {
    k.run.spec = &k.phases[k.phase];
    k.run.tag.phase = k.phase;
    k.run.done = done;
    algorithm.start(m_host, k.run);
}

void CollectiveEngine::phaseDone(Chunk& k) {
    k.algorithmPool->push_back(k.algorithm);
    const Rank rank = k.collective->rank;
    const uint32_t oldQueue = k.queue;
    --queue(rank, oldQueue).running;
    if (++k.phase < k.phases.size()) {
        // Into the next dimension's queue first, then free the old slot: the order ASTRA-sim notifies its
        // queues.
        k.queue = queueFor(k);
        insertByPriority(k);
        admit(rank, oldQueue);
        admit(rank, k.queue);
        return;
    }
    admit(rank, oldQueue);
    Collective* c = k.collective;
    m_chunks.release(k);
    if (--c->chunksLeft == 0) {
        finishCollective(c)();
    }
}

void CollectiveEngine::startGraph(Collective* c, const TraceNode& node, const TraceSet& program,
                                  const std::vector<Rank>& members, CollectiveTag tag) {
    const auto position =
        static_cast<uint32_t>(std::lower_bound(members.begin(), members.end(), c->rank) - members.begin());
    const RankTrace& graph = program.ranks[position];
    Chunk& k = newChunk(c, tag.sequence, tag);
    // Graph messages name their peers by position in the communicator and count in dimension 0.
    const PeerSet peers{static_cast<uint32_t>(members.size()), position, 0, 1, &members};
    k.phases.assign(1, PhaseSpec{graphPhaseKind(node.collective), {}, peers, node.commSizeBytes, 0, 0});
    c->chunksLeft = 1;
    CustomGraphAlgorithm& algorithm = take(k, m_graph);
    algorithm.prepare(graph, m_graphIndex.of(graph));
    run(k, algorithm, makeCallback<&Chunk::onGraphDone>(&k));
}

void CollectiveEngine::graphDone(Chunk& k) {
    k.algorithmPool->push_back(k.algorithm);
    Collective* c = k.collective;
    m_chunks.release(k);
    finishCollective(c)();
}

std::string CollectiveEngine::describeUnfinished(Rank rank) const {
    std::ostringstream out;
    for (const Record& r : m_records) {
        if (r.rank == rank && !r.finished) {
            out << "  collective node " << r.nodeId << ": " << toString(r.type) << " of " << r.sizeBytes
                << " B on communicator " << r.group << " (" << r.chunks << " chunks) started at " << r.startNs
                << " ns, waiting for peers\n";
        }
    }
    return out.str();
}

}  // namespace mlnet

#include "trace-executor.h"

#include "workload/rank-trace-reader.h"

#include <algorithm>
#include <functional>
#include <sstream>

namespace mlnet {

void TraceExecutor::ReadyHeap::push(uint64_t id, NodeIndex index) {
    items.emplace_back(id, index);
    std::push_heap(items.begin(), items.end(), std::greater<>());
}

NodeIndex TraceExecutor::ReadyHeap::pop() {
    std::pop_heap(items.begin(), items.end(), std::greater<>());
    NodeIndex index = items.back().second;
    items.pop_back();
    return index;
}

TraceExecutor::TraceExecutor(const TraceSet& traces, NetworkApi& network, CollectiveService& collectives,
                             const ComputeModel& compute, MemoryModel& memory, ExecutorOptions options)
    : m_traces(traces),
      m_network(network),
      m_collectives(collectives),
      m_compute(compute),
      m_memory(memory),
      m_options(options),
      m_ranks(traces.numRanks()),
      m_results(traces.numRanks()) {
    for (Rank r = 0; r < traces.numRanks(); ++r) {
        const RankTrace& trace = traces.ranks[r];
        RankState& state = m_ranks[r];
        const std::size_t n = trace.nodes.size();
        state.pendingParents.resize(n);
        state.inFlight.assign(n, false);
        for (NodeIndex i = 0; i < n; ++i) {
            state.pendingParents[i] = static_cast<uint32_t>(trace.parentCount(i));
        }
        state.childBegin = childrenCsr(trace.parentBegin, trace.parents, state.children);
        state.remaining = n;
    }
}

bool TraceExecutor::validate(Diagnostics& diag) const {
    const std::size_t before = diag.errorCount();
    bool needsMemory = false;
    for (const RankTrace& trace : m_traces.ranks) {
        for (const TraceNode& node : trace.nodes) {
            needsMemory |= node.type == NodeType::MemLoad || node.type == NodeType::MemStore;
            if (std::string why = m_compute.whyUntimeable(node); !why.empty()) {
                diag.error(atNode(trace.path, node.id) + ": " + why);
                break;  // one example per rank is enough
            }
        }
    }
    if (needsMemory && !m_options.replayOnly) {
        if (std::string why = m_memory.whyUnusable(m_traces.numRanks()); !why.empty()) {
            diag.error("remote-memory configuration: " + why);
        }
    }
    return diag.errorCount() == before;
}

TraceExecutor::Slot TraceExecutor::slotOf(const TraceNode& node) const {
    if (node.isCpuOp()) {
        return kCpu;
    }
    switch (node.type) {
        case NodeType::Compute:
            return kGpuCompute;
        case NodeType::Recv:
            return kUnlimited;
        case NodeType::Collective:
            return m_options.overlapCollectives ? kUnlimited : kGpuComm;
        default:
            return kGpuComm;  // SEND, memory, METADATA and INVALID take the communication slot
    }
}

void TraceExecutor::start() {
    m_unfinishedRanks = 0;
    for (Rank r = 0; r < m_traces.numRanks(); ++r) {
        ++m_unfinishedRanks;
        m_network.schedule(0, makeCallback<&TraceExecutor::startRank>(this, r));
    }
}

void TraceExecutor::startRank(uint64_t rank) {
    const Rank r = static_cast<Rank>(rank);
    const RankTrace& trace = m_traces.ranks[r];
    RankState& state = m_ranks[r];
    for (NodeIndex i = 0; i < trace.nodes.size(); ++i) {
        if (state.pendingParents[i] == 0) {
            state.ready[slotOf(trace.nodes[i])].push(trace.nodes[i].id, i);
        }
    }
    if (state.remaining == 0) {
        m_results[r].finished = true;
        m_results[r].finishNs = m_network.now();
        rankFinished();
        return;
    }
    issueReady(r);
}

void TraceExecutor::rankFinished() {
    if (--m_unfinishedRanks == 0 && m_finished) {
        m_finished();
    }
}

void TraceExecutor::issueReady(Rank rank) {
    RankState& state = m_ranks[rank];
    // Among the slots that can take a node, always issue the smallest ready id next: the order ASTRA-sim's
    // loop over the id-sorted free set would issue them.
    while (true) {
        int best = -1;
        for (int s = 0; s < kNumSlots; ++s) {
            if (!state.ready[s].empty() && (s == kUnlimited || state.busy[s] == 0) &&
                (best < 0 || state.ready[s].topId() < state.ready[best].topId())) {
                best = s;
            }
        }
        if (best < 0) {
            return;
        }
        NodeIndex index = state.ready[best].pop();
        ++state.busy[best];
        startNode(rank, index);
    }
}

void TraceExecutor::startNode(Rank rank, NodeIndex index) {
    const TraceNode& node = m_traces.ranks[rank].nodes[index];
    RankState& state = m_ranks[rank];
    state.inFlight[index] = true;
    ++state.inFlightCount;
    if (m_observer) {
        m_observer->nodeStarted(rank, node, m_network.now());
    }
    const Callback done = makeCallback<&TraceExecutor::complete>(this, pack(rank, index));
    if (m_options.replayOnly && node.type != NodeType::Metadata && node.type != NodeType::Invalid) {
        m_network.schedule(node.durationMicros == 0 ? 1 : node.durationMicros * 1000, done);
        return;
    }
    if (node.isCpuSideComm()) {
        m_network.schedule(m_compute.durationNs(node), done);
        return;
    }
    switch (node.type) {
        case NodeType::Compute: {
            const TimeNs duration = m_compute.durationNs(node);
            if (!node.isCpuOp()) {
                m_results[rank].gpuComputeNs += duration;
            }
            m_network.schedule(duration, done);
            break;
        }
        case NodeType::MemLoad:
        case NodeType::MemStore:
            m_network.schedule(m_memory.accessNs(rank, node.tensorSizeBytes, m_network.now()), done);
            break;
        case NodeType::Send:
            m_network.send(rank, node.peer, node.tag, node.commSizeBytes, 0, done);
            break;
        case NodeType::Recv:
            m_network.recv(node.peer, rank, node.tag, node.commSizeBytes, done);
            break;
        case NodeType::Collective:
            m_collectives.issue(rank, node, done);
            break;
        case NodeType::Metadata:
        case NodeType::Invalid:
            m_network.schedule(0, done);
            break;
    }
}

void TraceExecutor::complete(uint64_t packed) {
    const Rank rank = static_cast<Rank>(packed >> 32);
    const NodeIndex index = static_cast<NodeIndex>(packed);
    const RankTrace& trace = m_traces.ranks[rank];
    RankState& state = m_ranks[rank];
    --state.busy[slotOf(trace.nodes[index])];
    if (m_observer) {
        m_observer->nodeFinished(rank, trace.nodes[index], m_network.now());
    }
    state.inFlight[index] = false;
    --state.inFlightCount;
    ++m_results[rank].nodesDone;
    for (uint32_t k = state.childBegin[index]; k < state.childBegin[index + 1]; ++k) {
        const NodeIndex child = state.children[k];
        if (--state.pendingParents[child] == 0) {
            state.ready[slotOf(trace.nodes[child])].push(trace.nodes[child].id, child);
        }
    }
    if (--state.remaining == 0) {
        m_results[rank].finished = true;
        m_results[rank].finishNs = m_network.now();
        rankFinished();
        return;
    }
    issueReady(rank);
}

std::string TraceExecutor::stallReport() const {
    std::ostringstream out;
    for (Rank r = 0; r < m_traces.numRanks(); ++r) {
        if (m_results[r].finished) {
            continue;
        }
        const RankTrace& trace = m_traces.ranks[r];
        const RankState& state = m_ranks[r];
        out << "rank " << r << " (" << trace.path << "): " << state.remaining << " of " << trace.nodes.size()
            << " nodes unfinished\n";
        for (NodeIndex index = 0; index < trace.nodes.size(); ++index) {
            if (!state.inFlight[index]) {
                continue;
            }
            const TraceNode& node = trace.nodes[index];
            out << "  node " << node.id << " " << toString(node.type);
            if (node.type == NodeType::Recv) {
                out << ": waiting for " << node.commSizeBytes << " B from rank " << node.peer << " with tag "
                    << node.tag;
            } else if (node.type == NodeType::Send) {
                out << ": " << node.commSizeBytes << " B to rank " << node.peer << " with tag " << node.tag
                    << " not delivered";
            } else if (node.isSimulatedCollective()) {
                out << ": " << toString(node.collective) << " of " << node.commSizeBytes
                    << " B on communicator " << node.group << " not complete";
            }
            out << "\n";
        }
        std::size_t blocked = 0;
        for (int s = 0; s < kNumSlots; ++s) {
            blocked += state.ready[s].items.size();
        }
        if (blocked) {
            out << "  " << blocked << " ready nodes wait for a busy resource\n";
        }
        const std::size_t neverReady = state.remaining - state.inFlightCount - blocked;
        if (neverReady) {
            out << "  " << neverReady << " nodes wait for unfinished parents\n";
        }
        const std::string coll = m_collectives.describeUnfinished(r);
        if (!coll.empty()) {
            out << coll;
        }
    }
    return out.str();
}

}  // namespace mlnet

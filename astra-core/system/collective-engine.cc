#include "collective-engine.h"

#include "workload/rank-trace-reader.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace mlnet {

namespace {

// Tag layout of collective-internal messages: bit 63 | group (12) | sequence (29) | chunk (16) | phase (5) |
// half (1).
constexpr uint64_t kMaxGroups = 1u << 12;
constexpr uint64_t kMaxSequence = 1u << 29;
constexpr uint64_t kMaxChunks = 1u << 16;
constexpr uint64_t kMaxPhases = 1u << 5;

uint32_t log2Exact(uint32_t n) {
    uint32_t l = 0;
    while ((1u << l) < n) {
        ++l;
    }
    return l;
}

// Double binary tree over positions 0..n-1 (n a power of two): a root with one child above a complete binary
// tree numbered in order. Tree 0 has its root at the last position, tree 1 at the first.
struct TreeLinks {
    int parent = -1;
    int children[2] = {-1, -1};
    int childCount = 0;
};

void inorder(uint32_t lo, uint32_t hi, int parent, uint32_t target, TreeLinks& out) {
    // Complete in-order tree over [lo, hi]; records the links of `target`.
    const uint32_t mid = lo + (hi - lo) / 2;
    if (mid == target) {
        out.parent = parent;
        if (lo < mid) {
            out.children[out.childCount++] = static_cast<int>(lo + (mid - 1 - lo) / 2);
        }
        if (mid < hi) {
            out.children[out.childCount++] = static_cast<int>(mid + 1 + (hi - mid - 1) / 2);
        }
        return;
    }
    if (target < mid) {
        inorder(lo, mid - 1, static_cast<int>(mid), target, out);
    } else {
        inorder(mid + 1, hi, static_cast<int>(mid), target, out);
    }
}

TreeLinks treeLinks(uint32_t n, uint32_t position, bool rootAtFirst) {
    TreeLinks links;
    const uint32_t root = rootAtFirst ? 0 : n - 1;
    const uint32_t lo = rootAtFirst ? 1 : 0;
    const uint32_t hi = rootAtFirst ? n - 1 : n - 2;
    const uint32_t top = lo + (hi - lo) / 2;
    if (position == root) {
        links.children[links.childCount++] = static_cast<int>(top);
        return links;
    }
    inorder(lo, hi, static_cast<int>(root), position, links);
    return links;
}

}  // namespace

const TraceSet* CustomCollectives::forType(CollectiveType type) const {
    switch (type) {
        case CollectiveType::AllReduce:
            return allReduce;
        case CollectiveType::ReduceScatter:
            return reduceScatter;
        case CollectiveType::AllGather:
            return allGather;
        case CollectiveType::AllToAll:
            return allToAll;
        default:
            return nullptr;
    }
}

CollectiveEngine::CollectiveEngine(NetworkApi& network, const SystemConfig& config,
                                   const CollectivePlanner& planner, const CommGroups& groups,
                                   CustomCollectives custom)
    : m_network(network), m_config(config), m_planner(planner), m_groups(groups), m_custom(custom) {
    const uint32_t dims = std::max<uint32_t>(1, static_cast<uint32_t>(planner.topology().dimSizes.size()));
    m_queuesPerRank = dims * config.queuesPerDimension;
    m_queueThreshold =
        (config.activeChunksPerDimension + config.queuesPerDimension - 1) / config.queuesPerDimension;
    m_queues.resize(std::size_t{network.numRanks()} * m_queuesPerRank);
    if (config.dimensionScheduling == DimensionScheduling::Themis) {
        m_themisLoadNs.assign(network.numRanks(), std::vector<double>(dims, 0.0));
    }
    uint32_t dense = 0;
    for (const auto& [id, members] : groups.all()) {
        m_denseGroup[id] = dense++;
    }
    if (dense > kMaxGroups) {
        throw std::invalid_argument("more than " + std::to_string(kMaxGroups) +
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
    if (chunks.size() > kMaxChunks) {
        throw std::invalid_argument("collective of node " + std::to_string(node.id) + " on rank " +
                                    std::to_string(rank) + " splits into " + std::to_string(chunks.size()) +
                                    " chunks; at most " + std::to_string(kMaxChunks) + " are supported");
    }
    uint32_t& seq = m_nextSeq[uint64_t{rank} << 32 | node.group];
    const uint64_t sequence = seq++ % kMaxSequence;

    Collective* c;
    if (!m_freeCollectives.empty()) {
        c = m_freeCollectives.back();
        m_freeCollectives.pop_back();
    } else {
        c = &m_collectives.emplace_back();
    }
    const auto dims = std::max<std::size_t>(1, m_planner.topology().dimSizes.size());
    m_records.push_back({rank, node.id, type, node.commSizeBytes, node.group, m_network.now(), 0, false,
                         static_cast<uint32_t>(chunks.size()), std::vector<uint64_t>(dims, 0)});
    const uint64_t issued = m_issued++;
    int64_t priority = 0;
    switch (m_config.schedulingPolicy) {
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
    *c = Collective{rank, 0, static_cast<uint32_t>(m_records.size() - 1), priority, done};

    const uint64_t collectiveTag =
        kCollectiveTagBit | uint64_t{m_denseGroup.at(node.group)} << 51 | sequence << 22;
    if (const TraceSet* program = m_custom.forType(type)) {
        startCustom(c, *program, *members, collectiveTag);
        return;
    }

    std::vector<double> noThemis;
    std::vector<double>& themis = m_themisLoadNs.empty() ? noThemis : m_themisLoadNs[rank];
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        std::vector<PhaseSpec> phases = m_planner.phases(type, chunks[i], spans, flattened, themis);
        if (phases.empty()) {
            continue;  // nothing to exchange (a communicator of one rank)
        }
        if (phases.size() > kMaxPhases) {
            throw std::invalid_argument("more than " + std::to_string(kMaxPhases) + " phases per chunk");
        }
        Stream* s;
        if (!m_freeStreams.empty()) {
            s = m_freeStreams.back();
            m_freeStreams.pop_back();
        } else {
            s = &m_streams.emplace_back();
        }
        s->engine = this;
        s->collective = c;
        s->phases = std::move(phases);
        s->phase = 0;
        s->chunkSeq = sequence + i;
        s->tagBase = collectiveTag | uint64_t{i} << 6;
        ++c->streamsLeft;
        enqueue(*s);
    }
    if (c->streamsLeft == 0) {
        m_network.schedule(0, finishCollective(c));
    }
}

Callback CollectiveEngine::finishCollective(Collective* c) {
    Record& r = m_records[c->record];
    r.endNs = m_network.now();
    r.finished = true;
    m_freeCollectives.push_back(c);
    return c->done;
}

void CollectiveEngine::insertByPriority(Stream& s) {
    // Behind every waiting stream of equal or higher priority: FIFO among equals.
    Queue& q = queue(self(s), s.queue);
    auto pos = std::find_if(q.waiting.begin(), q.waiting.end(), [&](const Stream* other) {
        return other->collective->priority < s.collective->priority;
    });
    q.waiting.insert(pos, &s);
}

uint32_t CollectiveEngine::queueFor(const Stream& s) const {
    const PhaseSpec& p = s.phases[s.phase];
    const uint32_t perDim = m_config.queuesPerDimension;
    uint32_t k = 0;
    if (perDim > 1) {
        if (m_config.collectiveOptimization == CollectiveOptimization::LocalBwAware) {
            // First half of a dimension's queues for reduce-scatter/all-reduce phases, second half for
            // all-gathers.
            const uint32_t firstHalf = perDim / 2;
            k = p.kind == PhaseKind::AllGather
                    ? firstHalf + static_cast<uint32_t>(s.chunkSeq % (perDim - firstHalf))
                    : static_cast<uint32_t>(s.chunkSeq % firstHalf);
        } else {
            k = static_cast<uint32_t>(s.chunkSeq % perDim);
        }
    }
    return p.dimension * perDim + k;
}

void CollectiveEngine::enqueue(Stream& s) {
    s.queue = queueFor(s);
    insertByPriority(s);
    admit(self(s), s.queue);
}

void CollectiveEngine::admit(Rank rank, uint32_t index) {
    Queue& q = queue(rank, index);
    while (q.running < m_queueThreshold && !q.waiting.empty()) {
        Stream* s = q.waiting.front();
        q.waiting.pop_front();
        ++q.running;
        startPhase(*s);
    }
}

void CollectiveEngine::startPhase(Stream& s) {
    const PhaseSpec& p = spec(s);
    s.tag = s.tagBase | uint64_t{s.phase} << 1;
    s.receipts = s.processed = s.nextPeer = s.half = 0;
    if (p.kind == PhaseKind::Broadcast || p.kind == PhaseKind::Reduce || p.kind == PhaseKind::Gather ||
        p.kind == PhaseKind::Scatter) {
        rootedStart(s);
        return;
    }
    switch (p.algorithm.algorithm) {
        case CollectiveAlgorithm::Direct:
            directStart(s);
            break;
        case CollectiveAlgorithm::HalvingDoubling:
            hdStart(s);
            break;
        case CollectiveAlgorithm::DoubleBinaryTree:
            treeStart(s);
            break;
        default:
            ringStart(s);
            break;
    }
}

void CollectiveEngine::finishPhase(void* p, uint64_t) {
    as(p).engine->phaseDone(as(p));
}

void CollectiveEngine::phaseDone(Stream& s) {
    const Rank rank = self(s);
    const uint32_t oldQueue = s.queue;
    --queue(rank, oldQueue).running;
    if (++s.phase < s.phases.size()) {
        // Into the next dimension's queue first, then free the old slot: the order ASTRA-sim notifies its
        // queues.
        s.queue = queueFor(s);
        insertByPriority(s);
        admit(rank, oldQueue);
        admit(rank, s.queue);
        return;
    }
    admit(rank, oldQueue);
    Collective* c = s.collective;
    m_freeStreams.push_back(&s);
    if (--c->streamsLeft == 0) {
        finishCollective(c)();
    }
}

void CollectiveEngine::sendTo(Stream& s, Rank peer, uint64_t bytes, Callback sent) {
    ++m_messagesSent;
    m_records[s.collective->record].bytesSentPerDim[spec(s).dimension] += bytes;
    m_network.send(self(s), peer, s.tag | s.half, bytes, sent);
}

void CollectiveEngine::recvFrom(Stream& s, Rank peer, uint64_t bytes, Callback::Fn fn, uint64_t arg) {
    m_network.recv(peer, self(s), s.tag | s.half, bytes, Callback{fn, &s, arg});
}

void CollectiveEngine::later(Stream& s, TimeNs delayNs, Callback::Fn fn, uint64_t arg) {
    m_network.schedule(delayNs, Callback{fn, &s, arg});
}

TimeNs CollectiveEngine::reductionNs(uint64_t bytes) const {
    if (m_config.localMemBwGBps <= 0) {
        return 0;
    }
    // ASTRA-sim charges one write and two reads, each truncated on its own, with this exact double
    // expression.
    const double perPass = static_cast<double>(bytes) / (m_config.localMemBwGBps * 1e9) * 1e9;
    return 3 * static_cast<TimeNs>(perPass);
}

// --- ring: one message in flight; send k+1 waits for receipt k
// -----------------------------------------------------

void CollectiveEngine::ringStart(Stream& s) {
    const PhaseSpec& p = s.engine->spec(s);
    const uint32_t n = p.peers.size;
    switch (p.kind) {
        case PhaseKind::AllReduce:
            s.msgBytes = p.inputBytes / n;
            s.steps = 2 * (n - 1);
            s.reducingReceipts = n - 1;
            break;
        case PhaseKind::ReduceScatter:
            s.msgBytes = p.inputBytes / n;
            s.steps = n - 1;
            s.reducingReceipts = n - 1;
            break;
        case PhaseKind::AllGather:
            s.msgBytes = p.inputBytes;
            s.steps = n - 1;
            s.reducingReceipts = 0;
            break;
        default:  // all-to-all: the block for distance k crosses k links, n(n-1)/2 hops in all
            s.msgBytes = p.inputBytes / n;
            s.steps = n * (n - 1) / 2;
            s.reducingReceipts = 0;
            break;
    }
    s.engine->later(s, p.endpointDelayNs, &ringSend);
}

void CollectiveEngine::ringSend(void* p, uint64_t) {
    Stream& s = as(p);
    CollectiveEngine& e = *s.engine;
    const PeerSet& peers = e.spec(s).peers;
    e.sendTo(s, peers.at((peers.position + 1) % peers.size), s.msgBytes);
    e.recvFrom(s, peers.at((peers.position + peers.size - 1) % peers.size), s.msgBytes, &ringReceipt);
}

void CollectiveEngine::ringReceipt(void* p, uint64_t) {
    Stream& s = as(p);
    CollectiveEngine& e = *s.engine;
    const TimeNs delay =
        e.spec(s).endpointDelayNs + (s.receipts < s.reducingReceipts ? e.reductionNs(s.msgBytes) : 0);
    ++s.receipts;
    e.later(s, delay, s.receipts == s.steps ? &finishPhase : &ringSend);
}

// --- direct: up to `window` messages to distinct peers at once
// ---------------------------------------------------------

void CollectiveEngine::directStart(Stream& s) {
    const PhaseSpec& p = s.engine->spec(s);
    const uint32_t n = p.peers.size;
    s.msgBytes = p.kind == PhaseKind::AllGather ? p.inputBytes : p.inputBytes / n;
    s.window = p.algorithm.window ? std::min(p.algorithm.window, n - 1) : n - 1;
    s.steps = n - 1;
    s.engine->later(s, p.endpointDelayNs, &directBegin);
}

void CollectiveEngine::directBegin(void* p, uint64_t) {
    Stream& s = as(p);
    CollectiveEngine& e = *s.engine;
    const PeerSet& peers = e.spec(s).peers;
    s.processed = 0;
    for (uint32_t k = 1; k < peers.size; ++k) {
        e.recvFrom(s, peers.at((peers.position + peers.size - k) % peers.size), s.msgBytes, &directReceipt);
    }
    for (s.nextPeer = 0; s.nextPeer < s.window; ++s.nextPeer) {
        e.sendTo(s, peers.at((peers.position + s.nextPeer + 1) % peers.size), s.msgBytes);
    }
}

void CollectiveEngine::directReceipt(void* p, uint64_t) {
    Stream& s = as(p);
    CollectiveEngine& e = *s.engine;
    const PhaseSpec& spec = e.spec(s);
    const bool reducing =
        (spec.kind == PhaseKind::AllReduce && s.half == 0) || spec.kind == PhaseKind::ReduceScatter;
    e.later(s, spec.endpointDelayNs + (reducing ? e.reductionNs(s.msgBytes) : 0), &directProcessed);
}

void CollectiveEngine::directProcessed(void* p, uint64_t) {
    Stream& s = as(p);
    CollectiveEngine& e = *s.engine;
    const PeerSet& peers = e.spec(s).peers;
    if (s.nextPeer < s.steps) {
        e.sendTo(s, peers.at((peers.position + s.nextPeer + 1) % peers.size), s.msgBytes);
        ++s.nextPeer;
    }
    if (++s.processed < s.steps) {
        return;
    }
    if (e.spec(s).kind == PhaseKind::AllReduce && s.half == 0) {
        s.half = 1;  // the all-gather half leaves as soon as the last reduced block is in
        directBegin(&s, 0);
        return;
    }
    e.phaseDone(s);
}

// --- halving-doubling: partner = position XOR distance
// ---------------------------------------------------------------

void CollectiveEngine::hdStart(Stream& s) {
    const PhaseSpec& p = s.engine->spec(s);
    const uint32_t levels = log2Exact(p.peers.size);
    s.steps = p.kind == PhaseKind::AllReduce ? 2 * levels : levels;
    s.engine->later(s, p.endpointDelayNs, &hdSend);
}

namespace {

// Distance and message size of halving-doubling step k.
void hdStep(PhaseKind kind, uint32_t n, uint64_t input, uint32_t levels, uint32_t k, uint32_t& distance,
            uint64_t& bytes) {
    if (kind == PhaseKind::AllGather) {
        distance = n >> (k + 1);
        bytes = input << k;
        return;
    }
    const uint32_t j = k < levels ? k : 2 * levels - 1 - k;
    distance = 1u << j;
    bytes = input >> (j + 1);
}

}  // namespace

void CollectiveEngine::hdSend(void* p, uint64_t) {
    Stream& s = as(p);
    CollectiveEngine& e = *s.engine;
    const PhaseSpec& spec = e.spec(s);
    uint32_t distance;
    hdStep(spec.kind, spec.peers.size, spec.inputBytes, log2Exact(spec.peers.size), s.receipts, distance,
           s.msgBytes);
    const Rank peer = spec.peers.at(spec.peers.position ^ distance);
    e.sendTo(s, peer, s.msgBytes);
    e.recvFrom(s, peer, s.msgBytes, &hdReceipt);
}

void CollectiveEngine::hdReceipt(void* p, uint64_t) {
    Stream& s = as(p);
    CollectiveEngine& e = *s.engine;
    const PhaseSpec& spec = e.spec(s);
    const uint32_t levels = log2Exact(spec.peers.size);
    // ASTRA-sim reduces receipts 1 .. levels-1 of the reducing half, each on that step's message size.
    const bool reducing = spec.kind != PhaseKind::AllGather && s.receipts >= 1 && s.receipts < levels;
    const TimeNs delay = spec.endpointDelayNs + (reducing ? e.reductionNs(s.msgBytes) : 0);
    ++s.receipts;
    e.later(s, delay, s.receipts == s.steps ? &finishPhase : &hdSend);
}

// --- double binary tree: reduce up, broadcast down, whole chunk per edge
// ---------------------------------------------

void CollectiveEngine::treeStart(Stream& s) {
    CollectiveEngine& e = *s.engine;
    const PhaseSpec& p = e.spec(s);
    const TreeLinks links = treeLinks(p.peers.size, p.peers.position, s.chunkSeq % 2 == 1);
    s.msgBytes = p.inputBytes;
    s.expected = static_cast<uint32_t>(links.childCount);
    if (links.childCount == 0) {
        e.later(s, p.endpointDelayNs, &treeLeafSend);
        return;
    }
    for (int c = 0; c < links.childCount; ++c) {
        e.recvFrom(s, p.peers.at(static_cast<uint32_t>(links.children[c])), s.msgBytes, &treeChildReceipt);
    }
}

void CollectiveEngine::treeLeafSend(void* p, uint64_t) {
    Stream& s = as(p);
    CollectiveEngine& e = *s.engine;
    const PhaseSpec& spec = e.spec(s);
    const TreeLinks links = treeLinks(spec.peers.size, spec.peers.position, s.chunkSeq % 2 == 1);
    const Rank parent = spec.peers.at(static_cast<uint32_t>(links.parent));
    e.sendTo(s, parent, s.msgBytes);
    e.recvFrom(s, parent, s.msgBytes, &finishAfterDelay);
}

void CollectiveEngine::treeChildReceipt(void* p, uint64_t) {
    Stream& s = as(p);
    CollectiveEngine& e = *s.engine;
    e.later(s, e.spec(s).endpointDelayNs + e.reductionNs(s.msgBytes), &treeChildProcessed);
}

void CollectiveEngine::treeChildProcessed(void* p, uint64_t) {
    Stream& s = as(p);
    CollectiveEngine& e = *s.engine;
    if (++s.processed < s.expected) {
        return;
    }
    const PhaseSpec& spec = e.spec(s);
    const TreeLinks links = treeLinks(spec.peers.size, spec.peers.position, s.chunkSeq % 2 == 1);
    if (links.parent < 0) {
        treeBroadcast(&s, 0);  // the root turns the reduction around
        return;
    }
    const Rank parent = spec.peers.at(static_cast<uint32_t>(links.parent));
    e.sendTo(s, parent, s.msgBytes);
    e.recvFrom(s, parent, s.msgBytes, &treeParentReceipt);
}

void CollectiveEngine::treeParentReceipt(void* p, uint64_t) {
    Stream& s = as(p);
    CollectiveEngine& e = *s.engine;
    // ASTRA-sim charges the reduction again on the broadcast coming down.
    e.later(s, e.spec(s).endpointDelayNs + e.reductionNs(s.msgBytes), &treeBroadcast);
}

void CollectiveEngine::treeBroadcast(void* p, uint64_t) {
    Stream& s = as(p);
    CollectiveEngine& e = *s.engine;
    const PhaseSpec& spec = e.spec(s);
    const TreeLinks links = treeLinks(spec.peers.size, spec.peers.position, s.chunkSeq % 2 == 1);
    for (int c = 0; c < links.childCount; ++c) {
        e.sendTo(s, spec.peers.at(static_cast<uint32_t>(links.children[c])), s.msgBytes);
    }
    e.phaseDone(s);
}

void CollectiveEngine::finishAfterDelay(void* p, uint64_t) {
    Stream& s = as(p);
    s.engine->later(s, s.engine->spec(s).endpointDelayNs, &finishPhase);
}

// --- rooted collectives over one line of ranks, root at position 0
// --------------------------------------------------- Broadcast: a chain root -> 1 -> 2 ...; reduce: the
// reverse chain with a reduction per hop; gather and scatter: direct messages of input/n between the root and
// every other rank.

void CollectiveEngine::rootedStart(Stream& s) {
    CollectiveEngine& e = *s.engine;
    const PhaseSpec& p = e.spec(s);
    const uint32_t n = p.peers.size;
    const uint32_t pos = p.peers.position;
    s.msgBytes =
        (p.kind == PhaseKind::Gather || p.kind == PhaseKind::Scatter) ? p.inputBytes / n : p.inputBytes;
    switch (p.kind) {
        case PhaseKind::Broadcast:
            if (pos == 0) {
                e.later(s, p.endpointDelayNs, &rootedSend);
            } else {
                e.recvFrom(s, p.peers.at(pos - 1), s.msgBytes, &rootedReceipt);
            }
            break;
        case PhaseKind::Reduce:
            if (pos == n - 1) {
                e.later(s, p.endpointDelayNs, &rootedSend);
            } else {
                e.recvFrom(s, p.peers.at(pos + 1), s.msgBytes, &rootedReceipt);
            }
            break;
        case PhaseKind::Gather:
            if (pos == 0) {
                s.expected = n - 1;
                for (uint32_t k = 1; k < n; ++k) {
                    e.recvFrom(s, p.peers.at(k), s.msgBytes, &rootedReceipt);
                }
            } else {
                e.later(s, p.endpointDelayNs, &rootedSend);
            }
            break;
        default:  // scatter
            if (pos == 0) {
                e.later(s, p.endpointDelayNs, &rootedSend);
            } else {
                s.expected = 1;
                e.recvFrom(s, p.peers.at(0), s.msgBytes, &rootedReceipt);
            }
            break;
    }
}

void CollectiveEngine::rootedSend(void* p, uint64_t) {
    Stream& s = as(p);
    CollectiveEngine& e = *s.engine;
    const PhaseSpec& spec = e.spec(s);
    const uint32_t pos = spec.peers.position;
    const Callback sent{&rootedSent, &s, 0};
    switch (spec.kind) {
        case PhaseKind::Broadcast:
            s.expected = 1;
            e.sendTo(s, spec.peers.at(pos + 1), s.msgBytes, sent);
            break;
        case PhaseKind::Reduce:
            s.expected = 1;
            e.sendTo(s, spec.peers.at(pos - 1), s.msgBytes, sent);
            break;
        case PhaseKind::Gather:
            s.expected = 1;
            e.sendTo(s, spec.peers.at(0), s.msgBytes, sent);
            break;
        default:
            s.expected = spec.peers.size - 1;
            for (uint32_t k = 1; k < spec.peers.size; ++k) {
                e.sendTo(s, spec.peers.at(k), s.msgBytes, sent);
            }
            break;
    }
}

void CollectiveEngine::rootedSent(void* p, uint64_t) {
    Stream& s = as(p);
    if (++s.processed == s.expected) {
        s.engine->phaseDone(s);
    }
}

void CollectiveEngine::rootedReceipt(void* p, uint64_t) {
    Stream& s = as(p);
    CollectiveEngine& e = *s.engine;
    const PhaseSpec& spec = e.spec(s);
    const TimeNs reduce = spec.kind == PhaseKind::Reduce ? e.reductionNs(s.msgBytes) : 0;
    e.later(s, spec.endpointDelayNs + reduce, &rootedProcessed);
}

void CollectiveEngine::rootedProcessed(void* p, uint64_t) {
    Stream& s = as(p);
    CollectiveEngine& e = *s.engine;
    const PhaseSpec& spec = e.spec(s);
    const uint32_t pos = spec.peers.position;
    const uint32_t n = spec.peers.size;
    switch (spec.kind) {
        case PhaseKind::Broadcast:
            if (pos + 1 < n) {
                e.sendTo(s, spec.peers.at(pos + 1), s.msgBytes);
            }
            e.phaseDone(s);
            break;
        case PhaseKind::Reduce:
            if (pos > 0) {
                e.sendTo(s, spec.peers.at(pos - 1), s.msgBytes);
            }
            e.phaseDone(s);
            break;
        default:
            if (++s.processed == s.expected) {
                e.phaseDone(s);
            }
            break;
    }
}

// --- custom (MSCCL-style) graphs
// ----------------------------------------------------------------------------------

const CollectiveEngine::CustomGraph& CollectiveEngine::customGraph(const RankTrace& graph) {
    auto [it, inserted] = m_customGraphs.try_emplace(&graph);
    if (inserted) {
        CustomGraph& g = it->second;
        g.childBegin = childrenCsr(graph.parentBegin, graph.parents, g.children);
    }
    return it->second;
}

void CollectiveEngine::startCustom(Collective* c, const TraceSet& program, const std::vector<Rank>& members,
                                   uint64_t tagBase) {
    const auto position = std::lower_bound(members.begin(), members.end(), c->rank) - members.begin();
    CustomRun& run = m_customRuns.emplace_back();
    run = CustomRun{this, c, &program.ranks[static_cast<std::size_t>(position)], &members, tagBase, {}, 0};
    const RankTrace& graph = *run.graph;
    run.pending.resize(graph.nodes.size());
    run.remaining = static_cast<uint32_t>(graph.nodes.size());
    c->streamsLeft = 1;
    for (NodeIndex i = 0; i < graph.nodes.size(); ++i) {
        run.pending[i] = static_cast<uint32_t>(graph.parentCount(i));
    }
    if (run.remaining == 0) {
        m_network.schedule(0, Callback{&customNodeDone, &run, UINT64_MAX});
        return;
    }
    for (NodeIndex i = 0; i < graph.nodes.size(); ++i) {
        if (run.pending[i] == 0) {
            startCustomNode(run, i);
        }
    }
}

void CollectiveEngine::startCustomNode(CustomRun& run, NodeIndex index) {
    const TraceNode& node = run.graph->nodes[index];
    const Callback done{&customNodeDone, &run, index};
    const Rank self = run.collective->rank;
    const uint64_t tag = run.tagBase | (node.tag & ((uint64_t{1} << 22) - 1));
    switch (node.type) {
        case NodeType::Send:
            ++m_messagesSent;
            m_records[run.collective->record].bytesSentPerDim[0] += node.commSizeBytes;
            m_network.send(self, (*run.members)[node.peer], tag, node.commSizeBytes, done);
            break;
        case NodeType::Recv:
            m_network.recv((*run.members)[node.peer], self, tag, node.commSizeBytes, done);
            break;
        case NodeType::Compute:
            m_network.schedule(node.durationMicros == 0 ? 1 : node.durationMicros * 1000, done);
            break;
        default:
            m_network.schedule(0, done);
            break;
    }
}

void CollectiveEngine::customNodeDone(void* p, uint64_t index) {
    CustomRun& run = *static_cast<CustomRun*>(p);
    CollectiveEngine& e = *run.engine;
    if (index != UINT64_MAX) {
        const CustomGraph& g = e.customGraph(*run.graph);
        for (uint32_t k = g.childBegin[index]; k < g.childBegin[index + 1]; ++k) {
            if (--run.pending[g.children[k]] == 0) {
                e.startCustomNode(run, g.children[k]);
            }
        }
        if (--run.remaining > 0) {
            return;
        }
    }
    e.finishCollective(run.collective)();
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

#include "nccl-op.h"

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace mlnet::nccl {

namespace {

constexpr uint64_t kLlStepDataBytes = 524288 / 8 / 2;  // half of each 16-byte line is data
constexpr uint64_t kLl128StepDataBytes = 4915200 / 8 * 120 / 128;
constexpr uint32_t kNvlsDepth = 4;  // NVLS loops in flight per channel (scatter, reduce, gather)
constexpr uint64_t kNvlsMaxChunkBytes = 128u << 10;  // NCCL_NVLS_CHUNKSIZE's default
constexpr uint64_t kQpSplitAlignBytes = 128;  // NCCL_IB_SPLIT_DATA_ON_QPS pieces (net_ib.cc ncclIbMultiSend)

constexpr uint64_t ceilDiv(uint64_t a, uint64_t b) {
    return (a + b - 1) / b;
}

double wireFactor(Proto p) {
    return p == Proto::LL ? 2.0 : p == Proto::LL128 ? 128.0 / 120.0 : 1.0;
}

// The data of one chunk: ring Simple collectives move 4 steps per chunk, other algorithms one.
uint64_t chunkBytes(Algo algo, Proto proto, Func func) {
    switch (proto) {
        case Proto::LL:
            return kLlStepDataBytes;
        case Proto::LL128:
            return kLl128StepDataBytes;
        case Proto::Simple:
            break;
    }
    const bool ringFour = algo == Algo::Ring &&
                          (func == Func::AllReduce || func == Func::AllGather || func == Func::ReduceScatter);
    return kSimpleStepBytes * (ringFour ? 4 : 1);
}

// CollNet Direct's chunk (enqueue.cc, NCCL 2.23): a Simple step, halved while the operation would keep few
// chunks in flight over its channels' heads (pipeline depth 2).
uint64_t collNetDirectChunkBytes(uint64_t bytes, uint32_t channels, uint32_t heads) {
    uint64_t chunk = kSimpleStepBytes;
    const auto perChunk = [&] { return bytes / (uint64_t{channels} * heads * chunk); };
    while (perChunk() < 2 * 64 && chunk > (128u << 10)) {
        chunk /= 2;
    }
    while (perChunk() < 2 * 8 && chunk > (64u << 10)) {
        chunk /= 2;
    }
    while (perChunk() < 2 * 8 && chunk > (32u << 10)) {
        chunk /= 2;
    }
    return chunk;
}

// CollNet Chain's chunk (enqueue.cc, NCCL 2.23): a Simple step, at most 256 KiB, halved while each channel
// would hold few chunks against the chain's depth (its GPUs per server).
uint64_t collNetChainChunkBytes(uint64_t bytes, uint32_t channels, uint32_t depth) {
    uint64_t chunk = std::min<uint64_t>(256u << 10, kSimpleStepBytes);
    const auto perChannel = [&] { return bytes / (uint64_t{channels} * chunk); };
    while (perChannel() < uint64_t{depth} * 64 && chunk > (128u << 10)) {
        chunk /= 2;
    }
    while (perChannel() < uint64_t{depth} * 8 && chunk > (64u << 10)) {
        chunk /= 2;
    }
    while (perChannel() < depth && chunk > (32u << 10)) {
        chunk /= 2;
    }
    return chunk;
}

// NVLS's and NVLS-Tree's chunk clamps (enqueue.cc, NCCL 2.23): in turn, while the operation would keep
// fewer than `factor` chunks in flight over its channels' heads, the chunk drops to `smaller`.
struct ChunkClamp {
    uint64_t factor, smaller;
};
uint64_t clampChunk(uint64_t chunk, uint64_t bytes, uint32_t channels, uint32_t heads,
                    std::initializer_list<ChunkClamp> clamps) {
    const uint64_t ops = uint64_t{channels} * heads;
    for (const ChunkClamp& c : clamps) {
        if (bytes < c.factor * ops * chunk && chunk > c.smaller) {
            chunk = c.smaller;
        }
    }
    return chunk;
}
// NVLS: NCCL_NVLS_CHUNKSIZE. NVLS-Tree: the same, at most 64 KiB from 4 servers
// (NCCL_NVLSTREE_MAX_CHUNKSIZE's default).
uint64_t nvlsChunkBytes(uint64_t bytes, uint32_t channels, uint32_t heads) {
    return clampChunk(kNvlsMaxChunkBytes, bytes, channels, heads, {{64, 65536}, {8, 32768}, {2, 16384}});
}
uint64_t nvlsTreeChunkBytes(uint64_t bytes, uint32_t channels, uint32_t heads, uint32_t servers) {
    return clampChunk(servers >= 4 ? 65536 : kNvlsMaxChunkBytes, bytes, channels, heads,
                      {{16, 131072}, {4, 65536}, {1, 32768}});
}

TreeLinks btree(int r, int n) {
    int bit = 1;
    while (bit < n && !(bit & r)) {
        bit <<= 1;
    }
    TreeLinks t;
    if (r == 0) {
        t.child1 = n > 1 ? bit >> 1 : -1;
        return t;
    }
    int up = (r ^ bit) | (bit << 1);
    t.parent = up >= n ? r ^ bit : up;
    int low = bit >> 1;
    t.child0 = low ? r - low : -1;
    for (; low; low >>= 1) {
        if (r + low < n) {
            t.child1 = r + low;
            break;
        }
    }
    return t;
}

}  // namespace

TreeLinks dtree(int r, int n, int which) {
    if (which == 0) {
        return btree(r, n);
    }
    auto map = [&](int x, bool mirror) { return x < 0 ? -1 : mirror ? n - 1 - x : (x + 1) % n; };
    if (n % 2 == 0) {
        const TreeLinks t = btree(n - 1 - r, n);
        return {map(t.parent, true), map(t.child0, true), map(t.child1, true)};
    }
    const TreeLinks t = btree((r - 1 + n) % n, n);
    return {map(t.parent, false), map(t.child0, false), map(t.child1, false)};
}

Func funcOf(CollectiveType type, bool& supported) {
    supported = true;
    switch (type) {
        case CollectiveType::AllReduce:
            return Func::AllReduce;
        case CollectiveType::AllGather:
            return Func::AllGather;
        case CollectiveType::ReduceScatter:
            return Func::ReduceScatter;
        case CollectiveType::Broadcast:
            return Func::Broadcast;
        case CollectiveType::Reduce:
            return Func::Reduce;
        default:
            supported = false;
            return Func::AllReduce;
    }
}

NcclCollectives::Op::Op(NcclCollectives& owner, uint32_t denseGroup, uint32_t sequence,
                        const std::vector<Rank>& members, const TraceNode& node)
    : m_owner(owner),
      m_group(denseGroup),
      m_sequence(sequence),
      m_ranks(members),
      m_type(node.collective),
      m_nodeBytes(node.commSizeBytes) {
    const uint32_t n = static_cast<uint32_t>(members.size());
    m_members.resize(n);
    const NcclTopology& topo = owner.m_topology;
    m_shape = topo.shapeOf(members);
    // Servers in order of first appearance, their members by local index.
    std::vector<std::pair<uint32_t, std::vector<uint32_t>>> servers;
    for (uint32_t pos = 0; pos < n; ++pos) {
        const uint32_t s = topo.serverOf(members[pos]);
        auto it = std::find_if(servers.begin(), servers.end(), [&](const auto& e) { return e.first == s; });
        if (it == servers.end()) {
            servers.push_back({s, {}});
            it = servers.end() - 1;
        }
        it->second.push_back(pos);
    }
    for (auto& [server, positions] : servers) {
        std::sort(positions.begin(), positions.end(), [&](uint32_t a, uint32_t b) {
            return topo.localIndexOf(members[a]) < topo.localIndexOf(members[b]);
        });
        m_servers.push_back(positions);
    }
    if (m_type == CollectiveType::AllToAll) {
        planAllToAll(node.commSizeBytes);
        return;
    }
    bool supported = true;
    m_func = funcOf(m_type, supported);
    m_bytes = m_func == Func::AllGather ? node.commSizeBytes * n : node.commSizeBytes;
    const Channels ch = computeChannels(m_shape, owner.m_config.env);
    NcclEnv env = owner.m_config.env;
    // The algorithms this engine moves data for: NVLS inside one server whose scale-up switch reduces
    // (the network's reduction engine), NVLS-Tree all-reduce across such servers, and CollNet Direct and
    // Chain all-reduce over reducing scale-out switches (servers of one size, a NIC per GPU); not yet NVLS
    // over CollNet, or CollNet's all-gather and reduce-scatter.
    const int engine = m_servers.size() == 1 ? topo.engineOf(topo.serverOf(members[0])) : -1;
    if (engine < 0) {
        env.algoAllowed[static_cast<int>(Algo::Nvls)] = false;
    }
    const bool evenServers = std::all_of(m_servers.begin(), m_servers.end(), [&](const auto& s) {
        return s.size() == m_servers[0].size() && s.size() <= 8;
    });
    if (!m_shape.switchesReduce || !evenServers || m_func != Func::AllReduce) {
        env.algoAllowed[static_cast<int>(Algo::CollNetDirect)] = false;
        env.algoAllowed[static_cast<int>(Algo::CollNetChain)] = false;
    }
    if (!m_shape.nvlsSwitch || !evenServers || m_func != Func::AllReduce) {
        env.algoAllowed[static_cast<int>(Algo::NvlsTree)] = false;
    }
    m_choice = chooseAlgorithm(m_func, m_bytes, m_shape, ch, env);
    if (!m_choice.valid()) {
        throw std::invalid_argument(std::string("NCCL: no algorithm and protocol allowed for ") +
                                    std::string(toString(m_type)) + " (check NCCL_ALGO / NCCL_PROTO)");
    }
    m_chunk = chunkBytes(m_choice.algo, m_choice.proto, m_func);
    if (m_choice.algo == Algo::Pat) {
        planPat();
    }
    if (m_choice.algo == Algo::Tree && m_choice.proto == Proto::LL128) {
        // Smaller chunks when the tree would hold few (enqueue.cc's clamp, NCCL 2.23).
        const uint32_t nodes = std::max<uint32_t>(1, static_cast<uint32_t>(m_servers.size()));
        const double ppn = static_cast<double>(size()) / nodes;
        const double steps = 1 + std::log2(static_cast<double>(nodes)) + 0.1 * ppn;
        const auto chunksPerChannel = [&] {
            return static_cast<double>(m_bytes / (uint64_t{m_choice.nChannels} * m_chunk));
        };
        while (chunksPerChannel() < steps * 64 / ppn && m_chunk > (128u << 10)) {
            m_chunk /= 2;
        }
        while (chunksPerChannel() < steps * 16 / ppn && m_chunk > (32u << 10)) {
            m_chunk /= 2;
        }
    }
    // The channels' GPU side: each moves its share of the bus bandwidth.
    m_channelBytesPerUs = m_choice.busBwGBps * 1e3 / m_choice.nChannels;
    if (collNetChain()) {
        // Channel c's chain starts at the server's GPU c % ppn, whose NIC's switch reduces for it.
        m_heads = static_cast<uint32_t>(m_servers[0].size());
        planReductionTree(topo, members);
        m_chunk = collNetChainChunkBytes(m_bytes, m_choice.nChannels, m_heads);
    }
    if (inNetwork()) {
        // Reductions in switches: NVLS's heads are the server's GPUs and its engine the scale-up
        // switch's; CollNet's heads are each server's GPUs (one per NIC) and the engine of head h the
        // one in the switch every server's GPU h is cabled to.
        const uint32_t base = owner.m_network.numRanks();
        m_heads = static_cast<uint32_t>(m_servers[0].size());
        m_serverOf.assign(n, 0);
        m_localOf.assign(n, 0);
        for (uint32_t k = 0; k < m_servers.size(); ++k) {
            for (uint32_t i = 0; i < m_servers[k].size(); ++i) {
                m_serverOf[m_servers[k][i]] = k;
                m_localOf[m_servers[k][i]] = i;
            }
        }
        if (m_choice.algo == Algo::Nvls) {
            m_engines = {base + static_cast<uint32_t>(engine)};
            m_chunk = nvlsChunkBytes(m_bytes, m_choice.nChannels, m_heads);
        } else if (m_choice.algo == Algo::NvlsTree) {
            for (const std::vector<uint32_t>& server : m_servers) {
                m_engines.push_back(base +
                                    static_cast<uint32_t>(topo.engineOf(topo.serverOf(members[server[0]]))));
            }
            m_chunk = nvlsTreeChunkBytes(m_bytes, m_choice.nChannels, m_heads,
                                         static_cast<uint32_t>(m_servers.size()));
        } else {
            planReductionTree(topo, members);
            m_chunk = collNetDirectChunkBytes(m_bytes, m_choice.nChannels, m_heads);
        }
        m_depth = kNvlsDepth;
        // Not a ring's bus bandwidth: each channel's SM handles its share of the operation's bytes at the
        // algorithm bandwidth, and the tuner's latency is paid once, at the start.
        m_channelBytesPerUs = m_choice.algBwGBps * 1e3 / m_choice.nChannels;
    }
    applyDeviceCosts();
    planChannels();
    if (inNetwork()) {
        engineStart();
    }
    if (collNetChain()) {
        reductionTreeStart();
    }
}

void NcclCollectives::Op::applyDeviceCosts() {
    const DeviceCosts dev = deviceCosts(m_shape.arch);
    if (m_choice.proto != Proto::Simple) {
        m_channelBytesPerUs *= m_choice.proto == Proto::LL ? dev.llRateFactor : dev.ll128RateFactor;
    } else if (m_choice.algo == Algo::Ring || m_choice.algo == Algo::Tree) {
        m_stepCostNs = static_cast<TimeNs>(std::llround(dev.simpleStepUs * 1e3));
    } else if (m_choice.algo == Algo::Nvls) {
        m_channelBytesPerUs *= dev.nvlsRateFactor;
        m_loopCostNs = static_cast<TimeNs>(std::llround(dev.nvlsLoopUs * 1e3));
        m_fillNs = static_cast<TimeNs>(
            std::llround(dev.nvlsFillChunks * static_cast<double>(m_chunk) / m_channelBytesPerUs * 1e3));
    }
}

void NcclCollectives::Op::join(uint32_t pos, Callback done, uint32_t record) {
    Member& m = m_members[pos];
    m.done = done;
    m.record = record;
    m.joined = true;
    m.joinPs = m_owner.m_network.nowPs();
    const double latencyUs =
        latencyOnce() ? m_choice.latencyUs : baseLatencyUs(m_choice.algo, m_choice.proto);
    const TimeNs base = static_cast<TimeNs>(std::llround(latencyUs * 1e3)) + m_fillNs;
    m_owner.m_network.schedule(base, makeCallback<&Op::start>(this, pos));
}

std::string NcclCollectives::Op::describe(uint32_t pos) const {
    const Member& m = m_members[pos];
    std::ostringstream s;
    s << toString(m_type) << " on communicator " << m_group << " (NCCL " << algoName(m_choice.algo) << "/"
      << protoName(m_choice.proto) << ", " << m_choice.nChannels << " channels): " << m.unitsLeft
      << " transfers of this rank unfinished";
    return s.str();
}

void NcclCollectives::Op::planChannels() {
    const uint32_t n = size(), nc = m_choice.nChannels;
    m_plans.resize(nc);
    // Each rank's share of the data in the collective's own terms: all-reduce, broadcast, reduce and
    // tree: the buffer; all-gather: the rank's shard; reduce-scatter: the rank's output.
    // NVLS: the whole buffer, a share per head in every loop.
    const uint64_t perRank = inNetwork()                     ? m_bytes
                             : m_func == Func::AllGather     ? m_bytes / n
                             : m_func == Func::ReduceScatter ? m_bytes / n
                                                             : m_bytes;
    for (uint32_t c = 0; c < nc; ++c) {
        ChannelPlan& p = m_plans[c];
        p.bytes = perRank / nc + (c < perRank % nc ? 1 : 0);
        if (m_choice.algo == Algo::Tree || collNetChain()) {
            planTree(c, p);
        } else if (!inNetwork()) {
            planRing(c, p);
        }
    }
    // A tree's reduce (up) and broadcast (down) run as two independent pipelines in NCCL (hop by hop,
    // each connection with its own steps), so a member holds a chunk from its reduction until the
    // broadcast brings it back: enough chunks in flight to cover that round trip keep the hops busy.
    if (m_choice.algo == Algo::Tree || collNetChain()) {
        std::size_t longestChain = 0;
        for (const auto& server : m_servers) {
            longestChain = std::max(longestChain, server.size());
        }
        uint32_t levels = collNetChain() ? 1 : 0;  // the chain's head to the switch and back
        while (!collNetChain() && (std::size_t{1} << levels) < m_servers.size()) {
            ++levels;
        }
        m_depth = std::min<uint32_t>(64, 2 * (static_cast<uint32_t>(longestChain) + levels) + 2);
    }
    for (Member& m : m_members) {
        m.channels.resize(nc);
        for (ChannelState& ch : m.channels) {
            ch.slots.resize(m_depth);
        }
        m.unitsLeft = nc;
        for (uint32_t c = 0; c < nc; ++c) {
            m.channels[c].chunks = static_cast<uint32_t>(chunksOf(m_plans[c].bytes));
        }
    }
}

uint64_t NcclCollectives::Op::loopBytes() const {
    // A ring all-reduce loop moves a chunk per rank (n chunks), NVLS a chunk per head; the others a
    // chunk.
    return inNetwork()                                                ? m_chunk * m_heads
           : m_choice.algo == Algo::Ring && m_func == Func::AllReduce ? m_chunk * size()
                                                                      : m_chunk;
}

uint64_t NcclCollectives::Op::pieceOf(uint32_t channel, uint32_t k) const {
    const uint64_t bytes = m_plans[channel].bytes, loop = loopBytes();
    const uint64_t rest = bytes > uint64_t{k} * loop ? bytes - uint64_t{k} * loop : 0;
    const uint64_t inLoop = std::min(rest, loop);
    return m_choice.algo == Algo::Ring && m_func == Func::AllReduce ? (inLoop + size() - 1) / size() : inLoop;
}

void NcclCollectives::Op::planRing(uint32_t c, ChannelPlan& p) {
    // Servers in turn; inside a server from the channel's starting GPU, odd servers backwards, so the
    // ring leaves a server and enters the next on the same rail (NCCL's alternating rings).
    for (std::size_t k = 0; k < m_servers.size(); ++k) {
        const std::vector<uint32_t>& s = m_servers[k];
        std::vector<uint32_t> order;
        for (std::size_t i = 0; i < s.size(); ++i) {
            order.push_back(s[(c + i) % s.size()]);
        }
        if (k % 2 == 1) {
            std::reverse(order.begin(), order.end());
        }
        p.ring.insert(p.ring.end(), order.begin(), order.end());
    }
    p.ringIndex.assign(size(), 0);
    for (uint32_t i = 0; i < p.ring.size(); ++i) {
        p.ringIndex[p.ring[i]] = i;
    }
}

void NcclCollectives::Op::planTree(uint32_t c, ChannelPlan& p) {
    // A chain inside each server from the GPU that holds the server's tree links, and the servers on a
    // double binary tree (tree c % 2). CollNet Chain: the chain's first GPU has the reducing switch its NIC
    // is cabled to as its parent (connect.cc: up = nRanks), and no tree joins the servers.
    const int nodes = static_cast<int>(m_servers.size());
    p.tree.assign(size(), TreeLinks{});
    p.children.assign(size(), {});
    std::vector<uint32_t> head(m_servers.size());
    for (std::size_t k = 0; k < m_servers.size(); ++k) {
        const std::vector<uint32_t>& s = m_servers[k];
        const std::size_t start = collNetChain() ? c % s.size() : (c / 2) % s.size();
        std::vector<uint32_t> chain;
        for (std::size_t i = 0; i < s.size(); ++i) {
            chain.push_back(s[(start + i) % s.size()]);
        }
        head[k] = chain[0];
        for (std::size_t i = 1; i < chain.size(); ++i) {
            p.tree[chain[i]].parent = static_cast<int>(chain[i - 1]);
            p.children[chain[i - 1]].push_back(chain[i]);
        }
    }
    if (collNetChain()) {
        for (const uint32_t h : head) {
            p.tree[h].parent = static_cast<int>(size() + m_leafNodeOf[h]);
        }
        return;
    }
    for (int k = 0; k < nodes; ++k) {
        const TreeLinks t = dtree(k, nodes, static_cast<int>(c % 2));
        const uint32_t h = head[static_cast<std::size_t>(k)];
        p.tree[h].parent = t.parent < 0 ? -1 : static_cast<int>(head[static_cast<std::size_t>(t.parent)]);
        for (int child : {t.child0, t.child1}) {
            if (child >= 0) {
                p.children[h].push_back(head[static_cast<std::size_t>(child)]);
            }
        }
    }
}

Hop NcclCollectives::Op::hopBetween(uint32_t a, uint32_t b) const {
    if (a >= size() || b >= size()) {
        return collNetChain() ? Hop::Net : Hop::Nvlink;  // a switch's reduction engine
    }
    const NcclTopology& t = m_owner.m_topology;
    if (t.serverOf(m_ranks[a]) != t.serverOf(m_ranks[b])) {
        return Hop::Net;
    }
    return m_shape.nvswitch ? Hop::Nvlink : Hop::Pci;
}

void NcclCollectives::Op::transfer(uint32_t from, uint32_t to, uint32_t channel, uint32_t kind, uint32_t slot,
                                   uint64_t bytes, Callback sent, bool samePass, uint64_t workBytes) {
    NetworkApi& net = m_owner.m_network;
    const bool nvls = inNetwork();
    // CollNet Chain: the tuner counts the switch's round trip once, on the way up.
    const TimeNs hopNs = latencyOnce() || from >= size()
                             ? 0
                             : static_cast<TimeNs>(std::llround(
                                   hopLatencyUs(m_choice.algo, m_choice.proto, hopBetween(from, to)) * 1e3));
    const uint64_t work = workBytes == UINT64_MAX ? bytes : workBytes;
    const TimeNs workNs =
        from >= size()
            ? 0
            : static_cast<TimeNs>(std::llround(static_cast<double>(work) / m_channelBytesPerUs * 1e3));
    // The GPU side keeps the network's clock at its own resolution: a collective then does the same
    // whatever the fraction of a nanosecond it starts at (the collective memo's keys rely on it).
    const TimePs nowPs = net.nowPs();
    TimePs donePs = addPs(nowPs, nsToPs(workNs));
    if (from < size() &&
        (kind == kRing || kind == kTreeUp || kind == kTreeDown || kind == kPat || (nvls && work > 0))) {
        // One SM per (member, channel) for NVLS: its scatter and multicast stores share it. A Simple ring or
        // tree step also pays its fixed cost.
        TimePs& free = smFree(from, channel, kind);
        const TimeNs stepNs = kind == kRing || kind == kTreeUp || kind == kTreeDown ? m_stepCostNs : 0;
        donePs = samePass ? free : addPs(std::max(free, nowPs), nsToPs(workNs + stepNs));
        free = donePs;
    }
    // Sender-side ready times of the messages on their way, FIFO per way as the network matches them: the
    // GPU side of this hop.
    const uint32_t ready =
        m_readyIndex.findOrInsert(Way{from, to, channel, kind, slot}, [this] { return m_ready.acquire(); })
            .first;
    m_ready[ready].times.push_back(addPs(donePs, nsToPs(hopNs)));
    const uint64_t wire =
        std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(bytes * wireFactor(m_choice.proto))));
    const uint64_t tag = ncclTag(m_group, m_sequence, channel, kind, slot);
    const NcclEnv& env = m_owner.m_config.env;
    if (to >= size()) {
        m_owner.m_engine.bytesIn += wire;
    }
    if (from >= size()) {
        m_owner.m_engine.bytesOut += wire;
    }
    const uint64_t piece =
        ceilDiv(ceilDiv(wire, env.qpsPerConnection), kQpSplitAlignBytes) * kQpSplitAlignBytes;
    if (!env.splitDataOnQps || env.qpsPerConnection < 2 || piece >= wire ||
        hopBetween(from, to) != Hop::Net) {
        countMessage(wire);
        if (nvls && donePs > nowPs) {
            // NVLS's stores leave the GPU as its SM produces them (multimem instructions), not ahead.
            const uint64_t id = m_deferred.acquire();
            m_deferred[id] = Deferred{endpoint(from), endpoint(to), tag, wire, sent};
            net.schedulePs(donePs - nowPs, makeCallback<&Op::deferredSend>(this, id));
            return;
        }
        net.send(endpoint(from), endpoint(to), tag, wire, 0, sent);
        return;
    }
    // NCCL_IB_SPLIT_DATA_ON_QPS: one piece per QP, each its own RoCE flow (and ECMP path); the receive
    // counts bytes, so it completes with the last piece, and the send once every piece is acknowledged.
    const uint64_t join = m_joins.acquire();
    m_joins[join] = Join{ceilDiv(wire, piece), sent};
    for (uint64_t offset = 0; offset < wire; offset += piece) {
        countMessage(std::min(piece, wire - offset));
        net.send(m_ranks[from], m_ranks[to], tag, std::min(piece, wire - offset), 0,
                 makeCallback<&Op::pieceSent>(this, join));
    }
}

TimePs& NcclCollectives::Op::smFree(uint32_t pos, uint32_t channel, uint32_t kind) {
    const std::size_t key = (std::size_t{pos} * m_choice.nChannels + channel) * 3 +
                            (kind == kTreeUp || kind == kTreeDown ? kind : 0);
    if (m_smFreePs.size() <= key) {
        m_smFreePs.resize(std::size_t{size()} * m_choice.nChannels * 3, 0);
    }
    return m_smFreePs[key];
}

void NcclCollectives::Op::deferredSend(uint64_t index) {
    const Deferred d = m_deferred[index];
    m_deferred.release(index);
    m_owner.m_network.send(d.src, d.dst, d.tag, d.wire, 0, d.sent);
}

void NcclCollectives::Op::pieceSent(uint64_t join) {
    Join& j = m_joins[join];
    if (--j.remaining == 0) {
        const Callback sent = j.sent;
        m_joins.release(join);
        if (sent) {
            sent();
        }
    }
}

void NcclCollectives::Op::expect(uint32_t from, uint32_t to, uint32_t channel, uint32_t kind, uint32_t slot,
                                 uint64_t bytes, Callback handler) {
    const uint64_t wire =
        std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(bytes * wireFactor(m_choice.proto))));
    const uint64_t id = m_pending.acquire();
    m_pending[id] = Pending{Way{from, to, channel, kind, slot}, handler};
    m_owner.m_network.recv(endpoint(from), endpoint(to), ncclTag(m_group, m_sequence, channel, kind, slot),
                           wire, makeCallback<&Op::arrived>(this, id));
}

void NcclCollectives::Op::arrived(uint64_t index) {
    const Pending p = m_pending[index];
    m_pending.release(index);
    TimePs readyAt = 0;
    if (const uint32_t ready = m_readyIndex.find(p.way); ready != m_readyIndex.kNone) {
        ReadyTimes& q = m_ready[ready];
        readyAt = q.times[q.head++];
        if (q.head == q.times.size()) {
            q.times.clear();
            q.head = 0;
            m_readyIndex.erase(p.way);
            m_ready.release(ready);
        }
    }
    const TimePs now = m_owner.m_network.nowPs();
    m_owner.m_network.schedulePs(readyAt > now ? readyAt - now : 0, p.handler);
}

void NcclCollectives::Op::start(uint64_t pos) {
    if (m_memo == Memo::Undecided) {
        consultMemo();
    }
    if (m_memo == Memo::Replaying) {
        return;
    }
    for (uint32_t c = 0; c < m_choice.nChannels; ++c) {
        for (uint32_t s = 0; s < m_depth; ++s) {
            startChunk(static_cast<uint32_t>(pos), c);
        }
    }
}

bool NcclCollectives::Op::startChunk(uint32_t pos, uint32_t c) {
    ChannelState& ch = m_members[pos].channels[c];
    if (ch.nextChunk >= ch.chunks || ch.slots[ch.nextChunk % m_depth].active) {
        return false;
    }
    const uint32_t k = ch.nextChunk++;
    const uint32_t slot = k % m_depth;
    Slot& s = ch.slots[slot];
    s = Slot{};
    s.active = true;
    s.piece = pieceOf(c, k);
    m_choice.algo == Algo::Tree || collNetChain()                    ? treeStart(pos, c, slot)
    : m_choice.algo == Algo::Nvls || m_choice.algo == Algo::NvlsTree ? nvlsStart(pos, c, slot, k)
    : m_choice.algo == Algo::CollNetDirect                           ? collNetStart(pos, c, slot, k)
    : m_choice.algo == Algo::Pat                                     ? patStart(pos, c, slot)
                                                                     : ringStart(pos, c, slot);
    return true;
}

void NcclCollectives::Op::chunkDone(uint32_t pos, uint32_t c, uint32_t slot) {
    ChannelState& ch = m_members[pos].channels[c];
    ch.slots[slot].active = false;
    if (++ch.chunksDone == ch.chunks) {
        memberUnitDone(pos);
        return;
    }
    while (startChunk(pos, c)) {
    }
}

uint32_t NcclCollectives::Op::receiptsExpected(uint32_t pos, uint32_t c, uint32_t slot) const {
    switch (m_choice.algo) {
        case Algo::Ring:
            return ringSteps();
        case Algo::Pat:
            return patMessagesBefore(static_cast<uint32_t>(m_patSteps.size()),
                                     m_members[pos].channels[c].slots[slot].piece);
        case Algo::Tree:
        case Algo::CollNetChain: {
            const ChannelPlan& p = m_plans[c];
            return static_cast<uint32_t>(p.children[pos].size()) + (p.tree[pos].parent >= 0 ? 1 : 0);
        }
        default:
            return inNetworkReceipts(pos, c);
    }
}

void NcclCollectives::Op::slotSent(uint64_t a) {
    const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
    --m_members[pos].channels[c].slots[slot].sendsLeft;
    slotMaybeDone(pos, c, slot);
}

void NcclCollectives::Op::slotGot(uint64_t a) {
    const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
    ++m_members[pos].channels[c].slots[slot].received;
    slotMaybeDone(pos, c, slot);
}

void NcclCollectives::Op::slotMaybeDone(uint32_t pos, uint32_t c, uint32_t slot) {
    const Slot& s = m_members[pos].channels[c].slots[slot];
    if (s.active && s.sendsLeft == 0 && s.received == receiptsExpected(pos, c, slot)) {
        chunkDone(pos, c, slot);
    }
}

void NcclCollectives::Op::memberUnitDone(uint32_t pos) {
    Member& m = m_members[pos];
    if (--m.unitsLeft > 0) {
        return;
    }
    NcclCollectives::Record& r = m_owner.m_records[m.record];
    r.endNs = m_owner.m_network.now();
    ++m_finished;
    if (m_memo == Memo::Recording) {
        m_recording.finishPs[pos] = m_owner.m_network.nowPs() - m_memoStartPs;
        if (finished()) {
            finishRecording();
        }
    }
    m.done();  // may destroy this Op (the owner erases finished ones): nothing after this line
}

void NcclCollectives::Op::consultMemo() {
    m_memo = Memo::None;
    CollectiveMemo& memo = m_owner.m_memo;
    if (!memo.enabled() || inNetwork() || collNetChain()) {
        return;  // a switch's engine takes part: not inside the domain
    }
    TimePs firstJoin = std::numeric_limits<TimePs>::max();
    for (const Member& m : m_members) {
        if (!m.joined) {
            return;  // a later start would be missing from the key
        }
        firstJoin = std::min(firstJoin, m.joinPs);
    }
    NetworkApi& net = m_owner.m_network;
    if (!net.privateDomain(m_ranks, m_domain) || !m_domain.idle || memo.busy(m_domain.id, net.nowPs())) {
        return;
    }
    memo.candidate();
    m_memoStartPs = net.nowPs();
    m_memoKey = memoKey(firstJoin);
    if (const CollectiveMemo::Outcome* outcome = memo.find(m_memoKey)) {
        m_memo = Memo::Replaying;
        memo.replaying(m_domain.id, m_memoStartPs, *outcome);
        net.countReplayed(outcome->messages, outcome->bytes);
        for (uint32_t pos = 0; pos < size(); ++pos) {
            net.schedulePs(outcome->finishPs[pos], makeCallback<&Op::replayedDone>(this, pos));
        }
        return;
    }
    m_memo = Memo::Recording;
    memo.recordingStarted(m_domain.id);
    m_domainReplays = memo.replaysIn(m_domain.id);
    m_recording.finishPs.assign(size(), 0);
    m_ownMessages = 0;
    m_ownBytes = 0;
}

CollectiveMemo::Key NcclCollectives::Op::memoKey(TimePs firstJoinPs) const {
    const auto bits = [](double v) {
        uint64_t b = 0;
        std::memcpy(&b, &v, sizeof b);
        return b;
    };
    CollectiveMemo::Key key{m_domain.shape,
                            static_cast<uint64_t>(m_type),
                            static_cast<uint64_t>(m_func),
                            m_bytes,
                            m_nodeBytes,
                            m_chunk,
                            static_cast<uint64_t>(m_choice.algo),
                            static_cast<uint64_t>(m_choice.proto),
                            m_choice.nChannels,
                            bits(m_choice.latencyUs),
                            bits(m_channelBytesPerUs),
                            static_cast<uint64_t>(m_stepCostNs),
                            static_cast<uint64_t>(m_loopCostNs),
                            static_cast<uint64_t>(m_fillNs),
                            m_depth,
                            m_shape.nvswitch};
    // The description's servers (hops between them are Net, the ring's order is by local index), which the
    // domain's cabling need not show.
    for (const std::vector<uint32_t>& server : m_servers) {
        key.push_back(server.size());
        key.insert(key.end(), server.begin(), server.end());
    }
    for (const Member& m : m_members) {
        key.push_back(m.joinPs - firstJoinPs);
    }
    return key;
}

void NcclCollectives::Op::finishRecording() {
    CollectiveMemo& memo = m_owner.m_memo;
    NetworkApi::PrivateDomain now;
    // Nothing but this collective's messages in the domain, and no replay there, from its first start on.
    const bool alone = m_owner.m_network.privateDomain(m_ranks, now) &&
                       now.messagesStarted - m_domain.messagesStarted == m_ownMessages &&
                       memo.replaysIn(m_domain.id) == m_domainReplays;
    m_recording.messages = m_ownMessages;
    m_recording.bytes = m_ownBytes;
    memo.recordingEnded(m_domain.id, std::move(m_memoKey), alone ? &m_recording : nullptr);
}

void NcclCollectives::Op::replayedDone(uint64_t pos) {
    Member& m = m_members[pos];
    NcclCollectives::Record& r = m_owner.m_records[m.record];
    r.endNs = m_owner.m_network.now();
    ++m_finished;
    if (finished()) {
        NetworkApi::PrivateDomain now;
        m_owner.m_memo.replayEnded(m_owner.m_network.privateDomain(m_ranks, now) &&
                                   now.messagesStarted == m_domain.messagesStarted);
    }
    m.done();  // may destroy this Op: nothing after this line
}
}  // namespace mlnet::nccl

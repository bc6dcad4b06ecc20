#include "nccl-collectives.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <sstream>
#include <stdexcept>

#include "hardware/gpu-catalogue.h"
#include "util/pools.h"

namespace mlnet::nccl {

namespace {

// Protocol facts (NCCL 2.23, src/include/device.h, enqueue.cc): bytes per step of a connection's buffer and
// what a line carries.
constexpr uint64_t kSimpleStepBytes = (4u << 20) / 8;  // 4 MiB buffer, 8 steps
constexpr uint64_t kLlStepDataBytes = 524288 / 8 / 2;  // half of each 16-byte line is data
constexpr uint64_t kLl128StepDataBytes = 4915200 / 8 * 120 / 128;
constexpr uint32_t kPipelineDepth = 2;  // ring loops in flight per channel
constexpr uint32_t kNvlsDepth = 4;      // NVLS loops in flight per channel (scatter, reduce, gather)
constexpr uint64_t kNvlsMaxChunkBytes = 128u << 10;  // NCCL_NVLS_CHUNKSIZE's default
constexpr uint64_t kQpSplitAlignBytes = 128;  // NCCL_IB_SPLIT_DATA_ON_QPS pieces (net_ib.cc ncclIbMultiSend)

constexpr uint64_t ceilDiv(uint64_t a, uint64_t b) {
    return (a + b - 1) / b;
}

enum Kind : uint32_t {
    kRing = 0,
    kTreeUp = 1,
    kTreeDown = 2,
    kP2p = 3,
    kPxn = 4,
    // NVLS: a GPU's share for a head into the switch, the head's reduced share back, the head's multicast
    // store into the switch, and the switch's copy of it to every GPU.
    kNvlsUp = 5,
    kNvlsReduced = 6,
    kNvlsStore = 7,
    kNvlsMulticast = 8,
    // CollNet Direct: a GPU's share to its server's head for it, the head's partial sum into the reducing
    // switch, the switch's total back to every server's head, and the head's copy to the other local GPUs.
    kCnScatter = 9,
    kCnUp = 10,
    kCnDown = 11,
    kCnBcast = 12,
    // PAT: one step of the Bruck schedule to the rank 2^d away.
    kPat = 13,
};

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

// NCCL's double binary tree over n nodes (src/graph/trees.cc): tree 0, and tree 1 mirrored (n even) or
// shifted (n odd), so that every node is a leaf in one of them.
struct TreeLinks {
    int parent = -1, child0 = -1, child1 = -1;
};
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

// The numeric NCCL_* settings: name, range, and where each goes.
struct NumericSetting {
    const char* name;
    long lo, hi;
    void (*apply)(NcclEnv&, long);
};
const NumericSetting kNumericSettings[] = {
    {"NCCL_MIN_NCHANNELS", 0, 32, [](NcclEnv& e, long n) { e.minChannels = static_cast<uint32_t>(n); }},
    {"NCCL_MAX_NCHANNELS", 1, 32, [](NcclEnv& e, long n) { e.maxChannels = static_cast<uint32_t>(n); }},
    {"NCCL_NCHANNELS_PER_NET_PEER", 1, 32,
     [](NcclEnv& e, long n) { e.channelsPerNetPeer = static_cast<int>(n); }},
    {"NCCL_IB_QPS_PER_CONNECTION", 1, 128,
     [](NcclEnv& e, long n) { e.qpsPerConnection = static_cast<uint32_t>(n); }},
    {"NCCL_IB_SPLIT_DATA_ON_QPS", 0, 1, [](NcclEnv& e, long n) { e.splitDataOnQps = n == 1; }},
    {"NCCL_PXN_DISABLE", 0, 1, [](NcclEnv& e, long n) { e.pxn = n == 0; }},
    {"NCCL_NVLS_ENABLE", 0, 2, [](NcclEnv& e, long n) { e.nvls = static_cast<int>(n); }},
    {"NCCL_COLLNET_ENABLE", 0, 1, [](NcclEnv& e, long n) { e.collNet = n == 1; }},
};

}  // namespace

// One collective of one communicator: the plan every member agreed on and every member's progress.
class NcclCollectives::Op {
public:
    Op(NcclCollectives& owner, uint32_t denseGroup, uint32_t sequence, const std::vector<Rank>& members,
       const TraceNode& node)
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
            auto it =
                std::find_if(servers.begin(), servers.end(), [&](const auto& e) { return e.first == s; });
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
        // (the network's reduction engine), NVLS-Tree all-reduce across such servers, and CollNet Direct
        // all-reduce over reducing scale-out switches (servers of one size, a NIC per GPU); not yet NVLS over
        // CollNet, CollNet Chain, or CollNet's all-gather and reduce-scatter.
        env.algoAllowed[static_cast<int>(Algo::CollNetChain)] = false;
        const int engine = m_servers.size() == 1 ? topo.engineOf(topo.serverOf(members[0])) : -1;
        if (engine < 0) {
            env.algoAllowed[static_cast<int>(Algo::Nvls)] = false;
        }
        const bool evenServers = std::all_of(m_servers.begin(), m_servers.end(), [&](const auto& s) {
            return s.size() == m_servers[0].size() && s.size() <= 8;
        });
        if (!m_shape.switchesReduce || !evenServers || m_func != Func::AllReduce) {
            env.algoAllowed[static_cast<int>(Algo::CollNetDirect)] = false;
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
                    m_engines.push_back(
                        base + static_cast<uint32_t>(topo.engineOf(topo.serverOf(members[server[0]]))));
                }
                m_chunk = nvlsTreeChunkBytes(m_bytes, m_choice.nChannels, m_heads,
                                             static_cast<uint32_t>(m_servers.size()));
            } else {
                for (uint32_t h = 0; h < m_heads; ++h) {
                    m_engines.push_back(base +
                                        static_cast<uint32_t>(topo.netEngineOf(members[m_servers[0][h]])));
                }
                m_chunk = collNetDirectChunkBytes(m_bytes, m_choice.nChannels, m_heads);
            }
            m_depth = kNvlsDepth;
            // Not a ring's bus bandwidth: each channel's SM handles its share of the operation's bytes at the
            // algorithm bandwidth, and the tuner's latency is paid once, at the start.
            m_channelBytesPerUs = m_choice.algBwGBps * 1e3 / m_choice.nChannels;
        }
        planChannels();
        if (inNetwork()) {
            engineStart();
        }
    }

    uint32_t size() const { return static_cast<uint32_t>(m_ranks.size()); }
    const Choice& choice() const { return m_choice; }
    bool matches(const TraceNode& node) const {
        return node.collective == m_type && node.commSizeBytes == m_nodeBytes;
    }
    std::string what() const {
        return std::string(toString(m_type)) + " of " + std::to_string(m_nodeBytes) + " B";
    }
    bool finished() const { return m_finished == m_ranks.size(); }

    // Member `pos` issued the collective: its part starts after the base latency.
    void join(uint32_t pos, Callback done, uint32_t record) {
        Member& m = m_members[pos];
        m.done = done;
        m.record = record;
        m.joined = true;
        const double latencyUs =
            latencyOnce() ? m_choice.latencyUs : baseLatencyUs(m_choice.algo, m_choice.proto);
        const TimeNs base = static_cast<TimeNs>(std::llround(latencyUs * 1e3));
        m_owner.m_network.schedule(base, makeCallback<&Op::start>(this, pos));
    }

    std::string describe(uint32_t pos) const {
        const Member& m = m_members[pos];
        std::ostringstream s;
        s << toString(m_type) << " on communicator " << m_group << " (NCCL " << algoName(m_choice.algo) << "/"
          << protoName(m_choice.proto) << ", " << m_choice.nChannels << " channels): " << m.unitsLeft
          << " transfers of this rank unfinished";
        return s.str();
    }

private:
    struct ChannelPlan {
        uint64_t bytes = 0;  // this channel's share of the buffer (per rank, in the collective's own terms)
        std::vector<uint32_t> ring;       // member positions in ring order
        std::vector<uint32_t> ringIndex;  // position -> index in ring
        std::vector<TreeLinks> tree;      // per position: parent and up to three children (tree all-reduce)
        std::vector<std::vector<uint32_t>> children;
    };
    struct Slot {  // one chunk in flight on one channel of one member
        uint32_t step = 0;
        uint32_t received = 0;
        uint32_t sendsLeft = 0;
        bool active = false;
        uint64_t piece = 0;
    };
    struct ChannelState {
        uint32_t nextChunk = 0, chunksDone = 0, chunks = 0;
        std::vector<Slot> slots;
    };
    // A message's way, as the network matches it: (from, to, channel, kind, slot).
    using Way = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>;
    struct Member {
        bool joined = false;
        Callback done;
        uint32_t record = 0;
        uint64_t unitsLeft = 0;  // channels (collectives) or transfers (all-to-all) still to finish
        std::vector<ChannelState> channels;
    };

    // Packs (member position, channel, slot) into a callback argument.
    static uint64_t pack(uint32_t pos, uint32_t channel, uint32_t slot, uint32_t extra = 0) {
        return uint64_t{pos} | uint64_t{channel} << 24 | uint64_t{slot} << 32 | uint64_t{extra} << 40;
    }
    static uint32_t posOf(uint64_t a) { return a & 0xffffff; }
    static uint32_t channelOf(uint64_t a) { return (a >> 24) & 0xff; }
    static uint32_t slotOf(uint64_t a) { return (a >> 32) & 0xff; }
    static uint32_t extraOf(uint64_t a) { return static_cast<uint32_t>(a >> 40); }

    void planChannels() {
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
            if (m_choice.algo == Algo::Tree) {
                planTree(c, p);
            } else if (!inNetwork()) {
                planRing(c, p);
            }
        }
        // A tree's reduce (up) and broadcast (down) run as two independent pipelines in NCCL (hop by hop,
        // each connection with its own steps), so a member holds a chunk from its reduction until the
        // broadcast brings it back: enough chunks in flight to cover that round trip keep the hops busy.
        if (m_choice.algo == Algo::Tree) {
            std::size_t longestChain = 0;
            for (const auto& server : m_servers) {
                longestChain = std::max(longestChain, server.size());
            }
            uint32_t levels = 0;
            while ((std::size_t{1} << levels) < m_servers.size()) {
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

    uint64_t loopBytes() const {
        // A ring all-reduce loop moves a chunk per rank (n chunks), NVLS a chunk per head; the others a
        // chunk.
        return inNetwork()                                                ? m_chunk * m_heads
               : m_choice.algo == Algo::Ring && m_func == Func::AllReduce ? m_chunk * size()
                                                                          : m_chunk;
    }
    uint64_t chunksOf(uint64_t bytes) const {
        return std::max<uint64_t>(1, (bytes + loopBytes() - 1) / loopBytes());
    }
    // The piece a step of chunk `k` moves (the last chunk is what is left).
    uint64_t pieceOf(uint32_t channel, uint32_t k) const {
        const uint64_t bytes = m_plans[channel].bytes, loop = loopBytes();
        const uint64_t rest = bytes > uint64_t{k} * loop ? bytes - uint64_t{k} * loop : 0;
        const uint64_t inLoop = std::min(rest, loop);
        return m_choice.algo == Algo::Ring && m_func == Func::AllReduce ? (inLoop + size() - 1) / size()
                                                                        : inLoop;
    }

    void planRing(uint32_t c, ChannelPlan& p) {
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

    void planTree(uint32_t c, ChannelPlan& p) {
        // A chain inside each server from the GPU that holds the server's tree links, and the servers on a
        // double binary tree (tree c % 2).
        const int nodes = static_cast<int>(m_servers.size());
        p.tree.assign(size(), TreeLinks{});
        p.children.assign(size(), {});
        std::vector<uint32_t> head(m_servers.size());
        for (std::size_t k = 0; k < m_servers.size(); ++k) {
            const std::vector<uint32_t>& s = m_servers[k];
            const std::size_t start = (c / 2) % s.size();
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

    // --- common machinery ----------------------------------------------------------------------------------

    // A member's rank, or (position size()) the switch's reduction engine.
    Rank endpoint(uint32_t pos) const { return pos < size() ? m_ranks[pos] : m_engines[pos - size()]; }
    bool inNetwork() const {
        return m_choice.algo == Algo::Nvls || m_choice.algo == Algo::NvlsTree ||
               m_choice.algo == Algo::CollNetDirect;
    }
    // The tuner's latency, paid once at the start: the algorithms NCCL gives no per-hop latency.
    bool latencyOnce() const { return inNetwork() || m_choice.algo == Algo::Pat; }

    Hop hopBetween(uint32_t a, uint32_t b) const {
        if (a >= size() || b >= size()) {
            return Hop::Nvlink;  // a switch's reduction engine
        }
        const NcclTopology& t = m_owner.m_topology;
        if (t.serverOf(m_ranks[a]) != t.serverOf(m_ranks[b])) {
            return Hop::Net;
        }
        return m_shape.nvswitch ? Hop::Nvlink : Hop::Pci;
    }

    // Sends `bytes` of data from member `from` to member `to` on (channel, kind, slot): the message carries
    // the protocol's overhead; its data is ready at the receiver no earlier than the hop latency plus the
    // bytes at the channel's GPU rate after now. `sent` fires at the sender when the network is done with it.
    // One channel's SM works through its steps one at a time, so the chunks a channel has in flight share its
    // rate; a tree's broadcast to its children is one pass (samePass: the children after the first).
    // NVLS: `from` or `to` may be the engine (position size()); the engine has no SM, and the tuner's
    // latency was paid at the start; `workBytes` is what the sender's SM handles for this message.
    void transfer(uint32_t from, uint32_t to, uint32_t channel, uint32_t kind, uint32_t slot, uint64_t bytes,
                  Callback sent, bool samePass = false, uint64_t workBytes = UINT64_MAX) {
        NetworkApi& net = m_owner.m_network;
        const bool nvls = inNetwork();
        const TimeNs hopNs =
            latencyOnce() ? 0
                          : static_cast<TimeNs>(std::llround(
                                hopLatencyUs(m_choice.algo, m_choice.proto, hopBetween(from, to)) * 1e3));
        const uint64_t work = workBytes == UINT64_MAX ? bytes : workBytes;
        const TimeNs workNs =
            from >= size()
                ? 0
                : static_cast<TimeNs>(std::llround(static_cast<double>(work) / m_channelBytesPerUs * 1e3));
        TimeNs doneNs = net.now() + workNs;
        if (kind == kRing || kind == kTreeUp || kind == kTreeDown || kind == kPat ||
            (nvls && from < size() && work > 0)) {
            // One SM per (member, channel) for NVLS: its scatter and multicast stores share it.
            const std::size_t key =
                (std::size_t{from} * m_choice.nChannels + channel) * 3 + (kind < 3 ? kind : 0);
            if (m_smFreeNs.size() <= key) {
                m_smFreeNs.resize(std::size_t{size()} * m_choice.nChannels * 3, 0);
            }
            doneNs = samePass ? m_smFreeNs[key] : std::max(m_smFreeNs[key], net.now()) + workNs;
            m_smFreeNs[key] = doneNs;
        }
        // Sender-side ready times of the messages on their way, FIFO per way as the network matches them: the
        // GPU side of this hop.
        m_ready[Way{from, to, channel, kind, slot}].push_back(doneNs + hopNs);
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
            ++m_owner.m_messages;
            if (nvls && doneNs > net.now()) {
                // NVLS's stores leave the GPU as its SM produces them (multimem instructions), not ahead.
                const uint64_t id = m_deferred.acquire();
                m_deferred[id] = Deferred{endpoint(from), endpoint(to), tag, wire, sent};
                net.schedule(doneNs - net.now(), makeCallback<&Op::deferredSend>(this, id));
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
            ++m_owner.m_messages;
            net.send(m_ranks[from], m_ranks[to], tag, std::min(piece, wire - offset), 0,
                     makeCallback<&Op::pieceSent>(this, join));
        }
    }
    struct Join {
        uint64_t remaining;
        Callback sent;
    };
    struct Deferred {
        Rank src, dst;
        uint64_t tag, wire;
        Callback sent;
    };
    void deferredSend(uint64_t index) {
        const Deferred d = m_deferred[index];
        m_deferred.release(index);
        m_owner.m_network.send(d.src, d.dst, d.tag, d.wire, 0, d.sent);
    }
    void pieceSent(uint64_t join) {
        Join& j = m_joins[join];
        if (--j.remaining == 0) {
            const Callback sent = j.sent;
            m_joins.release(join);
            if (sent) {
                sent();
            }
        }
    }

    // Posts member `to`'s receive of the next message from `from`; `handler` runs when its data is ready.
    void expect(uint32_t from, uint32_t to, uint32_t channel, uint32_t kind, uint32_t slot, uint64_t bytes,
                Callback handler) {
        const uint64_t wire =
            std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(bytes * wireFactor(m_choice.proto))));
        const uint64_t id = m_pending.acquire();
        m_pending[id] = Pending{Way{from, to, channel, kind, slot}, handler};
        m_owner.m_network.recv(endpoint(from), endpoint(to),
                               ncclTag(m_group, m_sequence, channel, kind, slot), wire,
                               makeCallback<&Op::arrived>(this, id));
    }
    struct Pending {
        Way way;
        Callback handler;
    };
    // The network delivered: wait, if need be, for the sender's GPU side.
    void arrived(uint64_t index) {
        const Pending p = m_pending[index];
        m_pending.release(index);
        std::deque<TimeNs>& q = m_ready[p.way];
        const TimeNs readyAt = q.empty() ? 0 : q.front();
        if (!q.empty()) {
            q.pop_front();
        }
        const TimeNs now = m_owner.m_network.now();
        m_owner.m_network.schedule(readyAt > now ? readyAt - now : 0, p.handler);
    }

    void start(uint64_t pos) {
        for (uint32_t c = 0; c < m_choice.nChannels; ++c) {
            for (uint32_t s = 0; s < m_depth; ++s) {
                startChunk(static_cast<uint32_t>(pos), c);
            }
        }
    }

    // Chunk k rides slot k % depth on every member (its messages' tags agree), so it waits until the chunk
    // before it in that slot is done here: chunks can finish out of order.
    bool startChunk(uint32_t pos, uint32_t c) {
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
        m_choice.algo == Algo::Tree                                      ? treeStart(pos, c, slot)
        : m_choice.algo == Algo::Nvls || m_choice.algo == Algo::NvlsTree ? nvlsStart(pos, c, slot, k)
        : m_choice.algo == Algo::CollNetDirect                           ? collNetStart(pos, c, slot, k)
        : m_choice.algo == Algo::Pat                                     ? patStart(pos, c, slot)
                                                                         : ringStart(pos, c, slot);
        return true;
    }

    void chunkDone(uint32_t pos, uint32_t c, uint32_t slot) {
        ChannelState& ch = m_members[pos].channels[c];
        ch.slots[slot].active = false;
        if (++ch.chunksDone == ch.chunks) {
            memberUnitDone(pos);
            return;
        }
        while (startChunk(pos, c)) {
        }
    }

    // A chunk's bookkeeping, whatever the algorithm: its sends acknowledged and its receipts in.
    uint32_t receiptsExpected(uint32_t pos, uint32_t c, uint32_t slot) const {
        switch (m_choice.algo) {
            case Algo::Ring:
                return ringSteps();
            case Algo::Pat:
                return patMessagesBefore(static_cast<uint32_t>(m_patSteps.size()),
                                         m_members[pos].channels[c].slots[slot].piece);
            case Algo::Tree: {
                const ChannelPlan& p = m_plans[c];
                return static_cast<uint32_t>(p.children[pos].size()) + (p.tree[pos].parent >= 0 ? 1 : 0);
            }
            default:
                return inNetworkReceipts(pos, c);
        }
    }
    void slotSent(uint64_t a) {
        const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
        --m_members[pos].channels[c].slots[slot].sendsLeft;
        slotMaybeDone(pos, c, slot);
    }
    void slotGot(uint64_t a) {
        const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
        ++m_members[pos].channels[c].slots[slot].received;
        slotMaybeDone(pos, c, slot);
    }
    void slotMaybeDone(uint32_t pos, uint32_t c, uint32_t slot) {
        const Slot& s = m_members[pos].channels[c].slots[slot];
        if (s.active && s.sendsLeft == 0 && s.received == receiptsExpected(pos, c, slot)) {
            chunkDone(pos, c, slot);
        }
    }

    void memberUnitDone(uint32_t pos) {
        Member& m = m_members[pos];
        if (--m.unitsLeft > 0) {
            return;
        }
        NcclCollectives::Record& r = m_owner.m_records[m.record];
        r.endNs = m_owner.m_network.now();
        ++m_finished;
        m.done();  // may destroy this Op (the owner erases finished ones): nothing after this line
    }

    // --- ring
    // ------------------------------------------------------------------------------------------------

    // Steps a ring member takes per chunk: all-reduce 2(n-1) sends and receives; all-gather and
    // reduce-scatter n-1; broadcast and reduce: the chain from the root (position 0 of the communicator).
    uint32_t ringSteps() const {
        const uint32_t n = size();
        return m_func == Func::AllReduce ? 2 * (n - 1) : n - 1;
    }
    // Broadcast/reduce: a member's place in the chain counted from the root.
    uint32_t chainIndex(uint32_t c, uint32_t pos) const {
        const ChannelPlan& p = m_plans[c];
        const uint32_t n = size(), root = p.ringIndex[0];
        return (p.ringIndex[pos] + n - root) % n;
    }
    bool rooted() const { return m_func == Func::Broadcast || m_func == Func::Reduce; }

    void ringStart(uint32_t pos, uint32_t c, uint32_t slot) {
        const ChannelPlan& p = m_plans[c];
        const uint32_t n = size(), i = p.ringIndex[pos];
        const uint32_t next = p.ring[(i + 1) % n], prev = p.ring[(i + n - 1) % n];
        Slot& s = m_members[pos].channels[c].slots[slot];
        if (rooted()) {
            // Broadcast flows from the root down the chain; reduce flows up it to the root (the reverse).
            const uint32_t at = chainIndex(c, pos);
            const bool bcast = m_func == Func::Broadcast;
            const bool first = bcast ? at == 0 : at == n - 1, last = bcast ? at == n - 1 : at == 0;
            const uint32_t to = bcast ? next : prev, from = bcast ? prev : next;
            s.sendsLeft = last ? 0 : 1;
            if (!first) {
                expect(from, pos, c, kRing, slot, s.piece,
                       makeCallback<&Op::chainReceived>(this, pack(pos, c, slot, to)));
            } else {
                transfer(pos, to, c, kRing, slot, s.piece,
                         makeCallback<&Op::ringSent>(this, pack(pos, c, slot)));
            }
            if (first && last) {
                chunkDone(pos, c, slot);
            }
            return;
        }
        const uint32_t steps = ringSteps();
        s.sendsLeft = steps;
        s.received = 0;
        // Every step's receive is posted now, in order; each completed receive releases the next send.
        for (uint32_t k = 0; k < steps; ++k) {
            expect(prev, pos, c, kRing, slot, s.piece,
                   makeCallback<&Op::ringReceived>(this, pack(pos, c, slot)));
        }
        transfer(pos, next, c, kRing, slot, s.piece, makeCallback<&Op::ringSent>(this, pack(pos, c, slot)));
    }

    void ringReceived(uint64_t a) {
        const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
        Slot& s = m_members[pos].channels[c].slots[slot];
        const uint32_t steps = ringSteps();
        if (++s.received < steps) {
            const ChannelPlan& p = m_plans[c];
            const uint32_t next = p.ring[(p.ringIndex[pos] + 1) % size()];
            transfer(pos, next, c, kRing, slot, s.piece,
                     makeCallback<&Op::ringSent>(this, pack(pos, c, slot)));
        }
        slotMaybeDone(pos, c, slot);
    }

    void chainReceived(uint64_t a) {
        const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
        Slot& s = m_members[pos].channels[c].slots[slot];
        s.received = 1;
        if (s.sendsLeft > 0) {
            transfer(pos, extraOf(a), c, kRing, slot, s.piece,
                     makeCallback<&Op::ringSent>(this, pack(pos, c, slot)));
        } else {
            chunkDone(pos, c, slot);
        }
    }

    void ringSent(uint64_t a) {
        const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
        Slot& s = m_members[pos].channels[c].slots[slot];
        --s.sendsLeft;
        if (rooted()) {
            if (s.sendsLeft == 0) {
                chunkDone(pos, c, slot);
            }
            return;
        }
        slotMaybeDone(pos, c, slot);
    }

    // --- tree
    // ------------------------------------------------------------------------------------------------

    void treeStart(uint32_t pos, uint32_t c, uint32_t slot) {
        const ChannelPlan& p = m_plans[c];
        Slot& s = m_members[pos].channels[c].slots[slot];
        const std::vector<uint32_t>& kids = p.children[pos];
        // Sends: one up (unless the root) and one down to each child; receives: each child's up, the
        // parent's down.
        s.sendsLeft = static_cast<uint32_t>(kids.size()) + (p.tree[pos].parent >= 0 ? 1 : 0);
        s.received = 0;
        for (uint32_t child : kids) {
            expect(child, pos, c, kTreeUp, slot, s.piece,
                   makeCallback<&Op::treeUpReceived>(this, pack(pos, c, slot)));
        }
        if (p.tree[pos].parent >= 0) {
            expect(static_cast<uint32_t>(p.tree[pos].parent), pos, c, kTreeDown, slot, s.piece,
                   makeCallback<&Op::treeDownReceived>(this, pack(pos, c, slot)));
        }
        if (kids.empty()) {
            treeReduced(pos, c, slot);
        }
    }

    void treeUpReceived(uint64_t a) {
        const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
        Slot& s = m_members[pos].channels[c].slots[slot];
        if (++s.received == m_plans[c].children[pos].size()) {
            treeReduced(pos, c, slot);
        }
    }

    // Every child's part is in: up to the parent, or, at the root, down to the children.
    void treeReduced(uint32_t pos, uint32_t c, uint32_t slot) {
        const ChannelPlan& p = m_plans[c];
        Slot& s = m_members[pos].channels[c].slots[slot];
        if (p.tree[pos].parent >= 0) {
            transfer(pos, static_cast<uint32_t>(p.tree[pos].parent), c, kTreeUp, slot, s.piece,
                     makeCallback<&Op::slotSent>(this, pack(pos, c, slot)));
            return;
        }
        treeBroadcast(pos, c, slot);
    }

    void treeDownReceived(uint64_t a) {
        const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
        ++m_members[pos].channels[c].slots[slot].received;
        treeBroadcast(pos, c, slot);
    }

    void treeBroadcast(uint32_t pos, uint32_t c, uint32_t slot) {
        Slot& s = m_members[pos].channels[c].slots[slot];
        bool first = true;
        for (uint32_t child : m_plans[c].children[pos]) {
            transfer(pos, child, c, kTreeDown, slot, s.piece,
                     makeCallback<&Op::slotSent>(this, pack(pos, c, slot)), !first);
            first = false;
        }
        slotMaybeDone(pos, c, slot);
    }

    // --- PAT
    // ------------------------------------------------------------------------------------------------
    // NCCL 2.23's PAT (all-gather and reduce-scatter, one GPU per server): a Bruck schedule over distances
    // 2^d, big transfers over short distances. All-gather runs the distances far to near: at distance 2^d a
    // member sends every shard it holds that the member 2^d behind it lacks (1, 2, 4, ... shards), and
    // receives as many from the member 2^d ahead. Reduce-scatter runs the same steps backwards in time: near
    // to far, sending partial sums forward. Each step needs the one before it in (its shards or partial sums
    // are the previous steps' results). A step's shards leave packed into buffer slots (one Simple step), so
    // a step of small chunks is one message and one of large chunks is a message per shard.
    struct PatStep {
        uint32_t distance, shards;
    };
    void planPat() {
        const uint32_t n = size();
        // Offsets (ranks ahead) of the shards a member holds, as all-gather proceeds.
        std::vector<char> held(n, 0);
        held[0] = 1;
        uint32_t far = 1;
        while (far * 2 < n) {
            far *= 2;
        }
        for (uint32_t d = far; d >= 1; d /= 2) {
            std::vector<char> next = held;
            uint32_t shards = 0;
            for (uint32_t o = 0; o < n; ++o) {
                if (held[o] && !held[(o + d) % n] && !next[(o + d) % n]) {
                    next[(o + d) % n] = 1;
                    ++shards;
                }
            }
            held = std::move(next);
            if (shards > 0) {
                m_patSteps.push_back({d, shards});
            }
        }
        if (m_func == Func::ReduceScatter) {
            std::reverse(m_patSteps.begin(), m_patSteps.end());
        }
        // The chunk (enqueue.cc): a Simple step, halved while the operation would fill few.
        const uint64_t fill = m_func == Func::AllGather ? 32 : 16;
        while (m_chunk * m_choice.nChannels * fill > m_bytes && m_chunk > (64u << 10)) {
            m_chunk /= 2;
        }
    }
    // Shards of `piece` bytes that one buffer slot carries, and the messages of steps [0, step).
    static uint32_t patShardsPerMessage(uint64_t piece) {
        return static_cast<uint32_t>(std::max<uint64_t>(1, kSimpleStepBytes / std::max<uint64_t>(1, piece)));
    }
    uint32_t patMessagesBefore(uint32_t step, uint64_t piece) const {
        const uint32_t per = patShardsPerMessage(piece);
        uint32_t messages = 0;
        for (uint32_t k = 0; k < step; ++k) {
            messages += (m_patSteps[k].shards + per - 1) / per;
        }
        return messages;
    }
    // Member `pos`'s peers at a step: all-gather sends behind and receives from ahead, reduce-scatter the
    // reverse.
    uint32_t patPeer(uint32_t pos, uint32_t step, bool sendTo) const {
        const uint32_t n = size(), d = m_patSteps[step].distance % n;
        const bool ahead = (m_func == Func::ReduceScatter) == sendTo;
        return ahead ? (pos + d) % n : (pos + n - d) % n;
    }
    void patStart(uint32_t pos, uint32_t c, uint32_t slot) {
        Slot& s = m_members[pos].channels[c].slots[slot];
        const uint32_t steps = static_cast<uint32_t>(m_patSteps.size());
        if (steps == 0) {
            chunkDone(pos, c, slot);
            return;
        }
        s.step = 0;
        s.received = 0;
        s.sendsLeft = patMessagesBefore(steps, s.piece);
        const uint32_t per = patShardsPerMessage(s.piece);
        for (uint32_t k = 0; k < steps; ++k) {
            for (uint32_t left = m_patSteps[k].shards; left > 0; left -= std::min(left, per)) {
                expect(patPeer(pos, k, false), pos, c, kPat, slot, std::min(left, per) * s.piece,
                       makeCallback<&Op::patReceived>(this, pack(pos, c, slot)));
            }
        }
        patSend(pos, c, slot);
    }
    void patSend(uint32_t pos, uint32_t c, uint32_t slot) {
        const Slot& s = m_members[pos].channels[c].slots[slot];
        const uint32_t per = patShardsPerMessage(s.piece);
        for (uint32_t left = m_patSteps[s.step].shards; left > 0; left -= std::min(left, per)) {
            transfer(pos, patPeer(pos, s.step, true), c, kPat, slot, std::min(left, per) * s.piece,
                     makeCallback<&Op::slotSent>(this, pack(pos, c, slot)));
        }
    }
    void patReceived(uint64_t a) {
        const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
        Slot& s = m_members[pos].channels[c].slots[slot];
        ++s.received;
        const uint32_t steps = static_cast<uint32_t>(m_patSteps.size());
        if (s.step + 1 < steps && s.received == patMessagesBefore(s.step + 1, s.piece)) {
            ++s.step;
            patSend(pos, c, slot);
        }
        slotMaybeDone(pos, c, slot);
    }

    // --- In-network reduction: NVLS, NVLS-Tree, CollNet Direct

    // --------------------------------------------------------------------------------------------
    // Every loop of a channel gives each head (a server's GPU; with NICs, one per NIC) a share of the
    // channel's part of the buffer; the switches' reduction engines sum and copy:
    //   - NVLS (one server): every GPU sends each head its share into the scale-up switch, whose engine
    //     sends the head the sum once all are in (NVLS's multimem load-reduce); the head stores it once and
    //     the engine copies it to every GPU (the multimem store). Reduce-scatter is the first half,
    //     all-gather the second. Per GPU link and direction: all-reduce (1 + 1/n) x the buffer.
    //   - NVLS-Tree (servers whose scale-up switches reduce): the same inside every server, and between the
    //     load-reduce and the store, head h's sums go up and the total down a double binary tree over the
    //     servers' heads h (even channels tree 0, odd tree 1), over the NICs.
    //   - CollNet Direct (all-reduce over reducing scale-out switches): each GPU sends the other local heads
    //     their shares over NVLink; head h sums its server's, sends the sum into the reducing switch its NIC
    //     is cabled to, gets the total of every server back and copies it to the other local GPUs.
    // An engine serves a group (NVLS: the server; NVLS-Tree: each server; CollNet: each head's rail) and
    // handles each (channel, group, head) in loop order, as the switches' multicast objects do; FIFO matching
    // per tag (the head in the slot) keeps the loops of one way in order.

    bool nvlsReduces() const { return m_func == Func::AllReduce || m_func == Func::ReduceScatter; }
    bool nvlsMulticasts() const { return m_func == Func::AllReduce || m_func == Func::AllGather; }
    bool collNet() const { return m_choice.algo == Algo::CollNetDirect; }
    bool nvlsTree() const { return m_choice.algo == Algo::NvlsTree; }
    uint32_t nvlsLoops(uint32_t c) const { return static_cast<uint32_t>(chunksOf(m_plans[c].bytes)); }
    uint64_t nvlsShare(uint32_t c, uint32_t loop, uint32_t head) const {
        const uint64_t bytes = m_plans[c].bytes, perLoop = loopBytes();
        const uint64_t rest = bytes > uint64_t{loop} * perLoop ? bytes - uint64_t{loop} * perLoop : 0;
        const uint64_t inLoop = std::min(rest, perLoop);
        return inLoop / m_heads + (head < inLoop % m_heads ? 1 : 0);
    }
    // Engine groups: CollNet's is the head's rail (one group, an engine per head), the others' the server.
    uint32_t groups() const { return collNet() ? 1 : static_cast<uint32_t>(m_servers.size()); }
    uint32_t groupOf(uint32_t pos) const { return collNet() ? 0 : m_serverOf[pos]; }
    uint32_t enginePos(uint32_t group, uint32_t h) const { return size() + (collNet() ? h : group); }
    // The members whose shares for head h group g's engine sums (and, NVLS, to which it copies).
    uint32_t contributors(uint32_t g) const {
        return collNet() ? static_cast<uint32_t>(m_servers.size())
                         : static_cast<uint32_t>(m_servers[g].size());
    }
    uint32_t contributor(uint32_t g, uint32_t h, uint32_t i) const {
        return collNet() ? m_servers[i][h] : m_servers[g][i];
    }
    uint32_t headOf(uint32_t g, uint32_t h) const { return m_servers[g][h]; }
    // NVLS-Tree: head positions of server k's tree neighbours for channel c.
    TreeLinks serverTree(uint32_t k, uint32_t c) const {
        return dtree(static_cast<int>(k), static_cast<int>(m_servers.size()), static_cast<int>(c % 2));
    }
    uint32_t treeChildren(const TreeLinks& t) const {
        return (t.child0 >= 0 ? 1 : 0) + (t.child1 >= 0 ? 1 : 0);
    }

    void nvlsStart(uint32_t pos, uint32_t c, uint32_t slot, uint32_t loop) {
        const uint32_t g = groupOf(pos), i = m_localOf[pos], ppn = m_heads;
        const uint32_t engine = enginePos(g, 0);
        Slot& s = m_members[pos].channels[c].slots[slot];
        s.step = loop;
        s.received = 0;
        s.piece = 0;  // NVLS-Tree: the local sum and the children's sums in so far
        s.sendsLeft = (nvlsReduces() ? ppn : 0) + (nvlsMulticasts() ? 1 : 0);
        const Callback sent = makeCallback<&Op::slotSent>(this, pack(pos, c, slot));
        uint64_t loopBytes = 0;
        for (uint32_t h = 0; h < ppn; ++h) {
            loopBytes += nvlsShare(c, loop, h);
        }
        const uint64_t own = nvlsShare(c, loop, i);
        if (nvlsTree()) {
            const TreeLinks t = serverTree(g, c);
            s.sendsLeft += (t.parent >= 0 ? 1 : 0) + treeChildren(t);
            for (int child : {t.child0, t.child1}) {
                if (child >= 0) {
                    expect(headOf(static_cast<uint32_t>(child), i), pos, c, kTreeUp, i, own,
                           makeCallback<&Op::nvlsTreeSumIn>(this, pack(pos, c, slot)));
                }
            }
            if (t.parent >= 0) {
                expect(headOf(static_cast<uint32_t>(t.parent), i), pos, c, kTreeDown, i, own,
                       makeCallback<&Op::nvlsTreeTotalIn>(this, pack(pos, c, slot)));
            }
        }
        if (nvlsReduces()) {
            expect(engine, pos, c, kNvlsReduced, i, own,
                   makeCallback<&Op::nvlsReducedHere>(this, pack(pos, c, slot)));
            for (uint32_t d = 0; d < ppn; ++d) {
                const uint32_t h = (i + d) % ppn;  // its own head first, then the others in turn
                transfer(pos, engine, c, kNvlsUp, h, nvlsShare(c, loop, h), sent);
            }
        } else {
            // All-gather: the member's own share goes straight to the multicast; its SM gathers the loop.
            transfer(pos, engine, c, kNvlsStore, i, own, sent, false, loopBytes);
        }
        if (nvlsMulticasts()) {
            for (uint32_t h = 0; h < ppn; ++h) {
                expect(engine, pos, c, kNvlsMulticast, h, nvlsShare(c, loop, h),
                       makeCallback<&Op::slotGot>(this, pack(pos, c, slot)));
            }
        }
    }
    uint32_t inNetworkReceipts(uint32_t pos, uint32_t c) const {
        if (collNet()) {
            return 2 * (m_heads - 1) + 1;  // the local shares, the total, the other heads' totals
        }
        uint32_t tree = 0;
        if (nvlsTree()) {
            const TreeLinks t = serverTree(groupOf(pos), c);
            tree = treeChildren(t) + (t.parent >= 0 ? 1 : 0);
        }
        return (nvlsReduces() ? 1 : 0) + (nvlsMulticasts() ? m_heads : 0) + tree;
    }
    // Head i has its server's sum: store it (NVLS), or take it into the servers' tree (NVLS-Tree).
    void nvlsReducedHere(uint64_t a) {
        if (nvlsTree()) {
            nvlsTreeSumIn(a);
            return;
        }
        const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
        if (nvlsMulticasts()) {
            nvlsStore(pos, c, slot);
        }
        slotGot(a);
    }
    void nvlsStore(uint32_t pos, uint32_t c, uint32_t slot) {
        const uint32_t i = m_localOf[pos];
        transfer(pos, enginePos(groupOf(pos), 0), c, kNvlsStore, i,
                 nvlsShare(c, m_members[pos].channels[c].slots[slot].step, i),
                 makeCallback<&Op::slotSent>(this, pack(pos, c, slot)), false, 0);
    }
    // NVLS-Tree: the local sum or a child's; with all of them, up to the parent (or, at the root, down).
    void nvlsTreeSumIn(uint64_t a) {
        const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
        Slot& s = m_members[pos].channels[c].slots[slot];
        const TreeLinks t = serverTree(groupOf(pos), c);
        if (++s.piece == 1 + treeChildren(t)) {
            const uint32_t i = m_localOf[pos];
            if (t.parent >= 0) {
                transfer(pos, headOf(static_cast<uint32_t>(t.parent), i), c, kTreeUp, i,
                         nvlsShare(c, s.step, i), makeCallback<&Op::slotSent>(this, pack(pos, c, slot)),
                         false, 0);
            } else {
                nvlsTreeTotal(pos, c, slot);
            }
        }
        slotGot(a);
    }
    void nvlsTreeTotalIn(uint64_t a) {
        nvlsTreeTotal(posOf(a), channelOf(a), slotOf(a));
        slotGot(a);
    }
    void nvlsTreeTotal(uint32_t pos, uint32_t c, uint32_t slot) {
        const uint32_t i = m_localOf[pos];
        const uint64_t share = nvlsShare(c, m_members[pos].channels[c].slots[slot].step, i);
        const TreeLinks t = serverTree(groupOf(pos), c);
        for (int child : {t.child0, t.child1}) {
            if (child >= 0) {
                transfer(pos, headOf(static_cast<uint32_t>(child), i), c, kTreeDown, i, share,
                         makeCallback<&Op::slotSent>(this, pack(pos, c, slot)), false, 0);
            }
        }
        nvlsStore(pos, c, slot);
    }

    // The engines' side: per (channel, group, head), the loop each phase is at and the shares in so far.
    struct EngineHead {
        uint32_t reduceLoop = 0, reduceGot = 0, storeLoop = 0;
    };
    EngineHead& engineHead(uint32_t c, uint32_t g, uint32_t h) {
        return m_engineHeads[(std::size_t{c} * groups() + g) * m_heads + h];
    }
    void engineStart() {
        m_engineHeads.assign(std::size_t{m_choice.nChannels} * groups() * m_heads, EngineHead{});
        for (uint32_t c = 0; c < m_choice.nChannels; ++c) {
            for (uint32_t g = 0; g < groups(); ++g) {
                for (uint32_t h = 0; h < m_heads; ++h) {
                    engineReducePost(c, g, h);
                    if (!collNet()) {
                        engineStorePost(c, g, h);
                    }
                }
            }
        }
    }
    void engineReducePost(uint32_t c, uint32_t g, uint32_t h) {
        const EngineHead& e = engineHead(c, g, h);
        if (!nvlsReduces() || e.reduceLoop >= nvlsLoops(c)) {
            return;
        }
        for (uint32_t i = 0; i < contributors(g); ++i) {
            expect(contributor(g, h, i), enginePos(g, h), c, collNet() ? kCnUp : kNvlsUp, h,
                   nvlsShare(c, e.reduceLoop, h), makeCallback<&Op::engineShareIn>(this, pack(h, c, 0, g)));
        }
    }
    void engineShareIn(uint64_t a) {
        const uint32_t h = posOf(a), c = channelOf(a), g = extraOf(a);
        EngineHead& e = engineHead(c, g, h);
        if (++e.reduceGot < contributors(g)) {
            return;
        }
        ++m_owner.m_engine.reductions;
        const uint64_t share = nvlsShare(c, e.reduceLoop, h);
        if (collNet()) {
            // SHARP returns the total to every contributor.
            for (uint32_t i = 0; i < contributors(g); ++i) {
                transfer(enginePos(g, h), contributor(g, h, i), c, kCnDown, h, share, Callback{});
            }
        } else {
            transfer(enginePos(g, h), headOf(g, h), c, kNvlsReduced, h, share, Callback{});
        }
        e.reduceGot = 0;
        ++e.reduceLoop;
        engineReducePost(c, g, h);
    }
    void engineStorePost(uint32_t c, uint32_t g, uint32_t h) {
        const EngineHead& e = engineHead(c, g, h);
        if (!nvlsMulticasts() || e.storeLoop >= nvlsLoops(c)) {
            return;
        }
        expect(headOf(g, h), enginePos(g, h), c, kNvlsStore, h, nvlsShare(c, e.storeLoop, h),
               makeCallback<&Op::engineStoreIn>(this, pack(h, c, 0, g)));
    }
    void engineStoreIn(uint64_t a) {
        const uint32_t h = posOf(a), c = channelOf(a), g = extraOf(a);
        EngineHead& e = engineHead(c, g, h);
        const uint64_t share = nvlsShare(c, e.storeLoop, h);
        for (uint32_t d = 0; d < contributors(g); ++d) {
            transfer(enginePos(g, h), contributor(g, h, (h + d) % contributors(g)), c, kNvlsMulticast, h,
                     share, Callback{});
        }
        ++e.storeLoop;
        engineStorePost(c, g, h);
    }

    // --- CollNet Direct (all-reduce; servers whose GPUs' NICs meet on reducing switches)
    // --------------------------------------------------------------------------------------------
    // Per channel and loop every GPU holds a share per local head (a GPU per NIC): it sends each other head
    // its share over NVLink; head h sums the server's shares, sends the partial sum into the reducing
    // switch its NIC is cabled to, gets the total of every server back and copies it to the other local GPUs.
    void collNetStart(uint32_t pos, uint32_t c, uint32_t slot, uint32_t loop) {
        const uint32_t ppn = m_heads, i = m_localOf[pos];
        const std::vector<uint32_t>& local = m_servers[m_serverOf[pos]];
        Slot& s = m_members[pos].channels[c].slots[slot];
        s.step = loop;
        s.sendsLeft = 2 * (ppn - 1) + 1;
        s.received = 0;
        s.piece = 0;  // local shares summed so far, as head i
        const Callback sent = makeCallback<&Op::slotSent>(this, pack(pos, c, slot));
        const uint64_t own = nvlsShare(c, loop, i);
        expect(enginePos(0, i), pos, c, kCnDown, i, own,
               makeCallback<&Op::collNetTotal>(this, pack(pos, c, slot)));
        for (uint32_t j = 0; j < ppn; ++j) {
            if (j != i) {
                expect(local[j], pos, c, kCnScatter, i, own,
                       makeCallback<&Op::collNetShareIn>(this, pack(pos, c, slot)));
                expect(local[j], pos, c, kCnBcast, j, nvlsShare(c, loop, j),
                       makeCallback<&Op::slotGot>(this, pack(pos, c, slot)));
            }
        }
        // The SM handles the whole loop: its own share with the first send.
        bool first = true;
        for (uint32_t d = 1; d < ppn; ++d) {
            const uint32_t j = (i + d) % ppn;
            const uint64_t share = nvlsShare(c, loop, j);
            transfer(pos, local[j], c, kCnScatter, j, share, sent, false, share + (first ? own : 0));
            first = false;
        }
        if (ppn == 1) {
            collNetSummed(pos, c, slot);
        }
    }
    void collNetShareIn(uint64_t a) {
        const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
        Slot& s = m_members[pos].channels[c].slots[slot];
        ++s.received;
        if (++s.piece == m_heads - 1) {
            collNetSummed(pos, c, slot);
        }
        slotMaybeDone(pos, c, slot);
    }
    void collNetSummed(uint32_t pos, uint32_t c, uint32_t slot) {
        const uint32_t i = m_localOf[pos];
        transfer(pos, enginePos(0, i), c, kCnUp, i,
                 nvlsShare(c, m_members[pos].channels[c].slots[slot].step, i),
                 makeCallback<&Op::slotSent>(this, pack(pos, c, slot)), false, 0);
    }
    void collNetTotal(uint64_t a) {
        const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
        Slot& s = m_members[pos].channels[c].slots[slot];
        const uint32_t i = m_localOf[pos];
        const std::vector<uint32_t>& local = m_servers[m_serverOf[pos]];
        for (uint32_t d = 1; d < m_heads; ++d) {
            transfer(pos, local[(i + d) % m_heads], c, kCnBcast, i, nvlsShare(c, s.step, i),
                     makeCallback<&Op::slotSent>(this, pack(pos, c, slot)), false, 0);
        }
        slotGot(a);
    }

    // --- all-to-all
    // --------------------------------------------------------------------------------------------

    void planAllToAll(uint64_t commSize) {
        const uint32_t n = size();
        const Channels ch = computeChannels(m_shape, m_owner.m_config.env);
        // Point to point rides the ring's connections: its hop latencies, Simple, the per-peer channels.
        m_choice.algo = Algo::Ring;
        m_choice.proto = Proto::Simple;
        m_choice.busBwGBps = (m_shape.nNodes > 1 ? ch.ring.bwInter : ch.ring.bwIntra) * ch.ring.nChannels;
        m_choice.algBwGBps = m_choice.busBwGBps;
        m_bytes = commSize;
        m_peerBytes = commSize / n;
        // NCCL 2.23's split of one peer's data over its channels (enqueue.cc): parts of at least stepSize/2
        // between servers (stepSize/8 inside one), on no more than the per-peer channels.
        const uint64_t step = m_shape.nNodes > 1 ? (128u << 10) : (512u << 10);
        const uint64_t minPart = m_shape.nNodes > 1 ? step / 2 : step / 8;
        uint32_t nChMin = ch.p2pChannelsPerPeer;
        while (nChMin * n > ch.p2pChannels && nChMin > 1) {
            nChMin /= 2;
        }
        m_peerChannels = static_cast<uint32_t>(
            std::max<uint64_t>(1, std::min<uint64_t>(nChMin, (m_peerBytes + minPart - 1) / minPart)));
        m_choice.nChannels = m_peerChannels;
        // A channel's GPU side moves a search channel's speed.
        m_channelBytesPerUs = (m_shape.nNodes > 1 ? ch.ring.bwInter : ch.ring.bwIntra) * 1e3;
        for (Member& m : m_members) {
            // Each peer's parts out and in.
            m.unitsLeft = uint64_t{2} * (n - 1) * m_peerChannels;
        }
    }

    uint64_t partOf(uint32_t c) const {
        return m_peerBytes / m_peerChannels + (c < m_peerBytes % m_peerChannels ? 1 : 0);
    }

    // The member that forwards `from`'s data to `to`: with PXN, when they are on different servers, the GPU
    // of `from`'s server on `to`'s rail (its local index); else `from` itself.
    uint32_t proxyOf(uint32_t from, uint32_t to) const {
        const NcclTopology& t = m_owner.m_topology;
        if (!m_owner.m_config.env.pxn || t.serverOf(m_ranks[from]) == t.serverOf(m_ranks[to])) {
            return from;
        }
        const Rank proxy = t.localPeer(m_ranks[from], t.localIndexOf(m_ranks[to]));
        const auto it = std::lower_bound(m_ranks.begin(), m_ranks.end(), proxy);
        return it != m_ranks.end() && *it == proxy ? static_cast<uint32_t>(it - m_ranks.begin()) : from;
    }

public:
    // All-to-all: member `pos` sends its part to every peer, the nearest first as NCCL's rounds do, and
    // expects every peer's.
    void startAllToAll(uint64_t pos64) {
        const uint32_t pos = static_cast<uint32_t>(pos64), n = size();
        for (uint32_t delta = 1; delta < n; ++delta) {
            const uint32_t to = (pos + delta) % n, from = (pos + n - delta) % n;
            const uint32_t inbound = proxyOf(from, pos), outbound = proxyOf(pos, to);
            for (uint32_t c = 0; c < m_peerChannels; ++c) {
                // The slot names the data's origin: a proxy forwards several origins to one destination.
                expect(inbound, pos, c, kP2p, from, partOf(c),
                       makeCallback<&Op::p2pReceived>(this, pack(pos, c, 0)));
                if (outbound != pos) {
                    m_forwards.push_back({outbound, to, pos, c});
                    expect(pos, outbound, c, kPxn, to, partOf(c),
                           makeCallback<&Op::pxnReceived>(this, m_forwards.size() - 1));
                    transfer(pos, outbound, c, kPxn, to, partOf(c), Callback{});
                } else {
                    transfer(pos, to, c, kP2p, pos, partOf(c),
                             makeCallback<&Op::p2pSent>(this, pack(pos, c, 0)));
                }
            }
        }
    }

    void joinAllToAll(uint32_t pos, Callback done, uint32_t record) {
        Member& m = m_members[pos];
        m.done = done;
        m.record = record;
        m.joined = true;
        m_owner.m_network.schedule(0, makeCallback<&Op::startAllToAll>(this, pos));
    }
    bool isAllToAll() const { return m_type == CollectiveType::AllToAll; }

private:
    // A proxy has a part of `origin` for `to`: forward it; the origin's send is done when it arrives.
    void pxnReceived(uint64_t index) {
        const Forward f = m_forwards[index];
        transfer(f.proxy, f.to, f.channel, kP2p, f.origin, partOf(f.channel),
                 makeCallback<&Op::p2pSent>(this, pack(f.origin, f.channel, 0)));
    }
    void p2pSent(uint64_t a) { memberUnitDone(posOf(a)); }
    void p2pReceived(uint64_t a) { memberUnitDone(posOf(a)); }

    NcclCollectives& m_owner;
    uint32_t m_group, m_sequence;
    std::vector<Rank> m_ranks;
    CollectiveType m_type;
    uint64_t m_nodeBytes;  // the trace's comm_size, which every member's node must repeat
    Func m_func = Func::AllReduce;
    CommShape m_shape;
    Choice m_choice;
    uint64_t m_bytes = 0, m_chunk = 0;
    double m_channelBytesPerUs = 1;
    std::vector<std::vector<uint32_t>> m_servers;  // member positions per server, by local index
    std::vector<ChannelPlan> m_plans;
    std::vector<Member> m_members;
    // Records by callback argument, recycled: receives posted, sends split over QPs, in-network sends
    // waiting for their SM.
    SlotPool<Pending, uint64_t> m_pending;
    SlotPool<Join, uint64_t> m_joins;
    SlotPool<Deferred, uint64_t> m_deferred;
    std::map<Way, std::deque<TimeNs>> m_ready;
    std::vector<TimeNs> m_smFreeNs;  // per (member, channel, ring / tree up / tree down): when its SM is free
    uint32_t m_finished = 0;
    uint64_t m_peerBytes = 0;
    uint32_t m_peerChannels = 1;
    uint32_t m_depth = kPipelineDepth;  // chunks in flight per member and channel
    // In-network reduction: the engines' endpoints (NVLS: the server's; CollNet: per head), the heads per
    // server, and per member its server and local index (CollNet).
    std::vector<Rank> m_engines;
    uint32_t m_heads = 1;
    std::vector<uint32_t> m_serverOf, m_localOf;
    std::vector<EngineHead> m_engineHeads;
    struct Forward {
        uint32_t proxy, to, origin, channel;
    };
    std::vector<Forward> m_forwards;  // PXN forwards, by callback argument
    std::vector<PatStep> m_patSteps;  // PAT's schedule, in the order every member runs it
};

const std::vector<const char*>& ncclSettingNames() {
    static const std::vector<const char*> names = [] {
        std::vector<const char*> v = {"NCCL_ALGO", "NCCL_PROTO"};
        for (const NumericSetting& k : kNumericSettings) {
            v.push_back(k.name);
        }
        return v;
    }();
    return names;
}

bool ncclConfigFrom(const SystemConfig& system, NcclConfig& config, Diagnostics& diag) {
    const std::size_t before = diag.errorCount();
    std::copy(std::begin(system.ncclFor), std::end(system.ncclFor), std::begin(config.forType));
    if (const hardware::GpuType* gpu = hardware::findGpuType(system.ncclGpu)) {
        // NCCL 2.23 knows no Blackwell class yet: it tunes Blackwell as Hopper.
        config.platform =
            GpuPlatform{gpu->generation == hardware::GpuGeneration::Ampere ? Arch::Ampere : Arch::Hopper,
                        gpu->pcieGBps, gpu->ncclNvlinkGBps};
    } else {
        diag.error(system.path + ": key 'nccl-gpu': '" + system.ncclGpu + "'; expected " +
                   hardware::gpuTypeNames());
    }
    NcclEnv& env = config.env;
    for (const auto& entry : system.ncclEnv) {
        const std::string &key = entry.first, &value = entry.second;  // (C++17 lambdas take no bindings)
        const std::string where = system.path + ": key '" + key + "': '" + value + "'";
        std::string bad;
        if (key == "NCCL_ALGO") {
            if (!env.setAlgos(value, bad)) {
                diag.error(where + ": unknown algorithm '" + bad +
                           "'; expected Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree or PAT");
            }
            continue;
        }
        if (key == "NCCL_PROTO") {
            if (!env.setProtos(value, bad)) {
                diag.error(where + ": unknown protocol '" + bad + "'; expected LL, LL128 or Simple");
            }
            continue;
        }
        const auto numeric = std::find_if(std::begin(kNumericSettings), std::end(kNumericSettings),
                                          [&](const NumericSetting& k) { return key == k.name; });
        if (numeric == std::end(kNumericSettings)) {
            std::string names;
            for (const char* name : ncclSettingNames()) {
                names += (names.empty() ? "" : ", ") + std::string(name);
            }
            diag.error(system.path + ": key '" + key + "' is not an NCCL setting the model reads (" + names +
                       ")");
            continue;
        }
        char* end = nullptr;
        const long n = std::strtol(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0' || n < numeric->lo || n > numeric->hi) {
            diag.error(where + " is not a whole number in " + std::to_string(numeric->lo) + ".." +
                       std::to_string(numeric->hi));
            continue;
        }
        numeric->apply(env, n);
    }
    if (env.minChannels > env.maxChannels) {
        diag.error(system.path + ": key 'NCCL_MIN_NCHANNELS' exceeds NCCL_MAX_NCHANNELS");
    }
    return diag.errorCount() == before;
}

NcclCollectives::NcclCollectives(NetworkApi& network, const NcclTopology& topology, const CommGroups& groups,
                                 NcclConfig config, CollectiveService& fallback)
    : m_network(network),
      m_topology(topology),
      m_groups(groups),
      m_config(std::move(config)),
      m_fallback(fallback) {
    uint32_t dense = 0;
    for (const auto& [id, members] : groups.all()) {
        m_denseGroup[id] = dense++;
    }
}

NcclCollectives::~NcclCollectives() = default;

void NcclCollectives::issue(Rank rank, const TraceNode& node, Callback done) {
    const std::vector<Rank>* members = m_groups.members(node.group);
    bool supported = true;
    funcOf(node.collective, supported);
    supported = supported || node.collective == CollectiveType::AllToAll;
    if (!m_config.forType[static_cast<int>(node.collective)] || !supported || !members ||
        members->size() < 2) {
        m_fallback.issue(rank, node, done);
        return;
    }
    uint32_t& seq = m_nextSeq[uint64_t{rank} << 32 | node.group];
    const uint32_t sequence = seq++;
    const auto key = std::make_pair(node.group, sequence);
    auto it = m_ops.find(key);
    if (it == m_ops.end()) {
        m_retired.clear();  // ops finished before this issue have no event left
        it = m_ops
                 .emplace(key,
                          std::make_unique<Op>(*this, m_denseGroup.at(node.group), sequence, *members, node))
                 .first;
    }
    Op& op = *it->second;
    if (!op.matches(node)) {
        // NCCL needs every member to issue a communicator's collectives in one order; a trace (or a
        // scheduling policy) that does not would hang or corrupt data on a real cluster.
        throw std::runtime_error("NCCL: rank " + std::to_string(rank) + " issued " +
                                 std::string(toString(node.collective)) + " of " +
                                 std::to_string(node.commSizeBytes) + " B (node " + std::to_string(node.id) +
                                 ") as collective #" + std::to_string(sequence) + " on communicator " +
                                 std::to_string(node.group) + ", where another member issued " + op.what() +
                                 ": NCCL needs one order of collectives per communicator on every member");
    }
    const auto pos =
        static_cast<uint32_t>(std::lower_bound(members->begin(), members->end(), rank) - members->begin());
    m_records.push_back(
        {rank, node.id, node.collective, node.commSizeBytes, node.group, m_network.now(), 0, op.choice()});
    const uint32_t record = static_cast<uint32_t>(m_records.size() - 1);
    // The member's completion also retires the op once every member is done.
    m_done.push_back({key, done});
    const Callback wrapped = makeCallback<&NcclCollectives::memberDone>(this, m_done.size() - 1);
    op.isAllToAll() ? op.joinAllToAll(pos, wrapped, record) : op.join(pos, wrapped, record);
}

void NcclCollectives::memberDone(uint64_t index) {
    const DoneEntry entry = m_done[index];
    auto it = m_ops.find(entry.key);
    if (it != m_ops.end() && it->second->finished()) {
        // Destroyed after the events it scheduled: none remain once every member is done.
        m_retired.push_back(std::move(it->second));
        m_ops.erase(it);
    }
    entry.user();
}

std::string NcclCollectives::describeUnfinished(Rank rank) const {
    std::string out = m_fallback.describeUnfinished(rank);
    for (const auto& [key, op] : m_ops) {
        const std::vector<Rank>* members = m_groups.members(key.first);
        if (!members) {
            continue;
        }
        const auto it = std::lower_bound(members->begin(), members->end(), rank);
        if (it != members->end() && *it == rank) {
            out += "  NCCL " + op->describe(static_cast<uint32_t>(it - members->begin())) + "\n";
        }
    }
    return out;
}

}  // namespace mlnet::nccl

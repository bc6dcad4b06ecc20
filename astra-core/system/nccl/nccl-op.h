// The engine inside NcclCollectives: one collective of one communicator (Op), its protocol facts and the
// message kinds of its tags. Private to astra-core/system/nccl/: the collectives' algorithms are split by
// family (nccl-op.cc: planning and the machinery every algorithm shares; nccl-ring-tree.cc, nccl-pat.cc,
// nccl-in-network.cc for NVLS, NVLS-Tree and CollNet, nccl-p2p.cc for all-to-all).
#ifndef MLNET_SYSTEM_NCCL_NCCL_OP_H
#define MLNET_SYSTEM_NCCL_NCCL_OP_H

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "nccl-collectives.h"
#include "nccl-device-costs.h"
#include "util/flat-index.h"
#include "util/mix-hash.h"
#include "util/pools.h"

namespace mlnet::nccl {

// Protocol facts (NCCL 2.23, src/include/device.h, enqueue.cc) the plan's declaration needs; the others
// (LL and LL128 steps, chunk clamps) are nccl-op.cc's.
constexpr uint64_t kSimpleStepBytes = (4u << 20) / 8;  // 4 MiB buffer, 8 steps
constexpr uint32_t kPipelineDepth = 2;                 // ring loops in flight per channel

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

// NCCL's double binary tree over n nodes (src/graph/trees.cc): tree 0, and tree 1 mirrored (n even) or
// shifted (n odd), so that every node is a leaf in one of them.
struct TreeLinks {
    int parent = -1, child0 = -1, child1 = -1;
};
TreeLinks dtree(int r, int n, int which);

// The NCCL function of a collective; `supported` false for the ones NCCL does not run here.
Func funcOf(CollectiveType type, bool& supported);

// One collective of one communicator: the plan every member agreed on and every member's progress.
class NcclCollectives::Op {
public:
    Op(NcclCollectives& owner, uint32_t denseGroup, uint32_t sequence, const std::vector<Rank>& members,
       const TraceNode& node);

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
    void join(uint32_t pos, Callback done, uint32_t record);

    std::string describe(uint32_t pos) const;

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
        TimePs joinPs = 0;  // the network's clock at its own resolution (memo keys)
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

    void planChannels();
    // The GPU generation's calibrated kernel costs (nccl-device-costs.h) on the channels' rate and steps.
    void applyDeviceCosts();

    uint64_t loopBytes() const;
    uint64_t chunksOf(uint64_t bytes) const {
        return std::max<uint64_t>(1, (bytes + loopBytes() - 1) / loopBytes());
    }
    // The piece a step of chunk `k` moves (the last chunk is what is left).
    uint64_t pieceOf(uint32_t channel, uint32_t k) const;

    void planRing(uint32_t c, ChannelPlan& p);

    void planTree(uint32_t c, ChannelPlan& p);

    // --- common machinery ----------------------------------------------------------------------------------

    // A member's rank, or (position size()) the switch's reduction engine.
    Rank endpoint(uint32_t pos) const { return pos < size() ? m_ranks[pos] : m_engines[pos - size()]; }
    bool inNetwork() const {
        return m_choice.algo == Algo::Nvls || m_choice.algo == Algo::NvlsTree ||
               m_choice.algo == Algo::CollNetDirect;
    }
    // The tuner's latency, paid once at the start: the algorithms NCCL gives no per-hop latency.
    bool latencyOnce() const { return inNetwork() || m_choice.algo == Algo::Pat; }

    Hop hopBetween(uint32_t a, uint32_t b) const;

    // Sends `bytes` of data from member `from` to member `to` on (channel, kind, slot): the message carries
    // the protocol's overhead; its data is ready at the receiver no earlier than the hop latency plus the
    // bytes at the channel's GPU rate after now. `sent` fires at the sender when the network is done with it.
    // One channel's SM works through its steps one at a time, so the chunks a channel has in flight share its
    // rate; a tree's broadcast to its children is one pass (samePass: the children after the first).
    // NVLS: `from` or `to` may be the engine (position size()); the engine has no SM, and the tuner's
    // latency was paid at the start; `workBytes` is what the sender's SM handles for this message.
    void transfer(uint32_t from, uint32_t to, uint32_t channel, uint32_t kind, uint32_t slot, uint64_t bytes,
                  Callback sent, bool samePass = false, uint64_t workBytes = UINT64_MAX);
    // When member `pos`'s SM for `channel` is free for work of `kind`: a ring's, a tree's way up and its way
    // down have one each; every other kind shares the ring's.
    TimePs& smFree(uint32_t pos, uint32_t channel, uint32_t kind);
    struct Join {
        uint64_t remaining;
        Callback sent;
    };
    struct Deferred {
        Rank src, dst;
        uint64_t tag, wire;
        Callback sent;
    };
    void deferredSend(uint64_t index);
    void pieceSent(uint64_t join);

    // Posts member `to`'s receive of the next message from `from`; `handler` runs when its data is ready.
    void expect(uint32_t from, uint32_t to, uint32_t channel, uint32_t kind, uint32_t slot, uint64_t bytes,
                Callback handler);
    struct Pending {
        Way way;
        Callback handler;
    };
    // The network delivered: wait, if need be, for the sender's GPU side.
    void arrived(uint64_t index);

    void start(uint64_t pos);

    // Chunk k rides slot k % depth on every member (its messages' tags agree), so it waits until the chunk
    // before it in that slot is done here: chunks can finish out of order.
    bool startChunk(uint32_t pos, uint32_t c);

    void chunkDone(uint32_t pos, uint32_t c, uint32_t slot);

    // A chunk's bookkeeping, whatever the algorithm: its sends acknowledged and its receipts in.
    uint32_t receiptsExpected(uint32_t pos, uint32_t c, uint32_t slot) const;
    void slotSent(uint64_t a);
    void slotGot(uint64_t a);
    void slotMaybeDone(uint32_t pos, uint32_t c, uint32_t slot);

    void memberUnitDone(uint32_t pos);

    // --- collective memo (nccl-memo.h)
    // At the first member's start, every member known: replay a recorded outcome, or record this one.
    void consultMemo();
    CollectiveMemo::Key memoKey(TimePs firstJoinPs) const;
    void replayedDone(uint64_t pos);
    void finishRecording();
    void countMessage(uint64_t wire) {
        ++m_ownMessages;
        m_ownBytes += wire;
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
    uint32_t chainIndex(uint32_t c, uint32_t pos) const;
    bool rooted() const { return m_func == Func::Broadcast || m_func == Func::Reduce; }

    void ringStart(uint32_t pos, uint32_t c, uint32_t slot);

    void ringReceived(uint64_t a);

    void chainReceived(uint64_t a);

    void ringSent(uint64_t a);

    // --- tree
    // ------------------------------------------------------------------------------------------------

    void treeStart(uint32_t pos, uint32_t c, uint32_t slot);

    void treeUpReceived(uint64_t a);

    // Every child's part is in: up to the parent, or, at the root, down to the children.
    void treeReduced(uint32_t pos, uint32_t c, uint32_t slot);

    void treeDownReceived(uint64_t a);

    void treeBroadcast(uint32_t pos, uint32_t c, uint32_t slot);

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
    void planPat();
    // Shards of `piece` bytes that one buffer slot carries, and the messages of steps [0, step).
    static uint32_t patShardsPerMessage(uint64_t piece) {
        return static_cast<uint32_t>(std::max<uint64_t>(1, kSimpleStepBytes / std::max<uint64_t>(1, piece)));
    }
    uint32_t patMessagesBefore(uint32_t step, uint64_t piece) const;
    // Member `pos`'s peers at a step: all-gather sends behind and receives from ahead, reduce-scatter the
    // reverse.
    uint32_t patPeer(uint32_t pos, uint32_t step, bool sendTo) const;
    void patStart(uint32_t pos, uint32_t c, uint32_t slot);
    void patSend(uint32_t pos, uint32_t c, uint32_t slot);
    void patReceived(uint64_t a);

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
    bool collNetChain() const { return m_choice.algo == Algo::CollNetChain; }
    bool nvlsTree() const { return m_choice.algo == Algo::NvlsTree; }
    uint32_t nvlsLoops(uint32_t c) const { return static_cast<uint32_t>(chunksOf(m_plans[c].bytes)); }
    uint64_t nvlsShare(uint32_t c, uint32_t loop, uint32_t head) const;
    // Engine groups: the servers (NVLS, NVLS-Tree; CollNet runs through its reduction tree, below).
    uint32_t groups() const { return static_cast<uint32_t>(m_servers.size()); }
    uint32_t groupOf(uint32_t pos) const { return m_serverOf[pos]; }
    uint32_t enginePos(uint32_t group) const { return size() + group; }
    // The members whose shares group g's engine sums and to which it copies.
    uint32_t contributors(uint32_t g) const { return static_cast<uint32_t>(m_servers[g].size()); }
    uint32_t headOf(uint32_t g, uint32_t h) const { return m_servers[g][h]; }
    // NVLS-Tree: head positions of server k's tree neighbours for channel c.
    TreeLinks serverTree(uint32_t k, uint32_t c) const {
        return dtree(static_cast<int>(k), static_cast<int>(m_servers.size()), static_cast<int>(c % 2));
    }
    uint32_t treeChildren(const TreeLinks& t) const {
        return (t.child0 >= 0 ? 1 : 0) + (t.child1 >= 0 ? 1 : 0);
    }

    void nvlsStart(uint32_t pos, uint32_t c, uint32_t slot, uint32_t loop);
    uint32_t inNetworkReceipts(uint32_t pos, uint32_t c) const;
    // Head i has its server's sum: store it (NVLS), or take it into the servers' tree (NVLS-Tree).
    void nvlsReducedHere(uint64_t a);
    void nvlsStore(uint32_t pos, uint32_t c, uint32_t slot);
    // NVLS-Tree: the local sum or a child's; with all of them, up to the parent (or, at the root, down).
    void nvlsTreeSumIn(uint64_t a);
    void nvlsTreeTotalIn(uint64_t a) {
        nvlsTreeTotal(posOf(a), channelOf(a), slotOf(a));
        slotGot(a);
    }
    void nvlsTreeTotal(uint32_t pos, uint32_t c, uint32_t slot);

    // The engines' side: per (channel, group, head), the loop each phase is at and the shares in so far.
    struct EngineHead {
        uint32_t reduceLoop = 0, reduceGot = 0, storeLoop = 0;
    };
    EngineHead& engineHead(uint32_t c, uint32_t g, uint32_t h) {
        return m_engineHeads[(std::size_t{c} * groups() + g) * m_heads + h];
    }
    void engineStart();
    void engineReducePost(uint32_t c, uint32_t g, uint32_t h);
    void engineShareIn(uint64_t a);
    void engineStorePost(uint32_t c, uint32_t g, uint32_t h);
    void engineStoreIn(uint64_t a);

    // --- CollNet Direct (all-reduce; servers whose GPUs' NICs meet on reducing switches)
    // --------------------------------------------------------------------------------------------
    // Per channel and loop every GPU holds a share per local head (a GPU per NIC): it sends each other head
    // its share over NVLink; head h sums the server's shares, sends the partial sum into the reducing
    // switch its NIC is cabled to, gets the total of every server back and copies it to the other local GPUs.
    void collNetStart(uint32_t pos, uint32_t c, uint32_t slot, uint32_t loop);
    void collNetShareIn(uint64_t a);
    void collNetSummed(uint32_t pos, uint32_t c, uint32_t slot);
    void collNetTotal(uint64_t a);

    // --- CollNet's reduction tree in the scale-out switches (Direct and Chain)
    // --------------------------------------------------------------------------------------------
    // Per head h (a server's GPU h; for Chain, the chain head of the channels c with c % ppn == h), the
    // engines of the switches every server's GPU h is cabled to: one node when they are one switch (the
    // rails of a rail-optimised cluster), else a node per such switch, which sums its servers' parts and
    // sends the sum to a root node in a switch of the tier above cabled to all of them, which sums those and
    // sends the total back down (SHARP's aggregation tree over leaves and a spine). Each node takes a
    // channel's loops in order. Direct: the parts are each head's shares of a loop; Chain: the chain heads'
    // chunks, which go back down the chains.
    struct ReductionNode {
        uint32_t head = 0;
        int parent = -1;                 // node index of the root above, or -1 at the root
        std::vector<uint32_t> children;  // positions: members (a leaf) or nodes (the root)
    };
    void planReductionTree(const NcclTopology& topo, const std::vector<Rank>& members);
    // What a node of channel c moves for head h in a loop: its kinds up and down, its slot, its bytes.
    struct NodePart {
        uint32_t up, down, slot;
        uint64_t bytes;
    };
    NodePart nodePart(uint32_t c, uint32_t loop, uint32_t h) const;
    void reductionTreeStart();
    void nodePost(uint32_t c, uint32_t node);
    void nodePartIn(uint64_t a);
    void nodeTotalIn(uint64_t a);
    EngineHead& nodeState(uint32_t c, uint32_t node) {
        return m_nodeState[std::size_t{c} * m_nodes.size() + node];
    }
    std::vector<ReductionNode> m_nodes;   // endpoint position size() + index
    std::vector<uint32_t> m_leafNodeOf;   // per member position: the node its NIC's switch holds for it
    std::vector<EngineHead> m_nodeState;  // per (channel, node): loops summed, totals passed down

    // --- all-to-all
    // --------------------------------------------------------------------------------------------

    void planAllToAll(uint64_t commSize);

    uint64_t partOf(uint32_t c) const {
        return m_peerBytes / m_peerChannels + (c < m_peerBytes % m_peerChannels ? 1 : 0);
    }

    // The member that forwards `from`'s data to `to`: with PXN, when they are on different servers, the GPU
    // of `from`'s server on `to`'s rail (its local index); else `from` itself.
    uint32_t proxyOf(uint32_t from, uint32_t to) const;

public:
    // All-to-all: member `pos` sends its part to every peer, the nearest first as NCCL's rounds do, and
    // expects every peer's.
    void startAllToAll(uint64_t pos64);

    void joinAllToAll(uint32_t pos, Callback done, uint32_t record);
    bool isAllToAll() const { return m_type == CollectiveType::AllToAll; }

private:
    // A proxy has a part of `origin` for `to`: forward it; the origin's send is done when it arrives.
    void pxnReceived(uint64_t index);
    void p2pSent(uint64_t a) { memberUnitDone(posOf(a)); }
    void p2pReceived(uint64_t a) { memberUnitDone(posOf(a)); }

    NcclCollectives& m_owner;
    enum class Memo : uint8_t { Undecided, None, Recording, Replaying };
    Memo m_memo = Memo::Undecided;
    NetworkApi::PrivateDomain m_domain;  // at the first start, when a candidate
    uint64_t m_domainReplays = 0;
    TimePs m_memoStartPs = 0;
    CollectiveMemo::Key m_memoKey;
    CollectiveMemo::Outcome m_recording;
    uint64_t m_ownMessages = 0, m_ownBytes = 0;
    uint32_t m_group, m_sequence;
    std::vector<Rank> m_ranks;
    CollectiveType m_type;
    uint64_t m_nodeBytes;  // the trace's comm_size, which every member's node must repeat
    Func m_func = Func::AllReduce;
    CommShape m_shape;
    Choice m_choice;
    uint64_t m_bytes = 0, m_chunk = 0;
    double m_channelBytesPerUs = 1;
    // The kernel's side beyond the tuner's (nccl-device-costs.h) on a channel's SM: a fixed cost per Simple
    // ring or tree step, per NVLS loop, and NVLS's pipeline fill at the start.
    TimeNs m_stepCostNs = 0, m_loopCostNs = 0, m_fillNs = 0;
    std::vector<std::vector<uint32_t>> m_servers;  // member positions per server, by local index
    std::vector<ChannelPlan> m_plans;
    std::vector<Member> m_members;
    // Records by callback argument, recycled: receives posted, sends split over QPs, in-network sends
    // waiting for their SM.
    SlotPool<Pending, uint64_t> m_pending;
    SlotPool<Join, uint64_t> m_joins;
    SlotPool<Deferred, uint64_t> m_deferred;
    // Per way, the ready times of its messages on their way, oldest first (a vector drained from `head`: most
    // ways hold one or two at a time; an emptied way is forgotten and its record reused with its capacity).
    struct ReadyTimes {
        std::vector<TimePs> times;
        std::size_t head = 0;
    };
    struct WayHash {
        uint64_t operator()(const Way& w) const {
            return MixHash(uint64_t{std::get<0>(w)} << 32 | std::get<1>(w),
                           uint64_t{std::get<2>(w)} << 40 | uint64_t{std::get<3>(w)} << 32 | std::get<4>(w));
        }
    };
    FlatIndex<Way, WayHash> m_readyIndex;  // way -> slot in m_ready
    SlotPool<ReadyTimes> m_ready;
    std::vector<TimePs> m_smFreePs;  // per (member, channel, ring / tree up / tree down): when its SM is free
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

}  // namespace mlnet::nccl

#endif

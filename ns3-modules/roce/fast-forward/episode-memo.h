// Memoized episodes: a training step repeats the same exchanges (each layer's tensor-parallel collective,
// each micro-batch's activations) on the same links from the same idle state, and the packet model then
// gives the same outcome every time. The memo splits the network's traffic into episodes: the messages
// that share cables (data and ACK paths), from the moment their cables were idle until every message is
// done. A clean episode (no ECN mark, pause, drop, timeout, NACK or resend anywhere in the network while it
// ran) is recorded: its messages in order (start time relative to the episode's, hosts, size, priority,
// cables) and when each was received and acknowledged. When the first message of a later episode matches a
// record, the episode is replayed instead of simulated: no packet is sent, the recorded completions fire at
// their recorded times, and each later message of the episode must match the record's next one (the same
// time, hosts, size, priority and path) to be replayed too.
//
// Keys are conservative: a message that is not the next one recorded and touches a replayed episode's
// cables, or any other difference, ends the replay. The messages still in flight then continue at packet
// level with the bytes their recorded progress leaves them (a fresh queue pair each; queues and CC state
// start empty, which is what makes this an approximation), and the episode is simulated from there on. A
// switch's shared buffer couples ports of different episodes; clean episodes never fill a buffer far
// enough to mark or pause, which is why only those are recorded. Since an ended replay is an approximation,
// replays back off where they would end often: none starts shortly after a mark or pause anywhere, and none
// once a fifth of them have diverged.
#ifndef MLNET_ROCE_EPISODE_MEMO_H
#define MLNET_ROCE_EPISODE_MEMO_H

#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "network/routing.h"
#include "roce-nic.h"
#include "util/pools.h"

namespace mlnet::roce {

// What the memo did in a run, for summary.json.
struct EpisodeMemoStats {
    uint64_t episodes = 0;            // closed episodes, simulated or replayed (the last may stay open)
    uint64_t recorded = 0;            // distinct records kept
    uint64_t replayed = 0;            // episodes replayed to their end
    uint64_t diverged = 0;            // replays ended by a difference (the rest simulated)
    uint64_t replayedMessages = 0;    // messages whose completions came from a record
    uint64_t replayedBytes = 0;       // their bytes
    uint64_t resumedMessages = 0;     // messages of ended replays that went on at packet level
    TimePs replayedPs = 0;            // summed length of the replayed episodes (they may overlap)
    uint64_t replayedPacketHops = 0;  // data packet-hops the replayed messages stand for
    struct Span {
        TimePs startPs, endPs;
        uint32_t messages;
    };
    std::vector<Span> spans;  // the replayed episodes, for the timeline
};

class EpisodeMemo {
public:
    // The fabric's side: a message's UDP source port (it advances the allocator as a simulated message
    // would), starting a message at packet level on a fresh queue pair, and a sum of the counters whose
    // growth makes a running episode unclean.
    struct Fabric {
        std::function<uint16_t(uint32_t src, uint32_t dst)> sourcePort;
        std::function<void(uint64_t id, uint32_t src, uint32_t dst, uint64_t sizeBytes, uint8_t priority,
                           uint16_t sport, uint16_t flowDstPort, RoceNic::Done sent,
                           RoceNic::Received received)>
            start;
        std::function<uint64_t()> disturbances;
    };
    EpisodeMemo(const Routing& routing, uint32_t cables, uint32_t mtuPayloadBytes, Fabric fabric);
    ~EpisodeMemo();
    EpisodeMemo(const EpisodeMemo&) = delete;
    EpisodeMemo& operator=(const EpisodeMemo&) = delete;

    // RoceFabric::StartMessage with one queue pair per message.
    void Start(uint64_t messageId, uint32_t src, uint32_t dst, uint64_t sizeBytes, uint8_t priority,
               uint16_t flowDstPort, RoceNic::Done sent, RoceNic::Received received);

    // A cable goes down: a replay using it ends (its messages go on at packet level and meet the dead link).
    void CableDown(uint32_t cable);
    // Bytes delivered by replayed messages (the hang detector's progress, the delivered total).
    uint64_t DeliveredBytes() const { return m_deliveredBytes; }
    // A replayed message is on its way: the network carries it without a packet that shows it.
    bool Replaying() const { return m_replayedInFlight > 0; }
    const EpisodeMemoStats& Stats() const { return m_stats; }

private:
    enum class Mode : uint8_t { Recording, Replaying, Live };
    enum class State : uint8_t { Simulated, Replayed, Resumed };
    // The core's clock counts nanoseconds, so a repeat's messages may start up to this much apart relative to
    // its episode's start (the sub-nanosecond phase of the start differs); inputs match within it.
    static constexpr TimePs kTiePs = 2000;
    // An episode ends when its cables have been idle this long: a message its last completion starts (in
    // whatever order same-instant events run) and a collective's next step after a short GPU-side pause stay
    // in it, so repeats are cut the same way.
    static constexpr TimePs kLingerPs = 2'000'000;
    struct Input {    // a message as an episode's key sees it
        TimePs atPs;  // relative to the episode's start in records, absolute in messages
        uint32_t src, dst;
        uint64_t sizeBytes;
        uint8_t priority;
        uint64_t pathHash;
    };
    struct Output {
        TimePs receivedPs = 0, sentPs = 0;  // relative to the episode's start
    };
    struct Record {
        std::vector<Input> inputs;  // by start time, then arrival order
        std::vector<Output> outputs;
        std::vector<uint64_t> keys;  // ContentKey of each input
        int64_t score = 0;           // replays to the end minus divergences: the variant tried first
    };
    struct Message {
        Input input;
        uint32_t episode = 0;
        uint32_t order = 0;  // arrival order, for ties in time
        uint64_t id = 0;
        uint16_t sport = 0, dport = 0;
        uint32_t pathHops = 0;     // cables of the data path
        uint32_t recordIndex = 0;  // Replayed: its place in the record
        uint32_t slot = 0;         // its place in its episode's list
        State state = State::Simulated;
        bool receivedDone = false, sentDone = false;
        TimePs receivedAtPs = 0, sentAtPs = 0;
        uint32_t generation = 0;
        RoceNic::Done sent;
        RoceNic::Received received;
    };
    struct Episode {
        Mode mode = Mode::Recording;
        TimePs startPs = 0;
        uint64_t disturbancesAtStart = 0;
        uint32_t open = 0;  // completions still to fire
        std::vector<uint32_t> cables;
        std::vector<uint32_t> messages;  // indices into m_messages
        Record* record = nullptr;        // Replaying
        std::vector<char> matched;       // per record input: a message took it
        uint32_t matchedCount = 0;
        uint32_t scan = 0;        // record inputs before it are matched
        uint32_t generation = 0;  // a closed episode's pending checks no longer apply
        uint32_t lingerTicket = 0;
        bool counted = false;  // replayed to the record's end
    };
    struct Expect {
        uint32_t episode, index;
    };

    static uint64_t ContentKey(const Input& in);
    static bool SameContent(const Input& a, const Input& b) {
        return a.src == b.src && a.dst == b.dst && a.sizeBytes == b.sizeBytes && a.priority == b.priority &&
               a.pathHash == b.pathHash;
    }
    static bool Near(TimePs a, TimePs b) { return (a > b ? a - b : b - a) <= kTiePs; }
    uint32_t NewEpisode(TimePs now);
    void Join(uint32_t e, uint32_t m);
    void Forget(uint32_t e, uint32_t m);  // out of its episode's list, and released
    void Release(uint32_t m);
    // The cables of a message's data and ACK paths into m_cables, sorted; false when there is no route.
    bool Footprint(uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport, Message& msg);
    void Claim(uint32_t e, const std::vector<uint32_t>& cables);
    bool ReplayExpected(uint32_t m, uint64_t key);
    bool ReplayFromStart(uint32_t e, uint32_t m, uint64_t key);
    // Message m at packet level: `sizeBytes` of it (the whole, or what a replay left) from `sport`.
    void Simulate(uint32_t m, uint64_t sizeBytes, uint16_t sport);
    void Replay(uint32_t e, uint32_t m, uint32_t index);
    void Unexpect(uint32_t e);
    // A replay stays valid only while every recorded message arrives in time: the record's later
    // completions depend on it. Checked at each recorded start (plus kTiePs) still unmatched.
    void WatchInputs(uint32_t e);
    void CheckInputs(uint32_t e, uint32_t generation);
    void Resume(uint32_t e);  // an ended replay: its messages in flight go on at packet level
    void Merge(uint32_t into, uint32_t from);
    void Completed(uint32_t m, bool sentSide);
    void LingerEnd(uint32_t e, uint32_t generation, uint32_t ticket);
    void Close(uint32_t e);
    void Keep(const Episode& e);
    void ReplayReceived(uint32_t m, uint32_t generation);
    void ReplaySent(uint32_t m, uint32_t generation);
    FlowCompletion CompletionOf(const Message& msg) const;

    const Routing& m_routing;
    uint32_t m_mtuPayloadBytes;
    Fabric m_fabric;
    std::vector<uint32_t> m_owner;  // per cable: episode + 1, or 0 when free
    SlotPool<Episode> m_episodes;
    SlotPool<Message> m_messages;
    std::vector<std::unique_ptr<Record>> m_store;
    // Records by the ContentKey of each input in their first instant (any of them may arrive first).
    std::unordered_map<uint64_t, std::vector<Record*>> m_byFirst;
    std::unordered_map<uint64_t, uint32_t>
        m_recordsPerFirst;  // by the first input's key, capped
                            // Records whose last replay diverged: the next episode that would replay one is
                            // recorded instead (the
    // instant it began at, kNever before).
    std::unordered_map<const Record*, TimePs> m_learn;
    static constexpr TimePs kNever = UINT64_MAX;
    std::unordered_multimap<uint64_t, Expect> m_expected;  // inputs the running replays still wait for
    std::vector<uint32_t> m_cables, m_ackCables, m_owners;
    uint32_t m_order = 0;
    uint64_t m_deliveredBytes = 0;
    uint64_t m_replayedInFlight = 0;
    EpisodeMemoStats m_stats;
    static constexpr uint32_t kRecordsPerKey = 8;
    // Records are kept up to this many messages in all (about 72 bytes each), each of at most a tenth of it:
    // an episode that large (a congested step's all of it) does not come back.
    static constexpr uint64_t kMaxRecordedMessages = 1u << 20;
    // No replay starts until the network has been free of marks, pauses, drops and resends this long: in a
    // congested phase a replay would soon be cut short, and what the cut-short messages lose is the model's
    // approximation.
    static constexpr TimePs kQuietPs = 200'000'000;
    // Nor once more than a fifth of the replays (beyond the first few) have ended in a divergence.
    static constexpr uint64_t kDivergenceGrace = 16;
    uint64_t Disturbances();  // the fabric's count, noting when it last moved
    uint64_t m_recordedMessages = 0;
    uint64_t m_lastDisturbances = 0;
    TimePs m_disturbedAtPs = 0;
};

}  // namespace mlnet::roce

#endif

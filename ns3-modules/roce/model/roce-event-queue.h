// The pending-event queue of RoceSimulatorImpl: entries ordered by (time, uid), popped in exactly that order.
// Nearly every event of a packet run is scheduled a fixed delay ahead: a frame's serialisation, or that plus
// the cable's propagation. A run on hpcc-bench has four or six such delays for 96-99 % of its events. Entries
// pushed with the same delay arrive in (time, uid) order, so each delay gets a lane, a ring buffer that is
// appended to at its tail and popped at its head, both sequential in memory. A fixed number of lanes feed a
// winner tree (a tournament over the lanes' heads): a pop replays one path of it, a handful of comparisons
// without a data-dependent branch, where a heap over the lanes took a mispredicted branch per level. Entries
// with an older uid than their lane holds (end-of-frame polls that were skipped, then needed) are sorted into
// a lane of their own; entries with any other delay (pacing wake-ups, timers, ns-3's own events), and those
// no lane can take, go to a 4-ary heap, whose top is one more leaf of the tree: a pop takes the tree's
// winner, so the order is exact whatever goes where.
//
// Precondition (a simulator's): a pushed entry is never earlier than the last popped one. With Push, an
// entry that would not extend its lane in order (a uid below the lane's last) goes to the heap, so any push
// order that meets the precondition pops in exact order; PushNewest (the simulator's) also asks that uids
// only grow.
#ifndef MLNET_ROCE_EVENT_QUEUE_H
#define MLNET_ROCE_EVENT_QUEUE_H

#include <cstdint>
#include <vector>

#include "util/time.h"

namespace mlnet::roce {

class RoceEventQueue {
public:
    using Call = void (*)(void* object, uint64_t arg);
    // The event itself travels in the queue: no side table to look up when it runs.
    struct Entry {
        uint64_t ts;
        uint64_t uid;
        Call call;
        void* object;
        uint64_t arg;
    };
    // (time, uid) as one number: one comparison, no branch between the two fields.
    static Uint128 Key(uint64_t ts, uint64_t uid) { return (static_cast<Uint128>(ts) << 64) | uid; }

    // `lanes` leaves of the tree (a power of two from 4 to kMaxLanes): the heap's top, the lane
    // PushEarlierUid sorts into and lanes - 2 rings for delays.
    static constexpr unsigned kMaxLanes = 64;
    static constexpr unsigned kDefaultLanes = 16;
    explicit RoceEventQueue(unsigned lanes = kDefaultLanes);

    // Takes the fields one by one: an Entry built on the caller's stack and copied in 16-byte pieces stalls
    // on its own 8-byte stores (store forwarding fails).
    void Push(uint64_t ts, uint64_t uid, Call call, void* object, uint64_t arg) {
        PushTo<false>(ts, uid, call, object, arg);
    }
    void Push(const Entry& e) { Push(e.ts, e.uid, e.call, e.object, e.arg); }
    // An entry whose uid is above every uid pushed before (a simulator numbering its events as they are
    // scheduled): it extends its lane without comparing with the lane's last entry.
    void PushNewest(uint64_t ts, uint64_t uid, Call call, void* object, uint64_t arg) {
        PushTo<true>(ts, uid, call, object, arg);
    }
    // An entry whose uid was taken earlier (RoceSimulatorImpl::ScheduleCallAt): it is older than what its
    // delay's lane holds, so it cannot join that lane. It is sorted into a lane of its own instead
    // (kSortedLane), which no delay is given: in a packet run such entries (end-of-frame polls that were
    // skipped, then needed) are due within a frame's time and few are pending at once, so an insertion moves
    // a few entries at most, where the heap took a push and a pop of a few hundred instructions (two thirds
    // of its traffic on the k4 all-to-all).
    void PushEarlierUid(uint64_t ts, uint64_t uid, Call call, void* object, uint64_t arg);
    Entry Pop();  // requires !Empty()
    bool Empty() const { return m_size == 0; }
    std::size_t Size() const { return m_size; }
    template <typename F>
    void ForEach(F&& f) const;
    void Clear();
    // Moves every entry out (in no order) and empties the queue; the rings keep their storage and the
    // lanes their delays. With Refill, the way to change entries' times (RoceSimulatorImpl::ShiftNetwork):
    // never on the hot path.
    void Drain(std::vector<Entry>& out);
    // Pushes `entries` (sorted here by time and uid) into an empty queue whose clock is now `now`; each must
    // be due at or after it. They pop in exact (time, uid) order wherever they land.
    void Refill(std::vector<Entry>& entries, uint64_t now);

private:
    struct Lane {
        uint64_t delay = UINT64_MAX;  // the delay it holds (kept while empty: the same delay reuses it)
        Entry* ring = nullptr;        // m_rings[lane]'s storage; capacity mask + 1, a power of two
        uint64_t mask = 0;
        uint64_t head = 0;
        uint64_t count = 0;
        uint64_t emptiedAt = 0;  // time of the pop that emptied it (a lane to reassign is the longest idle)
    };
    // A tree node: the earliest head in its subtree, as its time and a tag, the uid above the lane's number.
    // (time, tag) orders exactly as (time, uid) does (uids are unique) and names the winning lane, in two
    // 64-bit words: a level of the replay is one compare-and-borrow and two conditional moves. An empty
    // lane's leaf holds kNeverPs, later than any entry.
    struct Node {
        uint64_t ts;
        uint64_t tag;
    };
    static constexpr unsigned kDefaultLaneLevels = 4;
    static_assert(1u << kDefaultLaneLevels == kDefaultLanes);
    static constexpr unsigned kLaneBits = 6;  // kMaxLanes = 2^kLaneBits; uids stay below 2^58
    static uint64_t Tag(uint64_t uid, uint64_t lane) { return uid << kLaneBits | lane; }
    static uint64_t LaneOf(uint64_t tag) { return tag & ((uint64_t{1} << kLaneBits) - 1); }
    static Node EmptyLeaf(uint64_t lane) { return {kNeverPs, Tag(UINT64_MAX >> kLaneBits, lane)}; }
    // Direct-mapped index from a delay to the lane that last held it: many more slots than lanes, so that the
    // few hot delays rarely share one (two that do take the slot in turns: a delay that finds the other's
    // lane there sends an entry to the heap, then finds its own lane by a scan). The candidates (delays
    // waiting for a second push) share one entry per 2^kCandidateShift slots.
    static constexpr unsigned kSlotBits = 10;
    static constexpr unsigned kCandidateShift = 2;
    static unsigned SlotOf(uint64_t delay) {
        return static_cast<unsigned>((delay * 0x9E3779B97F4A7C15ull) >> (64 - kSlotBits));
    }

    // Lane `lane`'s head changed to `head`: replay its path to the root. The path's winner stays in
    // registers and only siblings are read, never the node written a step before (reading that back waited
    // for the store); which lane wins is as good as random, so the choice is a select, not a branch. The
    // nodes' two words live in two arrays: a level is then two scalar loads, a compare-and-borrow, two
    // conditional moves and two scalar stores (a 16-byte node was moved through vector registers, shuffles
    // included, nearly twice the instructions).
    // The simulator's sixteen lanes take a path of constant length, unrolled (no loop test per level).
    void Replay(uint64_t lane, Node head) {
        if (m_laneCount == kDefaultLanes) {
            ReplayLevels<kDefaultLaneLevels>(kDefaultLanes + lane, head);
            return;
        }
        ReplayLevels<0>(m_laneCount + lane, head);
    }
    // kLevels: the tree's depth, or 0 to climb until the root.
    template <unsigned kLevels>
    [[gnu::always_inline]] void ReplayLevels(std::size_t n, Node head) {
        uint64_t* const times = m_treeTs.data();
        uint64_t* const tags = m_treeTag.data();
        uint64_t ts = head.ts;
        uint64_t tag = head.tag;
        times[n] = ts;
        tags[n] = tag;
        for (unsigned level = 0; kLevels != 0 ? level < kLevels : n > 1; ++level) {
            const uint64_t siblingTs = times[n ^ 1];
            const uint64_t siblingTag = tags[n ^ 1];
            TakeIfEarlier(siblingTs, siblingTag, ts, tag);
            n >>= 1;
            times[n] = ts;
            tags[n] = tag;
        }
    }
    // (ts, tag) = (siblingTs, siblingTag) when that pair is the earlier one, without a branch.
    static void TakeIfEarlier(uint64_t siblingTs, uint64_t siblingTag, uint64_t& ts, uint64_t& tag) {
#if defined(__x86_64__)
        // Compilers turn the portable form below into a branch (mispredicted half the time) or into masks
        // (twice the instructions); two conditional moves on the borrow are what it should be.
        uint64_t scratch;
        __asm__(
            "cmp %[tag], %[stag]\n\t"
            "mov %[sts], %[scratch]\n\t"
            "sbb %[ts], %[scratch]\n\t"
            "cmovc %[sts], %[ts]\n\t"
            "cmovc %[stag], %[tag]"
            : [ts] "+&r"(ts), [tag] "+r"(tag), [scratch] "=&r"(scratch)  // ts is written before stag is read
            : [sts] "r"(siblingTs), [stag] "r"(siblingTag)
            : "cc");
#else
        const uint64_t take = -static_cast<uint64_t>(Key(siblingTs, siblingTag) < Key(ts, tag));
        ts ^= (ts ^ siblingTs) & take;
        tag ^= (tag ^ siblingTag) & take;
#endif
    }
    static void Fill(Entry& slot, uint64_t ts, uint64_t uid, Call call, void* object, uint64_t arg) {
        slot.ts = ts;
        slot.uid = uid;
        slot.call = call;
        slot.object = object;
        slot.arg = arg;
    }
    // The two leaves AssignLane never hands to a delay: the heap's top (no ring: its Lane is unused), and the
    // lane PushEarlierUid sorts into. The heap's is 0, so that Pop tells it apart with a test against zero.
    static constexpr std::size_t kHeapLane = 0;
    static constexpr std::size_t kSortedLane = 1;
    static constexpr std::size_t kFirstDelayLane = 2;
    // The lane `delay` may use from now on, or kNoLane (the heap takes the entry).
    unsigned AssignLane(uint64_t delay, unsigned slot);
    // Inlined into every scheduling site: it is a few instructions on its common path, and out of line the
    // call costs about as much again.
    template <bool kNewest>
    [[gnu::always_inline]] void PushTo(uint64_t ts, uint64_t uid, Call call, void* object, uint64_t arg);
    void Grow(std::size_t lane);
    // Both keep the heap's leaf in the tree at the heap's top.
    void HeapPush(const Entry& e);
    Entry HeapPop();

    const unsigned m_laneCount;
    std::vector<Lane> m_lanes;
    std::vector<std::vector<Entry>> m_rings;
    // The tree's nodes by word: root at 1, children of n at 2n and 2n + 1; lane i's leaf at lanes + i.
    std::vector<uint64_t> m_treeTs;
    std::vector<uint64_t> m_treeTag;
    std::vector<uint8_t> m_slotLane;    // per slot: a lane index, or kNoLane
    std::vector<uint64_t> m_candidate;  // per 2^kCandidateShift slots: the last delay that found no lane
    std::vector<Entry> m_heap;          // 4-ary min-heap of everything else
    uint64_t m_now = 0;                 // time of the last popped entry
    std::size_t m_size = 0;
    static constexpr uint8_t kNoLane = 0xff;
    static constexpr uint64_t kPrefetchSlots = 32;
};

template <bool kNewest>
[[gnu::always_inline]] inline void RoceEventQueue::PushTo(uint64_t ts, uint64_t uid, Call call, void* object,
                                                          uint64_t arg) {
    ++m_size;
    if (ts >= m_now) {
        const uint64_t delay = ts - m_now;
        const unsigned slot = SlotOf(delay);
        unsigned i = m_slotLane[slot];
        if (i == kNoLane || m_lanes[i].delay != delay) {
            i = AssignLane(delay, slot);
        }
        if (i != kNoLane) {
            Lane& lane = m_lanes[i];
            if (lane.count == 0) {
                if (lane.mask == 0) {
                    Grow(i);
                }
                Fill(lane.ring[lane.head], ts, uid, call, object, arg);
                lane.count = 1;
                Replay(i, {ts, Tag(uid, i)});
                return;
            }
            // An entry with a later uid than every one before extends its delay's lane in order (its time
            // is no earlier either: the same delay from a clock that never goes back); another one is
            // checked against the lane's last.
            bool inOrder = true;
            if (!kNewest) {
                const Entry& tail = lane.ring[(lane.head + lane.count - 1) & lane.mask];
                inOrder = !(Key(ts, uid) < Key(tail.ts, tail.uid));
            }
            if (inOrder) {
                if (lane.count == lane.mask + 1) {
                    Grow(i);
                }
                Fill(lane.ring[(lane.head + lane.count) & lane.mask], ts, uid, call, object, arg);
                ++lane.count;
                return;
            }
        }
    }
    HeapPush({ts, uid, call, object, arg});
}

inline void RoceEventQueue::PushEarlierUid(uint64_t ts, uint64_t uid, Call call, void* object, uint64_t arg) {
    ++m_size;
    const std::size_t i = kSortedLane;
    Lane& lane = m_lanes[i];
    if (lane.mask == 0 || lane.count == lane.mask + 1) {
        Grow(i);
    }
    const Uint128 key = Key(ts, uid);
    uint64_t at = lane.count;
    for (; at > 0; --at) {
        const Entry& before = lane.ring[(lane.head + at - 1) & lane.mask];
        if (!(key < Key(before.ts, before.uid))) {
            break;
        }
        lane.ring[(lane.head + at) & lane.mask] = before;
    }
    Fill(lane.ring[(lane.head + at) & lane.mask], ts, uid, call, object, arg);
    ++lane.count;
    if (at == 0) {
        Replay(i, {ts, Tag(uid, i)});
    }
}

inline RoceEventQueue::Entry RoceEventQueue::Pop() {
    --m_size;
    const uint64_t index = LaneOf(m_treeTag[1]);
    if (index == kHeapLane) {
        const Entry e = HeapPop();
        m_now = e.ts;
        return e;
    }
    Lane& lane = m_lanes[index];
    const Entry e = lane.ring[lane.head];
    // A lane is read in order but long after it was written: on large runs its ring (thousands of entries)
    // has left the cache by then. Fetch a few lines ahead of the head.
    __builtin_prefetch(&lane.ring[(lane.head + kPrefetchSlots) & lane.mask]);
    lane.head = (lane.head + 1) & lane.mask;
    Node next = EmptyLeaf(index);
    if (--lane.count != 0) {
        const Entry& after = lane.ring[lane.head];
        next = {after.ts, Tag(after.uid, index)};
        // Start fetching what that entry's event will touch first (its object; for deliveries the packet,
        // for the end of a frame the owner's next frame: RoceNetDevice::HintNextFrame): on large networks
        // they are out of cache. The lane's next entry is often the next event, and is due soon anyway;
        // it is at hand here, where the true next event (the tree's new root) would be a chain of loads
        // after the replay (k4 all-to-all 0.97x CPU against that).
        __builtin_prefetch(after.object);
        __builtin_prefetch(reinterpret_cast<const void*>(after.arg));
    } else {
        lane.emptiedAt = e.ts;
    }
    Replay(index, next);
    m_now = e.ts;
    return e;
}

template <typename F>
void RoceEventQueue::ForEach(F&& f) const {
    for (const Lane& lane : m_lanes) {
        for (uint64_t i = 0; i < lane.count; ++i) {
            f(lane.ring[(lane.head + i) & lane.mask]);
        }
    }
    for (const Entry& e : m_heap) {
        f(e);
    }
}

}  // namespace mlnet::roce

#endif

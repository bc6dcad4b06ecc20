// The pending-event queue of RoceSimulatorImpl: entries ordered by (time, uid), popped in exactly that order.
// Nearly every event of a packet run is scheduled a fixed delay ahead: a frame's serialisation, or that plus
// the cable's propagation. A run on hpcc-bench has four or six such delays for 96-99 % of its events. Entries
// pushed with the same delay arrive in (time, uid) order, so each delay gets a lane, a ring buffer that is
// appended to at its tail and popped at its head, both sequential in memory; a small heap over the lanes'
// heads picks the earliest. Entries with any other delay (pacing wake-ups, timers, ns-3's own events), and
// those a full lane table cannot take, go to a 4-ary heap; each pop takes the earlier of the two tops, so the
// order is exact whatever goes where.
//
// Precondition (a simulator's): a pushed entry is never earlier than the last popped one. An entry that
// would not extend its lane in order (a uid below the lane's last) goes to the heap, so any push order that
// meets the precondition pops in exact order.
#ifndef MLNET_ROCE_EVENT_QUEUE_H
#define MLNET_ROCE_EVENT_QUEUE_H

#include <cstdint>
#include <vector>

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
    static bool KeyEarlier(uint64_t ts, uint64_t uid, uint64_t otherTs, uint64_t otherUid) {
        return ts != otherTs ? ts < otherTs : uid < otherUid;
    }
    static bool Earlier(const Entry& a, const Entry& b) { return KeyEarlier(a.ts, a.uid, b.ts, b.uid); }

    // 2 x laneSets lanes (laneSets a power of two, at most 2^16); a delay may use the two lanes of its set.
    explicit RoceEventQueue(unsigned laneSets = 32);

    void Push(const Entry& e);
    Entry Pop();  // requires !Empty()
    // An entry due soon after the next one (the k-th behind the next entry of the lane that holds the
    // earliest), or null. For prefetching only.
    const Entry* Ahead(std::size_t k) const {
        if (m_active.empty()) {
            return nullptr;
        }
        const Lane& lane = m_lanes[m_active[0].lane];
        return k < lane.count ? &lane.ring[(lane.head + k) & lane.mask] : nullptr;
    }
    bool Empty() const { return m_size == 0; }
    std::size_t Size() const { return m_size; }
    template <typename F>
    void ForEach(F&& f) const;
    void Clear();

private:
    struct Lane {
        uint64_t delay = UINT64_MAX;  // the delay it holds (kept while empty: the same delay reuses it)
        std::vector<Entry> ring;      // capacity a power of two; entries [head, head + count) modulo it
        uint64_t mask = 0;
        uint64_t head = 0;
        uint64_t count = 0;
    };
    // A non-empty lane in the lane heap, with its head's key copied so that sifting reads no ring.
    struct Active {
        uint64_t ts;
        uint64_t uid;
        uint32_t lane;
    };
    static bool Earlier(const Active& a, const Active& b) { return KeyEarlier(a.ts, a.uid, b.ts, b.uid); }

    // The lane for entries `delay` ahead that can take `e` in order, or null.
    Lane* LaneFor(uint64_t delay, const Entry& e);
    void Append(uint32_t lane, const Entry& e);
    void Grow(Lane& lane);
    void ActiveSiftUp(std::size_t i);
    void ActiveSiftDown(std::size_t i);
    void HeapPush(const Entry& e);
    Entry HeapPop();

    const unsigned m_setBits;  // log2(sets): a delay's set is the top m_setBits bits of its hash
    std::vector<Lane> m_lanes;
    std::vector<uint64_t> m_candidate;  // per set: the last delay that found no lane there
    std::vector<Active> m_active;       // binary min-heap of the non-empty lanes
    std::vector<Entry> m_heap;          // 4-ary min-heap of everything else
    uint64_t m_now = 0;                 // time of the last popped entry
    std::size_t m_size = 0;
};

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

#include "roce-event-queue.h"

#include <algorithm>
#include <stdexcept>

namespace mlnet::roce {

namespace {

constexpr std::size_t kArity = 4;
constexpr uint64_t kFirstRingEntries = 64;

unsigned CheckedLanes(unsigned lanes) {
    if (lanes < 4 || lanes > RoceEventQueue::kMaxLanes || (lanes & (lanes - 1)) != 0) {
        throw std::invalid_argument(
            "RoceEventQueue: the number of lanes must be a power of two from 4 to 64");
    }
    return lanes;
}

}  // namespace

RoceEventQueue::RoceEventQueue(unsigned lanes)
    : m_laneCount(CheckedLanes(lanes)),
      m_lanes(lanes),
      m_rings(lanes),
      m_treeTs(2 * std::size_t{lanes}),
      m_treeTag(2 * std::size_t{lanes}),
      m_slotLane(std::size_t{1} << kSlotBits, kNoLane),
      m_candidate(std::size_t{1} << (kSlotBits - kCandidateShift), UINT64_MAX) {
    Clear();
}

void RoceEventQueue::Clear() {
    for (Lane& lane : m_lanes) {
        lane.head = lane.count = 0;
    }
    // Every node names a lane whose leaf is empty: Pop() reads a valid (empty) lane.
    for (std::size_t n = 0; n < m_treeTs.size(); ++n) {
        const Node leaf = EmptyLeaf(n >= m_laneCount ? n - m_laneCount : 0);
        m_treeTs[n] = leaf.ts;
        m_treeTag[n] = leaf.tag;
    }
    std::fill(m_candidate.begin(), m_candidate.end(), UINT64_MAX);
    m_heap.clear();
    m_now = 0;
    m_size = 0;
}

void RoceEventQueue::Drain(std::vector<Entry>& out) {
    out.reserve(out.size() + m_size);
    ForEach([&out](const Entry& e) { out.push_back(e); });
    const uint64_t now = m_now;
    Clear();
    m_now = now;
}

void RoceEventQueue::Refill(std::vector<Entry>& entries, uint64_t now) {
    if (m_size != 0) {
        throw std::logic_error("RoceEventQueue::Refill: the queue is not empty");
    }
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return Key(a.ts, a.uid) < Key(b.ts, b.uid); });
    m_now = now;
    for (const Entry& e : entries) {
        if (e.ts < now) {
            throw std::logic_error("RoceEventQueue::Refill: an entry is due before the queue's clock");
        }
        Push(e);
    }
}

unsigned RoceEventQueue::AssignLane(uint64_t delay, unsigned slot) {
    // A delay gets a lane on its second lane-less push in a row to its candidate entry: one-off delays
    // (pacing wake-ups, timers) stay in the heap, or they would take the lanes with single entries.
    uint64_t& candidate = m_candidate[slot >> kCandidateShift];
    if (candidate != delay) {
        candidate = delay;
        return kNoLane;
    }
    // Its slot may name another delay's lane (two delays hashed alike): it may have one already.
    for (std::size_t i = kFirstDelayLane; i < m_laneCount; ++i) {
        if (m_lanes[i].delay == delay) {
            m_slotLane[slot] = static_cast<uint8_t>(i);
            return static_cast<unsigned>(i);
        }
    }
    // An empty lane: one that never held a delay, else the one idle longest. A hot delay's lane empties for
    // a moment now and then; taking it would send that delay to another lane, and the next, each ring
    // growing again.
    std::size_t chosen = m_laneCount;
    for (std::size_t i = kFirstDelayLane; i < m_laneCount; ++i) {
        const Lane& lane = m_lanes[i];
        if (lane.count != 0) {
            continue;
        }
        if (lane.delay == UINT64_MAX) {
            chosen = i;
            break;
        }
        if (chosen == m_laneCount || lane.emptiedAt < m_lanes[chosen].emptiedAt) {
            chosen = i;
        }
    }
    if (chosen == m_laneCount) {
        return kNoLane;  // every lane holds entries: the heap takes it
    }
    Lane& lane = m_lanes[chosen];
    if (lane.delay != UINT64_MAX && m_slotLane[SlotOf(lane.delay)] == chosen) {
        m_slotLane[SlotOf(lane.delay)] = kNoLane;
    }
    lane.delay = delay;
    m_slotLane[slot] = static_cast<uint8_t>(chosen);
    return static_cast<unsigned>(chosen);
}

void RoceEventQueue::Grow(std::size_t index) {
    Lane& lane = m_lanes[index];
    const uint64_t capacity = std::max<uint64_t>(kFirstRingEntries, 2 * (lane.mask + 1));
    std::vector<Entry> ring(capacity);
    for (uint64_t i = 0; i < lane.count; ++i) {
        ring[i] = lane.ring[(lane.head + i) & lane.mask];
    }
    m_rings[index].swap(ring);
    lane.ring = m_rings[index].data();
    lane.mask = capacity - 1;
    lane.head = 0;
}

void RoceEventQueue::HeapPush(const Entry& e) {
    std::size_t i = m_heap.size();
    m_heap.push_back(e);
    const Uint128 key = Key(e.ts, e.uid);
    while (i > 0) {
        const std::size_t parent = (i - 1) / kArity;
        if (!(key < Key(m_heap[parent].ts, m_heap[parent].uid))) {
            break;
        }
        m_heap[i] = m_heap[parent];
        i = parent;
    }
    m_heap[i] = e;
    if (i == 0) {
        Replay(kHeapLane, {e.ts, Tag(e.uid, kHeapLane)});
    }
}

RoceEventQueue::Entry RoceEventQueue::HeapPop() {
    const Entry top = m_heap.front();
    const Entry moving = m_heap.back();
    m_heap.pop_back();
    const std::size_t n = m_heap.size();
    if (n == 0) {
        Replay(kHeapLane, EmptyLeaf(kHeapLane));
        return top;
    }
    const Uint128 movingKey = Key(moving.ts, moving.uid);
    std::size_t i = 0;
    while (true) {
        const std::size_t first = i * kArity + 1;
        if (first >= n) {
            break;
        }
        std::size_t best = first;
        Uint128 bestKey = Key(m_heap[first].ts, m_heap[first].uid);
        const std::size_t last = std::min(first + kArity, n);
        for (std::size_t c = first + 1; c < last; ++c) {
            const Uint128 key = Key(m_heap[c].ts, m_heap[c].uid);
            if (key < bestKey) {
                best = c;
                bestKey = key;
            }
        }
        if (!(bestKey < movingKey)) {
            break;
        }
        m_heap[i] = m_heap[best];
        i = best;
    }
    m_heap[i] = moving;
    Replay(kHeapLane, {m_heap.front().ts, Tag(m_heap.front().uid, kHeapLane)});
    return top;
}

}  // namespace mlnet::roce

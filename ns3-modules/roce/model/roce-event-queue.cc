#include "roce-event-queue.h"

#include <algorithm>
#include <stdexcept>

namespace mlnet::roce {

namespace {

constexpr std::size_t kArity = 4;
constexpr uint64_t kFirstRingEntries = 64;

unsigned SetBits(unsigned laneSets) {
    if (laneSets == 0 || laneSets > (1u << 16) || (laneSets & (laneSets - 1)) != 0) {
        throw std::invalid_argument("RoceEventQueue: lane sets must be a power of two from 1 to 2^16");
    }
    return static_cast<unsigned>(__builtin_ctz(laneSets));
}

}  // namespace

RoceEventQueue::RoceEventQueue(unsigned laneSets)
    : m_setBits(SetBits(laneSets)), m_lanes(2 * std::size_t{laneSets}), m_candidate(laneSets, UINT64_MAX) {}

void RoceEventQueue::Clear() {
    for (Lane& lane : m_lanes) {
        lane.head = lane.count = 0;
    }
    std::fill(m_candidate.begin(), m_candidate.end(), UINT64_MAX);
    m_active.clear();
    m_heap.clear();
    m_now = 0;
    m_size = 0;
}

RoceEventQueue::Lane* RoceEventQueue::LaneFor(uint64_t delay, const Entry& e) {
    // Fibonacci hashing: the set is the top bits of delay x 2^64 / phi.
    const std::size_t set =
        m_setBits == 0 ? 0 : static_cast<std::size_t>((delay * 0x9E3779B97F4A7C15ull) >> (64 - m_setBits));
    Lane* ways = &m_lanes[2 * set];
    for (int w = 0; w < 2; ++w) {
        Lane& lane = ways[w];
        if (lane.delay == delay) {
            if (lane.count == 0) {
                return &lane;
            }
            const Entry& tail = lane.ring[(lane.head + lane.count - 1) & lane.mask];
            return Earlier(e, tail) ? nullptr : &lane;
        }
    }
    // A delay gets a lane on its second lane-less push in a row to this set: one-off delays (pacing wake-ups,
    // timers) stay in the heap, or they would fill the lanes with single entries and deepen the lanes' heap.
    if (m_candidate[set] != delay) {
        m_candidate[set] = delay;
        return nullptr;
    }
    for (int w = 0; w < 2; ++w) {
        if (ways[w].count == 0) {
            ways[w].delay = delay;
            return &ways[w];
        }
    }
    return nullptr;  // both ways hold other delays: the heap takes it
}

void RoceEventQueue::Push(const Entry& e) {
    ++m_size;
    if (e.ts >= m_now) {
        if (Lane* lane = LaneFor(e.ts - m_now, e)) {
            Append(static_cast<uint32_t>(lane - m_lanes.data()), e);
            return;
        }
    }
    HeapPush(e);
}

void RoceEventQueue::Append(uint32_t index, const Entry& e) {
    Lane& lane = m_lanes[index];
    if (lane.count == lane.ring.size()) {
        Grow(lane);
    }
    lane.ring[(lane.head + lane.count) & lane.mask] = e;
    if (++lane.count == 1) {
        m_active.push_back({e.ts, e.uid, index});
        ActiveSiftUp(m_active.size() - 1);
    }
}

void RoceEventQueue::Grow(Lane& lane) {
    const uint64_t capacity = std::max<uint64_t>(kFirstRingEntries, 2 * lane.ring.size());
    std::vector<Entry> ring(capacity);
    for (uint64_t i = 0; i < lane.count; ++i) {
        ring[i] = lane.ring[(lane.head + i) & lane.mask];
    }
    lane.ring.swap(ring);
    lane.mask = capacity - 1;
    lane.head = 0;
}

RoceEventQueue::Entry RoceEventQueue::Pop() {
    --m_size;
    if (m_active.empty() || (!m_heap.empty() && KeyEarlier(m_heap.front().ts, m_heap.front().uid,
                                                           m_active[0].ts, m_active[0].uid))) {
        const Entry e = HeapPop();
        m_now = e.ts;
        return e;
    }
    Lane& lane = m_lanes[m_active[0].lane];
    const Entry e = lane.ring[lane.head];
    lane.head = (lane.head + 1) & lane.mask;
    if (--lane.count != 0) {
        const Entry& next = lane.ring[lane.head];
        m_active[0].ts = next.ts;
        m_active[0].uid = next.uid;
    } else {
        m_active[0] = m_active.back();
        m_active.pop_back();
    }
    if (!m_active.empty()) {
        ActiveSiftDown(0);
    }
    m_now = e.ts;
    return e;
}

void RoceEventQueue::ActiveSiftUp(std::size_t i) {
    const Active moving = m_active[i];
    while (i > 0) {
        const std::size_t parent = (i - 1) / 2;
        if (!Earlier(moving, m_active[parent])) {
            break;
        }
        m_active[i] = m_active[parent];
        i = parent;
    }
    m_active[i] = moving;
}

void RoceEventQueue::ActiveSiftDown(std::size_t i) {
    const Active moving = m_active[i];
    const std::size_t n = m_active.size();
    while (true) {
        std::size_t child = 2 * i + 1;
        if (child >= n) {
            break;
        }
        if (child + 1 < n && Earlier(m_active[child + 1], m_active[child])) {
            ++child;
        }
        if (!Earlier(m_active[child], moving)) {
            break;
        }
        m_active[i] = m_active[child];
        i = child;
    }
    m_active[i] = moving;
}

void RoceEventQueue::HeapPush(const Entry& e) {
    std::size_t i = m_heap.size();
    m_heap.push_back(e);
    while (i > 0) {
        const std::size_t parent = (i - 1) / kArity;
        if (!Earlier(e, m_heap[parent])) {
            break;
        }
        m_heap[i] = m_heap[parent];
        i = parent;
    }
    m_heap[i] = e;
}

RoceEventQueue::Entry RoceEventQueue::HeapPop() {
    const Entry top = m_heap.front();
    const Entry moving = m_heap.back();
    m_heap.pop_back();
    const std::size_t n = m_heap.size();
    if (n == 0) {
        return top;
    }
    std::size_t i = 0;
    while (true) {
        const std::size_t first = i * kArity + 1;
        if (first >= n) {
            break;
        }
        std::size_t best = first;
        const std::size_t last = std::min(first + kArity, n);
        for (std::size_t c = first + 1; c < last; ++c) {
            if (Earlier(m_heap[c], m_heap[best])) {
                best = c;
            }
        }
        if (!Earlier(m_heap[best], moving)) {
            break;
        }
        m_heap[i] = m_heap[best];
        i = best;
    }
    m_heap[i] = moving;
    return top;
}

}  // namespace mlnet::roce

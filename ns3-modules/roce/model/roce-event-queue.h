// The pending-event queue of RoceSimulatorImpl: entries ordered by (time, uid), popped in exactly that order.
// A packet run keeps thousands of events pending, nearly all due within a few microseconds (a serialisation
// time, a link delay), so a binary or 4-ary heap spends most of its time in unpredictable comparisons. Here
// near events go to a timing wheel of fixed-width buckets (a chain of fixed-size chunks per bucket, from one
// pool, and a two-level bitmap of non-empty buckets); the bucket being consumed is sorted once into a small
// run. Events beyond the wheel's horizon, and the rare ones that land behind the run, go to a 4-ary heap;
// each pop takes the earlier of the run's head and the heap's top, so the order is exact whatever goes where.
//
// Precondition (a simulator's): a pushed entry is never earlier than the last popped one, and uids grow.
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
    static bool Earlier(const Entry& a, const Entry& b) { return a.ts != b.ts ? a.ts < b.ts : a.uid < b.uid; }

    // Buckets are 2^bucketShift time steps wide; the wheel has 2^wheelBits of them (at least 2^6). The
    // default, 256 ps x 16384 (a 4.2 us horizon, past a link delay plus a frame), measured fastest on
    // hpcc-bench's k=4 and k=8 all-to-all among 64 ps-4 ns buckets and 2^14-2^16 of them; wider buckets cost
    // more in sorting.
    explicit RoceEventQueue(unsigned bucketShift = 8, unsigned wheelBits = 14);

    void Push(const Entry& e);
    Entry Pop();  // requires !Empty()
    // The entry `k` places behind the next one in the current bucket, or null (it may not be the k-th next
    // to run: a late entry can come from the heap in between). For prefetching only.
    const Entry* Ahead(std::size_t k) const {
        return m_runHead + k < m_run.size() ? &m_run[m_runHead + k] : nullptr;
    }
    bool Empty() const { return m_size == 0; }
    std::size_t Size() const { return m_size; }
    template <typename F>
    void ForEach(F&& f) const;
    void Clear();

private:
    static constexpr uint32_t kNone = UINT32_MAX;
    // 3 x 40 + 8 bytes, two cache lines: buckets are usually sparse, and a chunk per event would waste more.
    static constexpr uint32_t kChunkEntries = 3;
    struct Chunk {
        Entry entries[kChunkEntries];
        uint32_t count;
        uint32_t next;  // the bucket's older chunk, or the free list
    };

    void InsertIntoRun(const Entry& e);
    void Refill();
    std::size_t FindFrom(std::size_t bucket) const;  // first non-empty bucket >= bucket, or the wheel's size
    void HeapPush(const Entry& e);
    Entry HeapPop();

    const unsigned m_shift;
    const uint64_t m_buckets;
    std::vector<Entry> m_run;  // the entries of bucket m_runBucket in order; popped up to m_runHead
    std::size_t m_runHead = 0;
    uint64_t m_runBucket = 0;      // absolute bucket number (time >> shift)
    std::vector<uint32_t> m_head;  // per bucket: its newest chunk
    std::vector<Chunk> m_chunks;
    uint32_t m_freeChunk = kNone;
    std::vector<uint64_t> m_bits;     // bit b: bucket b holds a list
    std::vector<uint64_t> m_summary;  // bit w: m_bits[w] != 0
    std::size_t m_wheelSize = 0;
    std::vector<Entry> m_heap;
    std::size_t m_size = 0;
};

template <typename F>
void RoceEventQueue::ForEach(F&& f) const {
    for (std::size_t i = m_runHead; i < m_run.size(); ++i) {
        f(m_run[i]);
    }
    for (uint32_t head : m_head) {
        for (uint32_t c = head; c != kNone; c = m_chunks[c].next) {
            for (uint32_t i = 0; i < m_chunks[c].count; ++i) {
                f(m_chunks[c].entries[i]);
            }
        }
    }
    for (const Entry& e : m_heap) {
        f(e);
    }
}

}  // namespace mlnet::roce

#endif

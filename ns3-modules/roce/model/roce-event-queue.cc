#include "roce-event-queue.h"

#include <algorithm>
#include <stdexcept>

namespace mlnet::roce {

namespace {

constexpr std::size_t kArity = 4;

}  // namespace

RoceEventQueue::RoceEventQueue(unsigned bucketShift, unsigned wheelBits)
    : m_shift(bucketShift), m_buckets(uint64_t{1} << std::max(wheelBits, 6u)) {
    if (bucketShift > 40 || wheelBits > 24) {
        throw std::invalid_argument("RoceEventQueue: bucket shift above 40 or wheel above 2^24 buckets");
    }
    m_head.assign(m_buckets, kNone);
    m_bits.assign(m_buckets / 64, 0);
    m_summary.assign((m_bits.size() + 63) / 64, 0);
}

void RoceEventQueue::Clear() {
    m_run.clear();
    m_runHead = 0;
    std::fill(m_head.begin(), m_head.end(), kNone);
    std::fill(m_bits.begin(), m_bits.end(), 0);
    std::fill(m_summary.begin(), m_summary.end(), 0);
    m_chunks.clear();
    m_freeChunk = kNone;
    m_wheelSize = 0;
    m_heap.clear();
    m_size = 0;
}

void RoceEventQueue::Push(const Entry& e) {
    const uint64_t bucket = e.ts >> m_shift;
    if (m_size == 0) {
        m_runBucket = bucket;  // nothing pending: the wheel's window starts here
    }
    ++m_size;
    if (bucket == m_runBucket) {
        InsertIntoRun(e);
    } else if (bucket > m_runBucket && bucket - m_runBucket < m_buckets) {
        const std::size_t b = bucket & (m_buckets - 1);
        uint32_t c = m_head[b];
        if (c == kNone || m_chunks[c].count == kChunkEntries) {
            uint32_t fresh = m_freeChunk;
            if (fresh != kNone) {
                m_freeChunk = m_chunks[fresh].next;
            } else {
                fresh = static_cast<uint32_t>(m_chunks.size());
                m_chunks.emplace_back();
            }
            m_chunks[fresh].count = 0;
            m_chunks[fresh].next = c;
            m_head[b] = c = fresh;
        }
        Chunk& chunk = m_chunks[c];
        chunk.entries[chunk.count++] = e;
        m_bits[b >> 6] |= uint64_t{1} << (b & 63);
        m_summary[b >> 12] |= uint64_t{1} << ((b >> 6) & 63);
        ++m_wheelSize;
    } else {
        HeapPush(e);
    }
}

void RoceEventQueue::InsertIntoRun(const Entry& e) {
    // New entries are usually the latest of the bucket (largest uid): they go at the end.
    std::size_t i = m_run.size();
    while (i > m_runHead && Earlier(e, m_run[i - 1])) {
        --i;
    }
    m_run.insert(m_run.begin() + static_cast<std::ptrdiff_t>(i), e);
}

RoceEventQueue::Entry RoceEventQueue::Pop() {
    if (m_runHead == m_run.size()) {
        m_run.clear();
        m_runHead = 0;
        Refill();
    }
    --m_size;
    if (!m_heap.empty() && (m_runHead == m_run.size() || Earlier(m_heap.front(), m_run[m_runHead]))) {
        return HeapPop();
    }
    return m_run[m_runHead++];
}

void RoceEventQueue::Refill() {
    if (m_wheelSize == 0) {
        if (!m_heap.empty()) {
            m_runBucket = m_heap.front().ts >> m_shift;  // move the window to the next event
        }
        return;
    }
    const std::size_t start = (m_runBucket + 1) & (m_buckets - 1);
    std::size_t b = FindFrom(start);
    if (b == m_buckets) {
        b = FindFrom(0);
    }
    m_runBucket += 1 + ((b - start) & (m_buckets - 1));
    for (uint32_t c = m_head[b]; c != kNone;) {
        Chunk& chunk = m_chunks[c];
        m_run.insert(m_run.end(), chunk.entries, chunk.entries + chunk.count);
        m_wheelSize -= chunk.count;
        const uint32_t next = chunk.next;
        chunk.next = m_freeChunk;
        m_freeChunk = c;
        c = next;
    }
    m_head[b] = kNone;
    m_bits[b >> 6] &= ~(uint64_t{1} << (b & 63));
    if (m_bits[b >> 6] == 0) {
        m_summary[b >> 12] &= ~(uint64_t{1} << ((b >> 6) & 63));
    }
    std::sort(m_run.begin(), m_run.end(), Earlier);
}

std::size_t RoceEventQueue::FindFrom(std::size_t bucket) const {
    std::size_t word = bucket >> 6;
    if (word >= m_bits.size()) {
        return m_buckets;
    }
    const uint64_t here = m_bits[word] & (~uint64_t{0} << (bucket & 63));
    if (here) {
        return (word << 6) + static_cast<std::size_t>(__builtin_ctzll(here));
    }
    ++word;
    std::size_t group = word >> 6;
    if (group >= m_summary.size()) {
        return m_buckets;
    }
    uint64_t words = m_summary[group] & (~uint64_t{0} << (word & 63));
    while (true) {
        if (words) {
            const std::size_t w = (group << 6) + static_cast<std::size_t>(__builtin_ctzll(words));
            return (w << 6) + static_cast<std::size_t>(__builtin_ctzll(m_bits[w]));
        }
        if (++group >= m_summary.size()) {
            return m_buckets;
        }
        words = m_summary[group];
    }
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

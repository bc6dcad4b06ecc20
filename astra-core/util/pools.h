// Recycling containers for records that come and go millions of times (messages in flight, queue pairs,
// receive contexts, chunks, collectives): steady state allocates nothing. A reused element keeps what its
// last user left in it, so callers reset the fields they need and may keep the capacity of the containers
// inside.
#ifndef MLNET_UTIL_POOLS_H
#define MLNET_UTIL_POOLS_H

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace mlnet {

// Elements addressed by a small integer index (an id that fits in a packet or a record), in one vector.
// Indices stay valid; references do not survive an acquire() that grows the pool.
template <typename T, typename Index = uint32_t>
class SlotPool {
public:
    // A free slot, the most recently released first; a new one when none is free.
    Index acquire() {
        if (!m_free.empty()) {
            const Index i = m_free.back();
            m_free.pop_back();
            return i;
        }
        m_slots.emplace_back();
        return static_cast<Index>(m_slots.size() - 1);
    }
    void release(Index i) { m_free.push_back(i); }

    T& operator[](Index i) { return m_slots[i]; }
    const T& operator[](Index i) const { return m_slots[i]; }
    // Every slot ever made (free ones included): valid indices are below it.
    Index size() const { return static_cast<Index>(m_slots.size()); }
    std::size_t inUse() const { return m_slots.size() - m_free.size(); }
    // Every slot, free ones included (a reader that skips free slots by their own state).
    typename std::vector<T>::const_iterator begin() const { return m_slots.begin(); }
    typename std::vector<T>::const_iterator end() const { return m_slots.end(); }

private:
    std::vector<T> m_slots;
    std::vector<Index> m_free;
};

// Elements with stable addresses (other records point at them), recycled through a free list of pointers.
// `Base` lets one free list serve objects of a derived type, returned by code that does not know the type.
template <typename T, typename Base = T>
class ObjectPool {
public:
    T& acquire() {
        if (m_free.empty()) {
            return m_all.emplace_back();
        }
        T* t = static_cast<T*>(m_free.back());
        m_free.pop_back();
        return *t;
    }
    void release(T& t) { m_free.push_back(&t); }
    // Where objects of this pool are returned (a Base* list that outlives the caller's knowledge of T).
    std::vector<Base*>& freeList() { return m_free; }
    std::size_t size() const { return m_all.size(); }

private:
    std::deque<T> m_all;
    std::vector<Base*> m_free;
};

}  // namespace mlnet

#endif

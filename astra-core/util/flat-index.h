// Keys to small integer slots in one flat array (open addressing, linear probing): the per-message lookups of
// message matching and NCCL's ready times, where a node-based map's pointer chase and allocation per insert
// cost more than the work around them. The values live elsewhere (a SlotPool, keeping their capacity across
// reuse); this only finds them.
#ifndef MLNET_UTIL_FLAT_INDEX_H
#define MLNET_UTIL_FLAT_INDEX_H

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace mlnet {

// `Hash` must spread its output over all 64 bits (the table takes the top bits).
template <typename Key, typename Hash>
class FlatIndex {
public:
    static constexpr uint32_t kNone = UINT32_MAX;

    // The slot of `key`, or kNone.
    uint32_t find(const Key& key) const {
        if (m_size == 0) {
            return kNone;
        }
        for (std::size_t i = home(key);; i = (i + 1) & m_mask) {
            const Entry& e = m_entries[i];
            if (e.slot == kNone || e.key == key) {
                return e.slot;
            }
        }
    }
    // The slot of `key`, made by `newSlot()` when absent; true when it was.
    template <typename NewSlot>
    std::pair<uint32_t, bool> findOrInsert(const Key& key, NewSlot&& newSlot) {
        if ((m_size + 1) * 2 > m_entries.size()) {
            grow();
        }
        std::size_t i = home(key);
        for (; m_entries[i].slot != kNone; i = (i + 1) & m_mask) {
            if (m_entries[i].key == key) {
                return {m_entries[i].slot, false};
            }
        }
        const uint32_t slot = newSlot();
        m_entries[i] = Entry{key, slot};
        ++m_size;
        return {slot, true};
    }
    // Forgets `key` (nothing when absent): later entries of its probe run move back, so lookups never need
    // tombstones.
    void erase(const Key& key) {
        if (m_size == 0) {
            return;
        }
        std::size_t hole = home(key);
        for (; !(m_entries[hole].key == key && m_entries[hole].slot != kNone); hole = (hole + 1) & m_mask) {
            if (m_entries[hole].slot == kNone) {
                return;
            }
        }
        for (std::size_t i = (hole + 1) & m_mask; m_entries[i].slot != kNone; i = (i + 1) & m_mask) {
            // An entry may fill the hole when its home is not inside (hole, i].
            const std::size_t h = home(m_entries[i].key);
            if (((i - h) & m_mask) >= ((i - hole) & m_mask)) {
                m_entries[hole] = m_entries[i];
                hole = i;
            }
        }
        m_entries[hole].slot = kNone;
        --m_size;
    }
    std::size_t size() const { return m_size; }
    template <typename Visit>
    void forEach(Visit&& visit) const {
        for (const Entry& e : m_entries) {
            if (e.slot != kNone) {
                visit(e.key, e.slot);
            }
        }
    }

private:
    struct Entry {
        Key key{};
        uint32_t slot = kNone;
    };
    std::size_t home(const Key& key) const {
        return static_cast<std::size_t>(Hash{}(key) >> m_shift) & m_mask;
    }
    void grow() {
        std::vector<Entry> old = std::move(m_entries);
        const std::size_t capacity = old.empty() ? 16 : old.size() * 2;
        m_entries.assign(capacity, Entry{});
        m_mask = capacity - 1;
        m_shift = 64;
        for (std::size_t c = capacity; c > 1; c >>= 1) {
            --m_shift;
        }
        for (const Entry& e : old) {
            if (e.slot != kNone) {
                std::size_t i = home(e.key);
                while (m_entries[i].slot != kNone) {
                    i = (i + 1) & m_mask;
                }
                m_entries[i] = e;
            }
        }
    }

    std::vector<Entry> m_entries;
    std::size_t m_mask = 0;
    unsigned m_shift = 64;
    std::size_t m_size = 0;
};

}  // namespace mlnet

#endif

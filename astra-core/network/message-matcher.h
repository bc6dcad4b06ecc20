// Byte-counted FIFO matching of arrivals and posted receives per (src, dst, tag), shared by every backend.
// A receive completes once its bytes have arrived; arrivals beyond the posted receives are parked for later
// ones.
#ifndef MLNET_NETWORK_MESSAGE_MATCHER_H
#define MLNET_NETWORK_MESSAGE_MATCHER_H

#include <cstdint>
#include <string>
#include <vector>

#include "common/callback.h"
#include "util/flat-index.h"
#include "util/mix-hash.h"
#include "util/pools.h"
#include "workload/trace-types.h"

namespace mlnet {

class MessageMatcher {
public:
    // Bytes arrived at dst. Completed receives are appended to `ready` (the caller decides when to run them).
    void arrive(Rank src, Rank dst, uint64_t tag, uint64_t sizeBytes, std::vector<Callback>& ready);
    // A receive is posted; if its bytes are already here it is appended to `ready` at once.
    void post(Rank src, Rank dst, uint64_t tag, uint64_t sizeBytes, Callback received,
              std::vector<Callback>& ready);

    // Receives still waiting for data, and data nobody has received, for hang reports.
    struct Outstanding {
        Rank src, dst;
        uint64_t tag;
        uint64_t waitingReceiveBytes;  // bytes posted but not yet arrived
        uint64_t parkedBytes;          // bytes arrived but not yet received
        std::size_t waitingReceives;
    };
    std::vector<Outstanding> outstanding() const;
    bool idle() const { return m_index.size() == 0; }

private:
    struct Key {
        Rank src, dst;
        uint64_t tag;
        bool operator==(const Key& o) const { return src == o.src && dst == o.dst && tag == o.tag; }
    };
    struct KeyHash {
        uint64_t operator()(const Key& k) const { return MixHash(uint64_t{k.src} << 32 | k.dst, k.tag); }
    };
    struct PendingReceive {
        uint64_t remainingBytes;
        Callback received;
    };
    // Usually one receive waits per channel, so a vector with a moving head beats a deque's block allocation;
    // channels are recycled with their vector's capacity (one per message in flight would allocate
    // otherwise).
    struct Channel {
        uint64_t parkedBytes = 0;
        std::size_t head = 0;
        std::vector<PendingReceive> receives;
        bool noReceives() const { return head == receives.size(); }
    };
    Channel& channel(const Key& key, uint32_t& slot);
    void drain(const Key& key, uint32_t slot, std::vector<Callback>& ready);

    FlatIndex<Key, KeyHash> m_index;  // (src, dst, tag) -> slot in m_channels
    SlotPool<Channel> m_channels;
};

}  // namespace mlnet

#endif

#include "message-matcher.h"

#include <algorithm>

namespace mlnet {

MessageMatcher::Channel& MessageMatcher::channel(const Key& key, uint32_t& slot) {
    slot = m_index.findOrInsert(key, [this] { return m_channels.acquire(); }).first;
    return m_channels[slot];
}

void MessageMatcher::drain(const Key& key, uint32_t slot, std::vector<Callback>& ready) {
    Channel& ch = m_channels[slot];
    while (!ch.noReceives()) {
        PendingReceive& head = ch.receives[ch.head];
        const uint64_t take = std::min(head.remainingBytes, ch.parkedBytes);
        head.remainingBytes -= take;
        ch.parkedBytes -= take;
        if (head.remainingBytes != 0) {
            break;
        }
        ready.push_back(head.received);
        ++ch.head;
    }
    if (ch.noReceives()) {
        ch.receives.clear();
        ch.head = 0;
        if (ch.parkedBytes == 0) {
            m_index.erase(key);  // keep the table as small as the traffic in flight
            m_channels.release(slot);
        }
    }
}

void MessageMatcher::arrive(Rank src, Rank dst, uint64_t tag, uint64_t sizeBytes,
                            std::vector<Callback>& ready) {
    const Key key{src, dst, tag};
    uint32_t slot = 0;
    channel(key, slot).parkedBytes += sizeBytes;
    drain(key, slot, ready);
}

void MessageMatcher::post(Rank src, Rank dst, uint64_t tag, uint64_t sizeBytes, Callback received,
                          std::vector<Callback>& ready) {
    const Key key{src, dst, tag};
    uint32_t slot = 0;
    channel(key, slot).receives.push_back({sizeBytes, received});
    drain(key, slot, ready);
}

std::vector<MessageMatcher::Outstanding> MessageMatcher::outstanding() const {
    std::vector<Outstanding> out;
    m_index.forEach([&](const Key& key, uint32_t slot) {
        const Channel& ch = m_channels[slot];
        uint64_t waiting = 0;
        for (std::size_t i = ch.head; i < ch.receives.size(); ++i) {
            waiting += ch.receives[i].remainingBytes;
        }
        out.push_back({key.src, key.dst, key.tag, waiting, ch.parkedBytes, ch.receives.size() - ch.head});
    });
    std::sort(out.begin(), out.end(), [](const Outstanding& a, const Outstanding& b) {
        return a.dst != b.dst ? a.dst < b.dst : a.src != b.src ? a.src < b.src : a.tag < b.tag;
    });
    return out;
}

}  // namespace mlnet

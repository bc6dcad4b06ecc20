#include "message-matcher.h"

#include <algorithm>

namespace mlnet {

void MessageMatcher::drain(std::unordered_map<Key, Channel, KeyHash>::iterator it,
                           std::vector<Callback>& ready) {
    Channel& ch = it->second;
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
            m_channels.erase(it);  // keep the table as small as the traffic in flight
        }
    }
}

void MessageMatcher::arrive(Rank src, Rank dst, uint64_t tag, uint64_t sizeBytes,
                            std::vector<Callback>& ready) {
    auto it = m_channels.try_emplace(Key{src, dst, tag}).first;
    it->second.parkedBytes += sizeBytes;
    drain(it, ready);
}

void MessageMatcher::post(Rank src, Rank dst, uint64_t tag, uint64_t sizeBytes, Callback received,
                          std::vector<Callback>& ready) {
    auto it = m_channels.try_emplace(Key{src, dst, tag}).first;
    it->second.receives.push_back({sizeBytes, received});
    drain(it, ready);
}

std::vector<MessageMatcher::Outstanding> MessageMatcher::outstanding() const {
    std::vector<Outstanding> out;
    for (const auto& [key, ch] : m_channels) {
        uint64_t waiting = 0;
        for (std::size_t i = ch.head; i < ch.receives.size(); ++i) {
            waiting += ch.receives[i].remainingBytes;
        }
        out.push_back({key.src, key.dst, key.tag, waiting, ch.parkedBytes, ch.receives.size() - ch.head});
    }
    std::sort(out.begin(), out.end(), [](const Outstanding& a, const Outstanding& b) {
        return a.dst != b.dst ? a.dst < b.dst : a.src != b.src ? a.src < b.src : a.tag < b.tag;
    });
    return out;
}

}  // namespace mlnet

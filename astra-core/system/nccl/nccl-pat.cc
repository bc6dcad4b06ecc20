#include "nccl-op.h"

namespace mlnet::nccl {

void NcclCollectives::Op::planPat() {
    const uint32_t n = size();
    // Offsets (ranks ahead) of the shards a member holds, as all-gather proceeds.
    std::vector<char> held(n, 0);
    held[0] = 1;
    uint32_t far = 1;
    while (far * 2 < n) {
        far *= 2;
    }
    for (uint32_t d = far; d >= 1; d /= 2) {
        std::vector<char> next = held;
        uint32_t shards = 0;
        for (uint32_t o = 0; o < n; ++o) {
            if (held[o] && !held[(o + d) % n] && !next[(o + d) % n]) {
                next[(o + d) % n] = 1;
                ++shards;
            }
        }
        held = std::move(next);
        if (shards > 0) {
            m_patSteps.push_back({d, shards});
        }
    }
    if (m_func == Func::ReduceScatter) {
        std::reverse(m_patSteps.begin(), m_patSteps.end());
    }
    // The chunk (enqueue.cc): a Simple step, halved while the operation would fill few.
    const uint64_t fill = m_func == Func::AllGather ? 32 : 16;
    while (m_chunk * m_choice.nChannels * fill > m_bytes && m_chunk > (64u << 10)) {
        m_chunk /= 2;
    }
}

uint32_t NcclCollectives::Op::patMessagesBefore(uint32_t step, uint64_t piece) const {
    const uint32_t per = patShardsPerMessage(piece);
    uint32_t messages = 0;
    for (uint32_t k = 0; k < step; ++k) {
        messages += (m_patSteps[k].shards + per - 1) / per;
    }
    return messages;
}

uint32_t NcclCollectives::Op::patPeer(uint32_t pos, uint32_t step, bool sendTo) const {
    const uint32_t n = size(), d = m_patSteps[step].distance % n;
    const bool ahead = (m_func == Func::ReduceScatter) == sendTo;
    return ahead ? (pos + d) % n : (pos + n - d) % n;
}

void NcclCollectives::Op::patStart(uint32_t pos, uint32_t c, uint32_t slot) {
    Slot& s = m_members[pos].channels[c].slots[slot];
    const uint32_t steps = static_cast<uint32_t>(m_patSteps.size());
    if (steps == 0) {
        chunkDone(pos, c, slot);
        return;
    }
    s.step = 0;
    s.received = 0;
    s.sendsLeft = patMessagesBefore(steps, s.piece);
    const uint32_t per = patShardsPerMessage(s.piece);
    for (uint32_t k = 0; k < steps; ++k) {
        for (uint32_t left = m_patSteps[k].shards; left > 0; left -= std::min(left, per)) {
            expect(patPeer(pos, k, false), pos, c, kPat, slot, std::min(left, per) * s.piece,
                   makeCallback<&Op::patReceived>(this, pack(pos, c, slot)));
        }
    }
    patSend(pos, c, slot);
}

void NcclCollectives::Op::patSend(uint32_t pos, uint32_t c, uint32_t slot) {
    const Slot& s = m_members[pos].channels[c].slots[slot];
    const uint32_t per = patShardsPerMessage(s.piece);
    for (uint32_t left = m_patSteps[s.step].shards; left > 0; left -= std::min(left, per)) {
        transfer(pos, patPeer(pos, s.step, true), c, kPat, slot, std::min(left, per) * s.piece,
                 makeCallback<&Op::slotSent>(this, pack(pos, c, slot)));
    }
}

void NcclCollectives::Op::patReceived(uint64_t a) {
    const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
    Slot& s = m_members[pos].channels[c].slots[slot];
    ++s.received;
    const uint32_t steps = static_cast<uint32_t>(m_patSteps.size());
    if (s.step + 1 < steps && s.received == patMessagesBefore(s.step + 1, s.piece)) {
        ++s.step;
        patSend(pos, c, slot);
    }
    slotMaybeDone(pos, c, slot);
}
}  // namespace mlnet::nccl

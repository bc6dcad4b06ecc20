#include "nccl-op.h"

namespace mlnet::nccl {

uint32_t NcclCollectives::Op::chainIndex(uint32_t c, uint32_t pos) const {
    const ChannelPlan& p = m_plans[c];
    const uint32_t n = size(), root = p.ringIndex[0];
    return (p.ringIndex[pos] + n - root) % n;
}

void NcclCollectives::Op::ringStart(uint32_t pos, uint32_t c, uint32_t slot) {
    const ChannelPlan& p = m_plans[c];
    const uint32_t n = size(), i = p.ringIndex[pos];
    const uint32_t next = p.ring[(i + 1) % n], prev = p.ring[(i + n - 1) % n];
    Slot& s = m_members[pos].channels[c].slots[slot];
    if (rooted()) {
        // Broadcast flows from the root down the chain; reduce flows up it to the root (the reverse).
        const uint32_t at = chainIndex(c, pos);
        const bool bcast = m_func == Func::Broadcast;
        const bool first = bcast ? at == 0 : at == n - 1, last = bcast ? at == n - 1 : at == 0;
        const uint32_t to = bcast ? next : prev, from = bcast ? prev : next;
        s.sendsLeft = last ? 0 : 1;
        if (!first) {
            expect(from, pos, c, kRing, slot, s.piece,
                   makeCallback<&Op::chainReceived>(this, pack(pos, c, slot, to)));
        } else {
            transfer(pos, to, c, kRing, slot, s.piece, makeCallback<&Op::ringSent>(this, pack(pos, c, slot)));
        }
        if (first && last) {
            chunkDone(pos, c, slot);
        }
        return;
    }
    const uint32_t steps = ringSteps();
    s.sendsLeft = steps;
    s.received = 0;
    // Every step's receive is posted now, in order; each completed receive releases the next send.
    for (uint32_t k = 0; k < steps; ++k) {
        expect(prev, pos, c, kRing, slot, s.piece, makeCallback<&Op::ringReceived>(this, pack(pos, c, slot)));
    }
    transfer(pos, next, c, kRing, slot, s.piece, makeCallback<&Op::ringSent>(this, pack(pos, c, slot)));
}

void NcclCollectives::Op::ringReceived(uint64_t a) {
    const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
    Slot& s = m_members[pos].channels[c].slots[slot];
    const uint32_t steps = ringSteps();
    if (++s.received < steps) {
        const ChannelPlan& p = m_plans[c];
        const uint32_t next = p.ring[(p.ringIndex[pos] + 1) % size()];
        transfer(pos, next, c, kRing, slot, s.piece, makeCallback<&Op::ringSent>(this, pack(pos, c, slot)));
    }
    slotMaybeDone(pos, c, slot);
}

void NcclCollectives::Op::chainReceived(uint64_t a) {
    const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
    Slot& s = m_members[pos].channels[c].slots[slot];
    s.received = 1;
    if (s.sendsLeft > 0) {
        transfer(pos, extraOf(a), c, kRing, slot, s.piece,
                 makeCallback<&Op::ringSent>(this, pack(pos, c, slot)));
    } else {
        chunkDone(pos, c, slot);
    }
}

void NcclCollectives::Op::ringSent(uint64_t a) {
    const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
    Slot& s = m_members[pos].channels[c].slots[slot];
    --s.sendsLeft;
    if (rooted()) {
        if (s.sendsLeft == 0) {
            chunkDone(pos, c, slot);
        }
        return;
    }
    slotMaybeDone(pos, c, slot);
}

void NcclCollectives::Op::treeStart(uint32_t pos, uint32_t c, uint32_t slot) {
    const ChannelPlan& p = m_plans[c];
    Slot& s = m_members[pos].channels[c].slots[slot];
    const std::vector<uint32_t>& kids = p.children[pos];
    // Sends: one up (unless the root) and one down to each child; receives: each child's up, the
    // parent's down.
    s.sendsLeft = static_cast<uint32_t>(kids.size()) + (p.tree[pos].parent >= 0 ? 1 : 0);
    s.received = 0;
    for (uint32_t child : kids) {
        expect(child, pos, c, kTreeUp, slot, s.piece,
               makeCallback<&Op::treeUpReceived>(this, pack(pos, c, slot)));
    }
    if (p.tree[pos].parent >= 0) {
        expect(static_cast<uint32_t>(p.tree[pos].parent), pos, c, kTreeDown, slot, s.piece,
               makeCallback<&Op::treeDownReceived>(this, pack(pos, c, slot)));
    }
    if (kids.empty()) {
        treeReduced(pos, c, slot);
    }
}

void NcclCollectives::Op::treeUpReceived(uint64_t a) {
    const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
    Slot& s = m_members[pos].channels[c].slots[slot];
    if (++s.received == m_plans[c].children[pos].size()) {
        treeReduced(pos, c, slot);
    }
}

void NcclCollectives::Op::treeReduced(uint32_t pos, uint32_t c, uint32_t slot) {
    const ChannelPlan& p = m_plans[c];
    Slot& s = m_members[pos].channels[c].slots[slot];
    if (p.tree[pos].parent >= 0) {
        transfer(pos, static_cast<uint32_t>(p.tree[pos].parent), c, kTreeUp, slot, s.piece,
                 makeCallback<&Op::slotSent>(this, pack(pos, c, slot)));
        return;
    }
    treeBroadcast(pos, c, slot);
}

void NcclCollectives::Op::treeDownReceived(uint64_t a) {
    const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
    ++m_members[pos].channels[c].slots[slot].received;
    treeBroadcast(pos, c, slot);
}

void NcclCollectives::Op::treeBroadcast(uint32_t pos, uint32_t c, uint32_t slot) {
    Slot& s = m_members[pos].channels[c].slots[slot];
    bool first = true;
    for (uint32_t child : m_plans[c].children[pos]) {
        transfer(pos, child, c, kTreeDown, slot, s.piece,
                 makeCallback<&Op::slotSent>(this, pack(pos, c, slot)), !first);
        first = false;
    }
    slotMaybeDone(pos, c, slot);
}
}  // namespace mlnet::nccl

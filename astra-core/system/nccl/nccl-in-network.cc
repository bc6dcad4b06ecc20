#include "nccl-op.h"

namespace mlnet::nccl {

uint64_t NcclCollectives::Op::nvlsShare(uint32_t c, uint32_t loop, uint32_t head) const {
    const uint64_t bytes = m_plans[c].bytes, perLoop = loopBytes();
    const uint64_t rest = bytes > uint64_t{loop} * perLoop ? bytes - uint64_t{loop} * perLoop : 0;
    const uint64_t inLoop = std::min(rest, perLoop);
    return inLoop / m_heads + (head < inLoop % m_heads ? 1 : 0);
}

void NcclCollectives::Op::nvlsStart(uint32_t pos, uint32_t c, uint32_t slot, uint32_t loop) {
    const uint32_t g = groupOf(pos), i = m_localOf[pos], ppn = m_heads;
    const uint32_t engine = enginePos(g, 0);
    Slot& s = m_members[pos].channels[c].slots[slot];
    s.step = loop;
    s.received = 0;
    s.piece = 0;  // NVLS-Tree: the local sum and the children's sums in so far
    s.sendsLeft = (nvlsReduces() ? ppn : 0) + (nvlsMulticasts() ? 1 : 0);
    const Callback sent = makeCallback<&Op::slotSent>(this, pack(pos, c, slot));
    uint64_t loopBytes = 0;
    for (uint32_t h = 0; h < ppn; ++h) {
        loopBytes += nvlsShare(c, loop, h);
    }
    const uint64_t own = nvlsShare(c, loop, i);
    if (nvlsTree()) {
        const TreeLinks t = serverTree(g, c);
        s.sendsLeft += (t.parent >= 0 ? 1 : 0) + treeChildren(t);
        for (int child : {t.child0, t.child1}) {
            if (child >= 0) {
                expect(headOf(static_cast<uint32_t>(child), i), pos, c, kTreeUp, i, own,
                       makeCallback<&Op::nvlsTreeSumIn>(this, pack(pos, c, slot)));
            }
        }
        if (t.parent >= 0) {
            expect(headOf(static_cast<uint32_t>(t.parent), i), pos, c, kTreeDown, i, own,
                   makeCallback<&Op::nvlsTreeTotalIn>(this, pack(pos, c, slot)));
        }
    }
    if (nvlsReduces()) {
        expect(engine, pos, c, kNvlsReduced, i, own,
               makeCallback<&Op::nvlsReducedHere>(this, pack(pos, c, slot)));
        for (uint32_t d = 0; d < ppn; ++d) {
            const uint32_t h = (i + d) % ppn;  // its own head first, then the others in turn
            transfer(pos, engine, c, kNvlsUp, h, nvlsShare(c, loop, h), sent);
        }
    } else {
        // All-gather: the member's own share goes straight to the multicast; its SM gathers the loop.
        transfer(pos, engine, c, kNvlsStore, i, own, sent, false, loopBytes);
    }
    if (nvlsMulticasts()) {
        for (uint32_t h = 0; h < ppn; ++h) {
            expect(engine, pos, c, kNvlsMulticast, h, nvlsShare(c, loop, h),
                   makeCallback<&Op::slotGot>(this, pack(pos, c, slot)));
        }
    }
}

uint32_t NcclCollectives::Op::inNetworkReceipts(uint32_t pos, uint32_t c) const {
    if (collNet()) {
        return 2 * (m_heads - 1) + 1;  // the local shares, the total, the other heads' totals
    }
    uint32_t tree = 0;
    if (nvlsTree()) {
        const TreeLinks t = serverTree(groupOf(pos), c);
        tree = treeChildren(t) + (t.parent >= 0 ? 1 : 0);
    }
    return (nvlsReduces() ? 1 : 0) + (nvlsMulticasts() ? m_heads : 0) + tree;
}

void NcclCollectives::Op::nvlsReducedHere(uint64_t a) {
    if (nvlsTree()) {
        nvlsTreeSumIn(a);
        return;
    }
    const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
    if (nvlsMulticasts()) {
        nvlsStore(pos, c, slot);
    }
    slotGot(a);
}

void NcclCollectives::Op::nvlsStore(uint32_t pos, uint32_t c, uint32_t slot) {
    const uint32_t i = m_localOf[pos];
    transfer(pos, enginePos(groupOf(pos), 0), c, kNvlsStore, i,
             nvlsShare(c, m_members[pos].channels[c].slots[slot].step, i),
             makeCallback<&Op::slotSent>(this, pack(pos, c, slot)), false, 0);
}

void NcclCollectives::Op::nvlsTreeSumIn(uint64_t a) {
    const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
    Slot& s = m_members[pos].channels[c].slots[slot];
    const TreeLinks t = serverTree(groupOf(pos), c);
    if (++s.piece == 1 + treeChildren(t)) {
        const uint32_t i = m_localOf[pos];
        if (t.parent >= 0) {
            transfer(pos, headOf(static_cast<uint32_t>(t.parent), i), c, kTreeUp, i, nvlsShare(c, s.step, i),
                     makeCallback<&Op::slotSent>(this, pack(pos, c, slot)), false, 0);
        } else {
            nvlsTreeTotal(pos, c, slot);
        }
    }
    slotGot(a);
}

void NcclCollectives::Op::nvlsTreeTotal(uint32_t pos, uint32_t c, uint32_t slot) {
    const uint32_t i = m_localOf[pos];
    const uint64_t share = nvlsShare(c, m_members[pos].channels[c].slots[slot].step, i);
    const TreeLinks t = serverTree(groupOf(pos), c);
    for (int child : {t.child0, t.child1}) {
        if (child >= 0) {
            transfer(pos, headOf(static_cast<uint32_t>(child), i), c, kTreeDown, i, share,
                     makeCallback<&Op::slotSent>(this, pack(pos, c, slot)), false, 0);
        }
    }
    nvlsStore(pos, c, slot);
}

void NcclCollectives::Op::engineStart() {
    m_engineHeads.assign(std::size_t{m_choice.nChannels} * groups() * m_heads, EngineHead{});
    for (uint32_t c = 0; c < m_choice.nChannels; ++c) {
        for (uint32_t g = 0; g < groups(); ++g) {
            for (uint32_t h = 0; h < m_heads; ++h) {
                engineReducePost(c, g, h);
                if (!collNet()) {
                    engineStorePost(c, g, h);
                }
            }
        }
    }
}

void NcclCollectives::Op::engineReducePost(uint32_t c, uint32_t g, uint32_t h) {
    const EngineHead& e = engineHead(c, g, h);
    if (!nvlsReduces() || e.reduceLoop >= nvlsLoops(c)) {
        return;
    }
    for (uint32_t i = 0; i < contributors(g); ++i) {
        expect(contributor(g, h, i), enginePos(g, h), c, collNet() ? kCnUp : kNvlsUp, h,
               nvlsShare(c, e.reduceLoop, h), makeCallback<&Op::engineShareIn>(this, pack(h, c, 0, g)));
    }
}

void NcclCollectives::Op::engineShareIn(uint64_t a) {
    const uint32_t h = posOf(a), c = channelOf(a), g = extraOf(a);
    EngineHead& e = engineHead(c, g, h);
    if (++e.reduceGot < contributors(g)) {
        return;
    }
    ++m_owner.m_engine.reductions;
    const uint64_t share = nvlsShare(c, e.reduceLoop, h);
    if (collNet()) {
        // SHARP returns the total to every contributor.
        for (uint32_t i = 0; i < contributors(g); ++i) {
            transfer(enginePos(g, h), contributor(g, h, i), c, kCnDown, h, share, Callback{});
        }
    } else {
        transfer(enginePos(g, h), headOf(g, h), c, kNvlsReduced, h, share, Callback{});
    }
    e.reduceGot = 0;
    ++e.reduceLoop;
    engineReducePost(c, g, h);
}

void NcclCollectives::Op::engineStorePost(uint32_t c, uint32_t g, uint32_t h) {
    const EngineHead& e = engineHead(c, g, h);
    if (!nvlsMulticasts() || e.storeLoop >= nvlsLoops(c)) {
        return;
    }
    expect(headOf(g, h), enginePos(g, h), c, kNvlsStore, h, nvlsShare(c, e.storeLoop, h),
           makeCallback<&Op::engineStoreIn>(this, pack(h, c, 0, g)));
}

void NcclCollectives::Op::engineStoreIn(uint64_t a) {
    const uint32_t h = posOf(a), c = channelOf(a), g = extraOf(a);
    EngineHead& e = engineHead(c, g, h);
    const uint64_t share = nvlsShare(c, e.storeLoop, h);
    for (uint32_t d = 0; d < contributors(g); ++d) {
        transfer(enginePos(g, h), contributor(g, h, (h + d) % contributors(g)), c, kNvlsMulticast, h, share,
                 Callback{});
    }
    ++e.storeLoop;
    engineStorePost(c, g, h);
}

void NcclCollectives::Op::collNetStart(uint32_t pos, uint32_t c, uint32_t slot, uint32_t loop) {
    const uint32_t ppn = m_heads, i = m_localOf[pos];
    const std::vector<uint32_t>& local = m_servers[m_serverOf[pos]];
    Slot& s = m_members[pos].channels[c].slots[slot];
    s.step = loop;
    s.sendsLeft = 2 * (ppn - 1) + 1;
    s.received = 0;
    s.piece = 0;  // local shares summed so far, as head i
    const Callback sent = makeCallback<&Op::slotSent>(this, pack(pos, c, slot));
    const uint64_t own = nvlsShare(c, loop, i);
    expect(enginePos(0, i), pos, c, kCnDown, i, own,
           makeCallback<&Op::collNetTotal>(this, pack(pos, c, slot)));
    for (uint32_t j = 0; j < ppn; ++j) {
        if (j != i) {
            expect(local[j], pos, c, kCnScatter, i, own,
                   makeCallback<&Op::collNetShareIn>(this, pack(pos, c, slot)));
            expect(local[j], pos, c, kCnBcast, j, nvlsShare(c, loop, j),
                   makeCallback<&Op::slotGot>(this, pack(pos, c, slot)));
        }
    }
    // The SM handles the whole loop: its own share with the first send.
    bool first = true;
    for (uint32_t d = 1; d < ppn; ++d) {
        const uint32_t j = (i + d) % ppn;
        const uint64_t share = nvlsShare(c, loop, j);
        transfer(pos, local[j], c, kCnScatter, j, share, sent, false, share + (first ? own : 0));
        first = false;
    }
    if (ppn == 1) {
        collNetSummed(pos, c, slot);
    }
}

void NcclCollectives::Op::collNetShareIn(uint64_t a) {
    const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
    Slot& s = m_members[pos].channels[c].slots[slot];
    ++s.received;
    if (++s.piece == m_heads - 1) {
        collNetSummed(pos, c, slot);
    }
    slotMaybeDone(pos, c, slot);
}

void NcclCollectives::Op::collNetSummed(uint32_t pos, uint32_t c, uint32_t slot) {
    const uint32_t i = m_localOf[pos];
    transfer(pos, enginePos(0, i), c, kCnUp, i, nvlsShare(c, m_members[pos].channels[c].slots[slot].step, i),
             makeCallback<&Op::slotSent>(this, pack(pos, c, slot)), false, 0);
}

void NcclCollectives::Op::collNetTotal(uint64_t a) {
    const uint32_t pos = posOf(a), c = channelOf(a), slot = slotOf(a);
    Slot& s = m_members[pos].channels[c].slots[slot];
    const uint32_t i = m_localOf[pos];
    const std::vector<uint32_t>& local = m_servers[m_serverOf[pos]];
    for (uint32_t d = 1; d < m_heads; ++d) {
        transfer(pos, local[(i + d) % m_heads], c, kCnBcast, i, nvlsShare(c, s.step, i),
                 makeCallback<&Op::slotSent>(this, pack(pos, c, slot)), false, 0);
    }
    slotGot(a);
}

void NcclCollectives::Op::chainEnginePost(uint32_t c) {
    const EngineHead& e = m_chainEngine[c];
    if (e.reduceLoop >= nvlsLoops(c)) {
        return;
    }
    const uint32_t h = c % m_heads, slot = e.reduceLoop % m_depth;
    for (const std::vector<uint32_t>& server : m_servers) {
        expect(server[h], size() + h, c, kTreeUp, slot, pieceOf(c, e.reduceLoop),
               makeCallback<&Op::chainEngineIn>(this, pack(0, c, slot)));
    }
}

void NcclCollectives::Op::chainEngineIn(uint64_t a) {
    const uint32_t c = channelOf(a), slot = slotOf(a), h = c % m_heads;
    EngineHead& e = m_chainEngine[c];
    if (++e.reduceGot < m_servers.size()) {
        return;
    }
    ++m_owner.m_engine.reductions;
    for (const std::vector<uint32_t>& server : m_servers) {
        transfer(size() + h, server[h], c, kTreeDown, slot, pieceOf(c, e.reduceLoop), Callback{});
    }
    e.reduceGot = 0;
    ++e.reduceLoop;
    chainEnginePost(c);
}
}  // namespace mlnet::nccl

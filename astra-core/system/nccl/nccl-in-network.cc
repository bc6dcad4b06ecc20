#include "nccl-op.h"

#include <algorithm>
#include <map>

namespace mlnet::nccl {

uint64_t NcclCollectives::Op::nvlsShare(uint32_t c, uint32_t loop, uint32_t head) const {
    const uint64_t bytes = m_plans[c].bytes, perLoop = loopBytes();
    const uint64_t rest = bytes > uint64_t{loop} * perLoop ? bytes - uint64_t{loop} * perLoop : 0;
    const uint64_t inLoop = std::min(rest, perLoop);
    return inLoop / m_heads + (head < inLoop % m_heads ? 1 : 0);
}

void NcclCollectives::Op::nvlsStart(uint32_t pos, uint32_t c, uint32_t slot, uint32_t loop) {
    const uint32_t g = groupOf(pos), i = m_localOf[pos], ppn = m_heads;
    const uint32_t engine = enginePos(g);
    Slot& s = m_members[pos].channels[c].slots[slot];
    s.step = loop;
    s.received = 0;
    s.piece = 0;  // NVLS-Tree: the local sum and the children's sums in so far
    s.sendsLeft = (nvlsReduces() ? ppn : 0) + (nvlsMulticasts() ? 1 : 0);
    const Callback sent = makeCallback<&Op::slotSent>(this, pack(pos, c, slot));
    if (m_loopCostNs > 0) {
        // The kernel's fixed cost of a loop, on the SM before the loop's first store.
        TimePs& free = smFree(pos, c, kNvlsUp);
        free = addPs(std::max(free, m_owner.m_network.nowPs()), nsToPs(m_loopCostNs));
    }
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
    transfer(pos, enginePos(groupOf(pos)), c, kNvlsStore, i,
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
    if (collNet()) {
        reductionTreeStart();
        return;
    }
    m_engineHeads.assign(std::size_t{m_choice.nChannels} * groups() * m_heads, EngineHead{});
    for (uint32_t c = 0; c < m_choice.nChannels; ++c) {
        for (uint32_t g = 0; g < groups(); ++g) {
            for (uint32_t h = 0; h < m_heads; ++h) {
                engineReducePost(c, g, h);
                engineStorePost(c, g, h);
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
        expect(m_servers[g][i], enginePos(g), c, kNvlsUp, h, nvlsShare(c, e.reduceLoop, h),
               makeCallback<&Op::engineShareIn>(this, pack(h, c, 0, g)));
    }
}

void NcclCollectives::Op::engineShareIn(uint64_t a) {
    const uint32_t h = posOf(a), c = channelOf(a), g = extraOf(a);
    EngineHead& e = engineHead(c, g, h);
    if (++e.reduceGot < contributors(g)) {
        return;
    }
    ++m_owner.m_engine.reductions;
    transfer(enginePos(g), headOf(g, h), c, kNvlsReduced, h, nvlsShare(c, e.reduceLoop, h), Callback{});
    e.reduceGot = 0;
    ++e.reduceLoop;
    engineReducePost(c, g, h);
}

void NcclCollectives::Op::engineStorePost(uint32_t c, uint32_t g, uint32_t h) {
    const EngineHead& e = engineHead(c, g, h);
    if (!nvlsMulticasts() || e.storeLoop >= nvlsLoops(c)) {
        return;
    }
    expect(headOf(g, h), enginePos(g), c, kNvlsStore, h, nvlsShare(c, e.storeLoop, h),
           makeCallback<&Op::engineStoreIn>(this, pack(h, c, 0, g)));
}

void NcclCollectives::Op::engineStoreIn(uint64_t a) {
    const uint32_t h = posOf(a), c = channelOf(a), g = extraOf(a);
    EngineHead& e = engineHead(c, g, h);
    const uint64_t share = nvlsShare(c, e.storeLoop, h);
    for (uint32_t d = 0; d < contributors(g); ++d) {
        transfer(enginePos(g), m_servers[g][(h + d) % contributors(g)], c, kNvlsMulticast, h, share,
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
    expect(size() + m_leafNodeOf[pos], pos, c, kCnDown, i, own,
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
    transfer(pos, size() + m_leafNodeOf[pos], c, kCnUp, i,
             nvlsShare(c, m_members[pos].channels[c].slots[slot].step, i),
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

void NcclCollectives::Op::planReductionTree(const NcclTopology& topo, const std::vector<Rank>& members) {
    const uint32_t base = m_owner.m_network.numRanks();
    m_nodes.clear();
    m_engines.clear();
    m_leafNodeOf.assign(size(), 0);
    const auto addNode = [&](uint32_t h, int engine) {
        m_nodes.push_back(ReductionNode{h, -1, {}});
        m_engines.push_back(base + static_cast<uint32_t>(engine));
        return static_cast<uint32_t>(m_nodes.size() - 1);
    };
    for (uint32_t h = 0; h < m_heads; ++h) {
        std::vector<int> leaves;
        for (const std::vector<uint32_t>& server : m_servers) {
            leaves.push_back(topo.netEngineOf(members[server[h]]));
        }
        // The communicator's shape allowed CollNet, so the root exists.
        const int root = topo.reductionRoot(leaves, h);
        const bool oneSwitch = root == leaves[0];  // else the root is a switch above the leaves
        const uint32_t top = addNode(h, root);
        std::map<int, uint32_t> leafNode;
        for (std::size_t k = 0; k < m_servers.size(); ++k) {
            const uint32_t pos = m_servers[k][h];
            uint32_t node = top;
            if (!oneSwitch) {
                const auto [it, added] = leafNode.emplace(leaves[k], 0);
                if (added) {
                    it->second = addNode(h, leaves[k]);
                    m_nodes[it->second].parent = static_cast<int>(top);
                    m_nodes[top].children.push_back(size() + it->second);
                }
                node = it->second;
            }
            m_nodes[node].children.push_back(pos);
            m_leafNodeOf[pos] = node;
        }
    }
}

void NcclCollectives::Op::reductionTreeStart() {
    m_nodeState.assign(std::size_t{m_choice.nChannels} * m_nodes.size(), EngineHead{});
    for (uint32_t c = 0; c < m_choice.nChannels; ++c) {
        for (uint32_t node = 0; node < m_nodes.size(); ++node) {
            // Chain: channel c runs through its heads c % ppn only.
            if (!collNetChain() || m_nodes[node].head == c % m_heads) {
                nodePost(c, node);
            }
        }
    }
}

NcclCollectives::Op::NodePart NcclCollectives::Op::nodePart(uint32_t c, uint32_t loop, uint32_t h) const {
    if (collNetChain()) {
        return {kTreeUp, kTreeDown, loop % m_depth, pieceOf(c, loop)};
    }
    return {kCnUp, kCnDown, h, nvlsShare(c, loop, h)};
}

void NcclCollectives::Op::nodePost(uint32_t c, uint32_t node) {
    const EngineHead& e = nodeState(c, node);
    if (e.reduceLoop >= nvlsLoops(c)) {
        return;
    }
    const ReductionNode& n = m_nodes[node];
    const NodePart part = nodePart(c, e.reduceLoop, n.head);
    for (const uint32_t child : n.children) {
        expect(child, size() + node, c, part.up, part.slot, part.bytes,
               makeCallback<&Op::nodePartIn>(this, pack(node, c, 0)));
    }
    if (n.parent >= 0) {
        expect(size() + static_cast<uint32_t>(n.parent), size() + node, c, part.down, part.slot, part.bytes,
               makeCallback<&Op::nodeTotalIn>(this, pack(node, c, 0)));
    }
}

void NcclCollectives::Op::nodePartIn(uint64_t a) {
    const uint32_t node = posOf(a), c = channelOf(a);
    const ReductionNode& n = m_nodes[node];
    EngineHead& e = nodeState(c, node);
    if (++e.reduceGot < n.children.size()) {
        return;
    }
    ++m_owner.m_engine.reductions;
    const NodePart part = nodePart(c, e.reduceLoop, n.head);
    if (n.parent >= 0) {
        transfer(size() + node, size() + static_cast<uint32_t>(n.parent), c, part.up, part.slot, part.bytes,
                 Callback{});
    } else {
        // SHARP returns the total to every contributor.
        for (const uint32_t child : n.children) {
            transfer(size() + node, child, c, part.down, part.slot, part.bytes, Callback{});
        }
    }
    e.reduceGot = 0;
    ++e.reduceLoop;
    nodePost(c, node);
}

void NcclCollectives::Op::nodeTotalIn(uint64_t a) {
    const uint32_t node = posOf(a), c = channelOf(a);
    const ReductionNode& n = m_nodes[node];
    EngineHead& e = nodeState(c, node);
    const NodePart part = nodePart(c, e.storeLoop, n.head);
    for (const uint32_t child : n.children) {
        transfer(size() + node, child, c, part.down, part.slot, part.bytes, Callback{});
    }
    ++e.storeLoop;
}

}  // namespace mlnet::nccl

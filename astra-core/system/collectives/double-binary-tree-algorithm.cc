#include "double-binary-tree-algorithm.h"

namespace mlnet {

namespace {

struct TreeLinks {
    int parent = -1;
    int children[2] = {-1, -1};
    int childCount = 0;
};

// Complete in-order tree over [lo, hi]; records the links of `target`.
void inorder(uint32_t lo, uint32_t hi, int parent, uint32_t target, TreeLinks& out) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (mid == target) {
        out.parent = parent;
        if (lo < mid) {
            out.children[out.childCount++] = static_cast<int>(lo + (mid - 1 - lo) / 2);
        }
        if (mid < hi) {
            out.children[out.childCount++] = static_cast<int>(mid + 1 + (hi - mid - 1) / 2);
        }
        return;
    }
    if (target < mid) {
        inorder(lo, mid - 1, static_cast<int>(mid), target, out);
    } else {
        inorder(mid + 1, hi, static_cast<int>(mid), target, out);
    }
}

TreeLinks treeLinks(uint32_t n, uint32_t position, bool rootAtFirst) {
    TreeLinks links;
    const uint32_t root = rootAtFirst ? 0 : n - 1;
    const uint32_t lo = rootAtFirst ? 1 : 0;
    const uint32_t hi = rootAtFirst ? n - 1 : n - 2;
    const uint32_t top = lo + (hi - lo) / 2;
    if (position == root) {
        links.children[links.childCount++] = static_cast<int>(top);
        return links;
    }
    inorder(lo, hi, static_cast<int>(root), position, links);
    return links;
}

}  // namespace

void DoubleBinaryTreeAlgorithm::onStart() {
    const PhaseSpec& p = spec();
    const TreeLinks links = treeLinks(p.peers.size, p.peers.position, run().chunkSeq % 2 == 1);
    m_isRoot = links.parent < 0;
    m_parent = m_isRoot ? 0 : p.peers.at(static_cast<uint32_t>(links.parent));
    m_childCount = static_cast<uint32_t>(links.childCount);
    for (uint32_t c = 0; c < m_childCount; ++c) {
        m_children[c] = p.peers.at(static_cast<uint32_t>(links.children[c]));
    }
    m_childrenProcessed = 0;
    m_messageBytes = p.inputBytes;
    if (m_childCount == 0) {
        after(p.endpointDelayNs, makeCallback<&DoubleBinaryTreeAlgorithm::leafSend>(this));
        return;
    }
    for (uint32_t c = 0; c < m_childCount; ++c) {
        recv(m_children[c], m_messageBytes, makeCallback<&DoubleBinaryTreeAlgorithm::onChildReceipt>(this));
    }
}

void DoubleBinaryTreeAlgorithm::leafSend(uint64_t) {
    send(m_parent, m_messageBytes);
    recv(m_parent, m_messageBytes, makeCallback<&DoubleBinaryTreeAlgorithm::finishAfterDelay>(this));
}

void DoubleBinaryTreeAlgorithm::onChildReceipt(uint64_t) {
    after(endpointDelayNs() + reductionNs(m_messageBytes),
          makeCallback<&DoubleBinaryTreeAlgorithm::onChildProcessed>(this));
}

void DoubleBinaryTreeAlgorithm::onChildProcessed(uint64_t) {
    if (++m_childrenProcessed < m_childCount) {
        return;
    }
    if (m_isRoot) {
        broadcast(0);  // the root turns the reduction around
        return;
    }
    send(m_parent, m_messageBytes);
    recv(m_parent, m_messageBytes, makeCallback<&DoubleBinaryTreeAlgorithm::onParentReceipt>(this));
}

void DoubleBinaryTreeAlgorithm::onParentReceipt(uint64_t) {
    // ASTRA-sim charges the reduction again on the broadcast coming down.
    after(endpointDelayNs() + reductionNs(m_messageBytes),
          makeCallback<&DoubleBinaryTreeAlgorithm::broadcast>(this));
}

void DoubleBinaryTreeAlgorithm::broadcast(uint64_t) {
    for (uint32_t c = 0; c < m_childCount; ++c) {
        send(m_children[c], m_messageBytes);
    }
    finish();
}

void DoubleBinaryTreeAlgorithm::finishAfterDelay(uint64_t) {
    finishAfter(endpointDelayNs());
}

}  // namespace mlnet

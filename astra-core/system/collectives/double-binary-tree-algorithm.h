// Double binary tree: the whole chunk is reduced up a tree and broadcast back down it. Chunks alternate
// between two trees over the same positions (n a power of two), each a root with one child above a complete
// binary tree numbered in order: tree 0 has its root at the last position, tree 1 at the first.
#ifndef MLNET_SYSTEM_COLLECTIVES_DOUBLE_BINARY_TREE_ALGORITHM_H
#define MLNET_SYSTEM_COLLECTIVES_DOUBLE_BINARY_TREE_ALGORITHM_H

#include "system/collectives/phase-algorithm.h"

namespace mlnet {

class DoubleBinaryTreeAlgorithm final : public PhaseAlgorithm {
private:
    void onStart() override;
    void leafSend(uint64_t);
    void onChildReceipt(uint64_t);
    void onChildProcessed(uint64_t);
    void onParentReceipt(uint64_t);
    void broadcast(uint64_t);
    void finishAfterDelay(uint64_t);

    // Resolved once per phase; every step of the phase walks the same links.
    Rank m_parent = 0;
    bool m_isRoot = false;
    Rank m_children[2] = {0, 0};
    uint32_t m_childCount = 0;
    uint32_t m_childrenProcessed = 0;
    uint64_t m_messageBytes = 0;
};

}  // namespace mlnet

#endif

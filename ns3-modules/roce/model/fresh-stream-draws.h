// Uniform draws as the HPCC reference simulator makes them for its ECN marks. It builds a temporary
// UniformVariable for every marking decision, and in its ns-3 (3.17) each such object opens a new random
// stream on its first draw: the draw is the first number of stream k, where k counts every stream the run
// opened before (its setup's, the earlier marks', and one per PFC frame, whose IP id it draws the same way).
// Replaying that numbering reproduces its marks exactly wherever the two runs dequeue in the same order.
#ifndef MLNET_ROCE_FRESH_STREAM_DRAWS_H
#define MLNET_ROCE_FRESH_STREAM_DRAWS_H

#include <cstdint>

namespace mlnet::roce {

class FreshStreamDraws {
public:
    // seed and run: ns-3's RngSeedManager values (the reference never changes them: 1 and 1).
    FreshStreamDraws(uint32_t seed, uint64_t run, uint64_t firstStream)
        : m_seed(seed), m_run(run), m_next(firstStream) {}

    // The first number in [0, 1) of the next stream (MRG32k3a, ns-3's RngStream).
    double Next();
    // The next stream goes to something that is not modelled (a PFC frame's IP id).
    void Skip() { ++m_next; }
    uint64_t NextStream() const { return m_next; }

    // The streams the reference's setup opens before its first draw: 6 per node (its internet stack), 2 for
    // the error model every link shares and 2 more per link with a loss rate of its own. Read from its runs:
    // 218 on the k=4 fat-tree (36 nodes), 1250 on k=8 (208), 2258 on the 320-host one (376).
    static uint64_t ReferenceFirstStream(uint64_t nodes, uint64_t lossyLinks) {
        return 2 + 6 * nodes + 2 * lossyLinks;
    }

private:
    uint32_t m_seed;
    uint64_t m_run;
    uint64_t m_next;
};

}  // namespace mlnet::roce

#endif

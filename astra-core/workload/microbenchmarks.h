// Synthetic trace sets with a known structure: the workloads of scaling studies, examples and tests. Every
// function throws std::invalid_argument with the offending argument named when its arguments describe no
// valid workload (no ranks, zero sizes, zero repetitions).
#ifndef MLNET_WORKLOAD_MICROBENCHMARKS_H
#define MLNET_WORKLOAD_MICROBENCHMARKS_H

#include "trace-types.h"
#include "trace-writer.h"

#include <cstdint>

namespace mlnet::microbench {

// One collective per rank on the world group, as in ASTRA-sim's microbenchmarks. sizeBytes is comm_size (for
// ALL_GATHER the per-rank input shard).
TraceSetBuilder collective(CollectiveType type, uint32_t numRanks, uint64_t sizeBytes);

// Per rank: compute, collective, compute, collective, ..., compute: `layers` compute/collective pairs and a
// final compute, each node depending on the previous one, so communication never overlaps computation.
TraceSetBuilder computeCollectiveChain(uint32_t numRanks, CollectiveType type, uint64_t sizeBytes,
                                       uint64_t computeMicros, uint32_t layers);

// `rounds` rounds of every rank sending to (r+1)%n and receiving from (r-1+n)%n with tag = round; a round's
// send and receive wait for the previous round's receive. Needs numRanks >= 2.
TraceSetBuilder p2pRing(uint32_t numRanks, uint64_t sizeBytes, uint32_t rounds);

// GPipe schedule over `stages` ranks (stage s = rank s): all forwards for microbatches 0..M-1, then all
// backwards for M-1..0. Forward m on stage s receives the activation from s-1, computes, and sends to s+1;
// backward m receives the gradient from s+1, computes, and sends to s-1. Tags are 2m (forward) and 2m+1
// (backward). Forward and backward computes take computeMicros each and run one at a time per stage. Needs
// stages >= 2.
TraceSetBuilder pipeline(uint32_t stages, uint32_t microbatches, uint64_t activationBytes,
                         uint64_t computeMicros);

// One data-parallel training step per rank: forward layers 0..L-1, then backward layers L-1..0 where each
// backward compute is followed by an ALL_REDUCE of that layer's gradients, which overlaps the next backward
// compute; an optimizer compute of forwardMicros waits for every all-reduce.
TraceSetBuilder dataParallelStep(uint32_t numRanks, uint32_t layers, uint64_t gradientBytesPerLayer,
                                 uint64_t forwardMicros, uint64_t backwardMicros);

}  // namespace mlnet::microbench

#endif

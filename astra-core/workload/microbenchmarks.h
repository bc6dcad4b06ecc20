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

// One DLRM-like training step per rank (model-parallel embeddings, data-parallel MLPs): bottom-MLP forward,
// an ALL_TO_ALL of embeddingBytes (looked-up embeddings to their consumers), interaction and top-MLP forward,
// top-MLP backward, then the ALL_TO_ALL of embedding gradients overlapping the bottom-MLP backward, an
// ALL_REDUCE of denseGradientBytes (the MLPs' gradients) after it, and an optimizer compute waiting for both.
// Backward computes take twice computeMicros.
TraceSetBuilder dlrmStep(uint32_t numRanks, uint64_t embeddingBytes, uint64_t denseGradientBytes,
                         uint64_t computeMicros);

// One Transformer-like hybrid-parallel step (Megatron-style tensor parallelism inside groups of
// `tensorParallel` consecutive ranks, data parallelism across them): per layer forward, a compute and two
// ALL_REDUCEs of activationBytes on the rank's tensor-parallel group (after attention and after the MLP);
// per layer backward (last layer first), a compute of twice computeMicros and two tensor-parallel
// ALL_REDUCEs, then the layer's gradients (gradientBytesPerLayer) ALL_REDUCEd on the rank's data-parallel
// group (the ranks at the same position of every tensor-parallel group), overlapping the next layer's
// backward; an optimizer compute waits for every gradient all-reduce. Groups are declared in every rank's
// file as PyTorch's process- group METADATA node: tensor-parallel group g (ranks g*t .. g*t+t-1) has id 1 +
// g, data-parallel group p (ranks p, p+t, ...) id 1 + numRanks/t + p. numRanks must be a multiple of
// tensorParallel.
TraceSetBuilder hybridParallelStep(uint32_t numRanks, uint32_t tensorParallel, uint32_t layers,
                                   uint64_t activationBytes, uint64_t gradientBytesPerLayer,
                                   uint64_t computeMicros);

}  // namespace mlnet::microbench

#endif

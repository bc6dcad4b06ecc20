// Writes one training step (or several) of a model under a parallel plan as every rank's Chakra trace, and
// accounts for what it does: FLOPs, bytes per collective type and communicator kind, the pipeline bubble and
// each rank's memory. A rank's trace is a chain of GPU kernels (timed by gpu-spec.h's roofline) with the
// communication Megatron-LM issues where it issues it:
//   - per layer, TP collectives on the critical path (all-gather + reduce-scatter with sequence parallelism,
//     all-reduce without), EP all-to-all dispatch and combine around the experts, CP ring exchanges of K/V
//     (or an all-gather) around the attention kernels, FSDP parameter all-gathers before the forward and the
//     backward and gradient reduce-scatters after it (ZeRO-3);
//   - between stages, activations and gradients as SEND/RECV in the order of the 1F1B or interleaved
//   schedule;
//   - after the last micro-batch's backward, gradient buckets (reverse layer order) all-reduced (ZeRO-0) or
//     reduce-scattered (ZeRO-1/2) over the data-parallel ranks as soon as their layers are done, overlapping
//     the rest of the backward; the optimizer step; the parameters all-gathered back (ZeRO-1/2).
// Compute nodes carry whole microseconds (Chakra's duration_micros), rounded with the remainder carried so a
// rank's total stays exact.
#ifndef MLNET_WORKLOAD_GENERATOR_STEP_BUILDER_H
#define MLNET_WORKLOAD_GENERATOR_STEP_BUILDER_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gpu-spec.h"
#include "model-spec.h"
#include "parallel-plan.h"
#include "workload/trace-writer.h"

namespace mlnet::workload {

// Per-rank memory at the step's peak, in bytes.
struct RankMemory {
    uint64_t weights = 0, gradients = 0, optimizer = 0, activations = 0, other = 0;
    uint64_t total() const { return weights + gradients + optimizer + activations + other; }
};

struct StepStats {
    double modelFlops = 0;     // per step, all ranks, the MFU convention (attention not halved by causality)
    double executedFlops = 0;  // what the kernels run (causal attention, recomputation)
    // comm_size summed over ranks, by "<COLLECTIVE> <group kind>" ("ALL_GATHER tp", "SEND pp").
    std::map<std::string, uint64_t> commBytes;
    std::map<std::string, uint64_t> commCount;
    double computeMicrosMax = 0;     // the busiest rank's kernel time per step
    double bubbleFraction = 0;       // (pp - 1) / (m vpp + pp - 1): the idle share of a stage in the schedule
    std::vector<RankMemory> memory;  // per rank
};

class StepBuilder {
public:
    // `measured` may be null. The plan must have passed resolvePlan.
    StepBuilder(const ModelSpec& model, const ParallelPlan& plan, const GpuSpec& gpu,
                const MeasuredTimes* measured);

    const RankLayout& layout() const { return m_layout; }
    // The rank's whole trace; adds its share to `stats` when given.
    RankTraceBuilder buildRank(Rank rank, StepStats* stats) const;
    // Memory of a rank at its peak (weights, gradients and optimizer states by the ZeRO stage, activations of
    // the micro-batches in flight under the schedule).
    RankMemory memoryOf(Rank rank) const;

    // Per micro-batch: tokens a rank's layer computes on (micro-batch x sequence / cp).
    uint64_t tokensPerRank() const;

private:
    class RankWriter;
    friend class RankWriter;

    const ModelSpec& m_model;
    const ParallelPlan& m_plan;
    const GpuSpec& m_gpu;
    const MeasuredTimes* m_measured;
    RankLayout m_layout;
};

}  // namespace mlnet::workload

#endif

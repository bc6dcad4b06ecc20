// How a training step is split over GPUs, as Megatron-LM splits it: tensor (TP, with or without sequence
// parallelism), pipeline (PP, 1F1B or interleaved with VPP virtual stages), data (DP, with ZeRO-1/2/3 or
// FSDP), context (CP) and expert (EP) parallelism; global batch, micro-batch and gradient accumulation; and
// the rank order (Megatron's tp-cp-ep-dp-pp by default, TP fastest, so that TP groups fall inside a server).
// The plan names every rank's coordinates and communicators, and every rank's pipeline schedule.
#ifndef MLNET_WORKLOAD_GENERATOR_PARALLEL_PLAN_H
#define MLNET_WORKLOAD_GENERATOR_PARALLEL_PLAN_H

#include <cstdint>
#include <string>
#include <vector>

#include "model-spec.h"
#include "util/diagnostics.h"
#include "workload/trace-types.h"

namespace mlnet::workload {

enum class Recompute : uint8_t { None, Selective, Full };
enum class CpComm : uint8_t { Ring, AllGather };

struct ParallelPlan {
    uint32_t gpus = 0;
    uint32_t tp = 1, pp = 1, dp = 0, cp = 1, ep = 1, vpp = 1;  // dp 0: gpus / (tp cp pp)
    bool sequenceParallel = true;                              // with tp > 1
    // Transformer Engine's overlap of the sequence-parallel all-gather and reduce-scatter with the GEMMs
    // they feed and drain (NeMo's tp_comm_overlap).
    bool tpCommOverlap = false;
    // ZeRO stage of the data-parallel optimizer: 0 plain all-reduce, 1 sharded optimizer states (Megatron's
    // distributed optimizer), 2 also gradients, 3 also parameters (FSDP: gathered per layer).
    uint32_t zero = 1;
    uint64_t globalBatch = 0, microBatch = 1;
    uint64_t sequence = 0;  // 0: the model's
    std::string order = "tp-cp-ep-dp-pp";
    Recompute recompute = Recompute::None;
    CpComm cpComm = CpComm::Ring;
    uint64_t bucketParams = 40'000'000;  // parameters per gradient bucket (Megatron's DDP default)
    uint32_t steps = 1;
    // From the model (resolvePlan): which communicators exist.
    bool experts = false, tiedEmbeddings = false;

    uint64_t gradientAccumulation() const { return globalBatch / (microBatch * dp); }
};

// Checks the plan against the model and fills the derived fields (dp, sequence); errors name the option.
bool resolvePlan(const ModelSpec& model, ParallelPlan& plan, Diagnostics& diag);

// A rank's place in the plan.
struct RankCoords {
    uint32_t tp = 0, cp = 0, dp = 0, pp = 0;
    uint32_t ep = 0, edp = 0;  // expert layers: expert-parallel index and expert-data-parallel index
};

// The communicators of a step, each with the ranks it spans (in rank order) and an id for the trace.
struct Communicator {
    GroupId id = 0;
    // tp, cp, dp (dense gradients: dp x cp ranks), ep, edp (expert gradients; MoE models), embedding (the
    // first and last stages, with tied embeddings)
    std::string kind;
    std::vector<Rank> ranks;
};

class RankLayout {
public:
    explicit RankLayout(const ParallelPlan& plan);

    uint32_t numRanks() const { return m_plan.gpus; }
    RankCoords coords(Rank rank) const;
    Rank rankOf(const RankCoords& c) const;  // uses tp, cp, dp, pp
    // The rank's communicator of a kind (kind as in Communicator; "embedding" only on the first and last
    // stage with tied embeddings); nullptr when the rank has none or the group would be one rank.
    const Communicator* group(Rank rank, const std::string& kind) const;
    const std::vector<Communicator>& communicators() const { return m_groups; }
    // The communicators a rank belongs to (what its trace declares).
    std::vector<const Communicator*> groupsOf(Rank rank) const;

private:
    const ParallelPlan& m_plan;
    std::vector<std::string> m_order;  // dims fastest first: tp, cp, dp, pp
    std::vector<Communicator> m_groups;
    // Per rank, the index into m_groups of each kind (UINT32_MAX: none).
    std::vector<std::vector<uint32_t>> m_rankGroup;
    std::vector<std::string> m_kinds;
};

// One step of a pipeline schedule: a forward or backward pass of a micro-batch through a model chunk (the
// virtual stage chunk * pp + stage).
struct ScheduleStep {
    bool backward = false;
    uint32_t microBatch = 0;
    uint32_t chunk = 0;
};

// Megatron's 1F1B (vpp 1: warm-up of pp - stage - 1 forwards, steady one-forward-one-backward, cool-down) or
// its interleaved schedule (vpp > 1; the micro-batches a multiple of pp), for one pipeline stage.
std::vector<ScheduleStep> pipelineSchedule(uint32_t stage, uint32_t pp, uint32_t vpp, uint32_t microBatches);

// Layers [first, first + count) of virtual stage `virtualStage` of pp * vpp (as even as the layer count
// allows; earlier virtual stages take the remainder).
struct LayerRange {
    uint32_t first = 0, count = 0;
};
LayerRange layersOfVirtualStage(uint32_t layers, uint32_t virtualStages, uint32_t virtualStage);

}  // namespace mlnet::workload

#endif

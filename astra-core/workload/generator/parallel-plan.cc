#include "parallel-plan.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace mlnet::workload {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> parts;
    std::stringstream in(text);
    for (std::string part; std::getline(in, part, sep);) {
        parts.push_back(part);
    }
    return parts;
}

}  // namespace

bool resolvePlan(const ModelSpec& model, ParallelPlan& plan, Diagnostics& diag) {
    const std::size_t errors = diag.errorCount();
    auto fail = [&](const std::string& option, const std::string& what) { diag.error(option + ": " + what); };
    std::vector<std::string> order = split(plan.order, '-');
    std::vector<std::string> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    if (sorted != std::vector<std::string>{"cp", "dp", "ep", "pp", "tp"}) {
        fail("--order=" + plan.order,
             "expected the five dimensions tp, cp, ep, dp, pp once each, fastest first");
    }
    const uint64_t modelParallel = uint64_t{plan.tp} * plan.cp * plan.pp;
    if (plan.gpus == 0 || modelParallel == 0 || plan.gpus % modelParallel != 0) {
        fail("--gpus=" + std::to_string(plan.gpus),
             "not a multiple of tp x cp x pp = " + std::to_string(modelParallel));
        return false;
    }
    const uint32_t dp = static_cast<uint32_t>(plan.gpus / modelParallel);
    if (plan.dp != 0 && plan.dp != dp) {
        fail("--dp=" + std::to_string(plan.dp),
             "tp x cp x pp x dp must be --gpus: expected dp " + std::to_string(dp));
    }
    plan.dp = dp;
    plan.sequence = plan.sequence ? plan.sequence : model.sequence;
    plan.experts = model.moe.experts > 0;
    plan.tiedEmbeddings = model.tiedEmbeddings;
    plan.sequenceParallel = plan.sequenceParallel && plan.tp > 1;
    if (plan.globalBatch == 0) {
        plan.globalBatch = uint64_t{plan.microBatch} * dp;
    }
    if (plan.globalBatch % (plan.microBatch * dp) != 0) {
        fail("--global-batch=" + std::to_string(plan.globalBatch),
             "not a multiple of micro-batch x dp = " + std::to_string(plan.microBatch * dp));
    }
    if (model.heads % plan.tp != 0) {
        fail("--tp=" + std::to_string(plan.tp),
             "does not divide the model's " + std::to_string(model.heads) + " heads");
    }
    if (plan.tp > model.kvHeads ? plan.tp % model.kvHeads != 0 : model.kvHeads % plan.tp != 0) {
        fail("--tp=" + std::to_string(plan.tp),
             "and the model's " + std::to_string(model.kvHeads) + " KV heads: one must divide the other");
    }
    if (plan.vpp > 1 && model.layers % (plan.pp * plan.vpp) != 0) {
        fail("--vpp=" + std::to_string(plan.vpp),
             "pp x vpp = " + std::to_string(plan.pp * plan.vpp) + " does not divide the " +
                 std::to_string(model.layers) + " layers (the interleaved schedule needs equal chunks)");
    }
    if (plan.pp * plan.vpp > model.layers) {
        fail("--pp=" + std::to_string(plan.pp),
             "more pipeline stages than the model's " + std::to_string(model.layers) + " layers");
    }
    if (plan.vpp > 1 && (plan.pp < 2 || plan.gradientAccumulation() % plan.pp != 0)) {
        fail("--vpp=" + std::to_string(plan.vpp),
             "the interleaved schedule needs pp > 1 and micro-batches per step (" +
                 std::to_string(plan.gradientAccumulation()) + ") a multiple of pp");
    }
    const uint64_t shards = uint64_t{plan.cp} * 2 * (plan.sequenceParallel ? plan.tp : 1);
    if (plan.sequence % shards != 0) {
        fail("--seq=" + std::to_string(plan.sequence), "not a multiple of " + std::to_string(shards) +
                                                           " (2 x cp chunks for load-balanced context "
                                                           "parallelism, x tp with sequence parallelism)");
    }
    if (plan.ep > 1 && model.moe.experts == 0) {
        fail("--ep=" + std::to_string(plan.ep), "expert parallelism needs a mixture-of-experts model");
    }
    if (model.moe.experts > 0 && model.moe.experts % plan.ep != 0) {
        fail("--ep=" + std::to_string(plan.ep),
             "does not divide the " + std::to_string(model.moe.experts) + " experts");
    }
    if ((uint64_t{dp} * plan.cp) % plan.ep != 0) {
        fail("--ep=" + std::to_string(plan.ep),
             "does not divide dp x cp = " + std::to_string(uint64_t{dp} * plan.cp) +
                 " (expert groups are carved from the data-parallel ranks)");
    }
    if (plan.zero > 3) {
        fail("--zero=" + std::to_string(plan.zero), "expected 0, 1, 2 or 3");
    }
    if (model.moe.experts > 0 && plan.tp > 1 && !plan.sequenceParallel) {
        fail("--no-sequence-parallel",
             "tensor parallelism with experts needs sequence parallelism (as Megatron)");
    }
    return diag.errorCount() == errors;
}

RankLayout::RankLayout(const ParallelPlan& plan) : m_plan(plan) {
    for (const std::string& d : split(plan.order, '-')) {
        if (d != "ep") {
            m_order.push_back(d);
        }
    }
    m_kinds = {"tp", "cp", "dp", "ep", "edp", "pp", "embedding"};
    m_rankGroup.assign(plan.gpus, std::vector<uint32_t>(m_kinds.size(), UINT32_MAX));
    // Ranks grouped by every coordinate but the varying ones: one communicator per distinct rest.
    auto build = [&](uint32_t kindIndex, auto key) {
        std::map<std::vector<uint32_t>, uint32_t> byKey;
        for (Rank r = 0; r < plan.gpus; ++r) {
            const std::optional<std::vector<uint32_t>> k = key(coords(r));
            if (!k) {
                continue;
            }
            auto [it, added] = byKey.emplace(*k, static_cast<uint32_t>(m_groups.size()));
            if (added) {
                m_groups.push_back(
                    Communicator{static_cast<GroupId>(m_groups.size() + 1), m_kinds[kindIndex], {}});
            }
            m_groups[it->second].ranks.push_back(r);
            m_rankGroup[r][kindIndex] = it->second;
        }
    };
    using Key = std::optional<std::vector<uint32_t>>;
    build(0, [](const RankCoords& c) -> Key { return std::vector<uint32_t>{c.cp, c.dp, c.pp}; });
    build(1, [](const RankCoords& c) -> Key { return std::vector<uint32_t>{c.tp, c.dp, c.pp}; });
    build(2, [](const RankCoords& c) -> Key { return std::vector<uint32_t>{c.tp, c.pp}; });  // dp x cp
    // Expert communicators only for expert layers; pipeline neighbours talk point to point (no communicator);
    // the embedding group only where the first and last stages share tied embeddings.
    if (plan.experts) {
        build(3, [](const RankCoords& c) -> Key { return std::vector<uint32_t>{c.tp, c.edp, c.pp}; });
        build(4, [](const RankCoords& c) -> Key { return std::vector<uint32_t>{c.tp, c.ep, c.pp}; });
    }
    const uint32_t lastStage = plan.pp - 1;
    if (plan.tiedEmbeddings) {
        build(6, [lastStage](const RankCoords& c) -> Key {
            if (lastStage == 0 || (c.pp != 0 && c.pp != lastStage)) {
                return std::nullopt;
            }
            return std::vector<uint32_t>{c.tp, c.cp, c.dp};
        });
    }
    // One-rank groups carry no traffic: dropped (their ranks point at none).
    std::vector<int64_t> newIndex(m_groups.size(), -1);
    std::vector<Communicator> kept;
    for (std::size_t g = 0; g < m_groups.size(); ++g) {
        if (m_groups[g].ranks.size() > 1) {
            newIndex[g] = static_cast<int64_t>(kept.size());
            kept.push_back(std::move(m_groups[g]));
            kept.back().id = static_cast<GroupId>(kept.size());
        }
    }
    m_groups = std::move(kept);
    for (auto& perRank : m_rankGroup) {
        for (uint32_t& g : perRank) {
            g = g == UINT32_MAX || newIndex[g] < 0 ? UINT32_MAX : static_cast<uint32_t>(newIndex[g]);
        }
    }
}

RankCoords RankLayout::coords(Rank rank) const {
    RankCoords c;
    uint32_t rest = rank;
    for (const std::string& d : m_order) {
        const uint32_t size = d == "tp"   ? m_plan.tp
                              : d == "cp" ? m_plan.cp
                              : d == "dp" ? m_plan.dp
                                          : m_plan.pp;
        (d == "tp" ? c.tp : d == "cp" ? c.cp : d == "dp" ? c.dp : c.pp) = rest % size;
        rest /= size;
    }
    // Expert layers re-cut the data ranks (dp x cp, cp fastest) into ep x edp, in the order's ep/dp order.
    const uint32_t data = c.cp + m_plan.cp * c.dp;
    const uint32_t edpSize = m_plan.dp * m_plan.cp / m_plan.ep;
    const bool epFirst = m_plan.order.find("ep") < m_plan.order.find("dp");
    c.ep = epFirst ? data % m_plan.ep : data / edpSize;
    c.edp = epFirst ? data / m_plan.ep : data % edpSize;
    return c;
}

Rank RankLayout::rankOf(const RankCoords& c) const {
    Rank rank = 0, scale = 1;
    for (const std::string& d : m_order) {
        const uint32_t size = d == "tp"   ? m_plan.tp
                              : d == "cp" ? m_plan.cp
                              : d == "dp" ? m_plan.dp
                                          : m_plan.pp;
        rank += scale * (d == "tp" ? c.tp : d == "cp" ? c.cp : d == "dp" ? c.dp : c.pp);
        scale *= size;
    }
    return rank;
}

const Communicator* RankLayout::group(Rank rank, const std::string& kind) const {
    const auto k = std::find(m_kinds.begin(), m_kinds.end(), kind);
    const uint32_t g = m_rankGroup[rank][static_cast<std::size_t>(k - m_kinds.begin())];
    return g == UINT32_MAX ? nullptr : &m_groups[g];
}

std::vector<const Communicator*> RankLayout::groupsOf(Rank rank) const {
    std::vector<const Communicator*> out;
    for (uint32_t g : m_rankGroup[rank]) {
        if (g != UINT32_MAX && std::find(out.begin(), out.end(), &m_groups[g]) == out.end()) {
            out.push_back(&m_groups[g]);
        }
    }
    return out;
}

std::vector<ScheduleStep> pipelineSchedule(uint32_t stage, uint32_t pp, uint32_t vpp, uint32_t microBatches) {
    const uint64_t total = uint64_t{microBatches} * vpp;
    const uint64_t group = uint64_t{pp} * vpp;
    // Megatron's interleaved order: micro-batches in groups of pp go through chunk 0, then chunk 1, ...;
    // backward passes visit the chunks in reverse.
    auto step = [&](uint64_t k, bool backward) {
        uint32_t chunk = static_cast<uint32_t>((k % group) / pp);
        if (backward) {
            chunk = vpp - 1 - chunk;
        }
        const uint32_t micro = static_cast<uint32_t>((k / group) * pp + k % pp);
        return ScheduleStep{backward, vpp == 1 ? static_cast<uint32_t>(k) : micro, chunk};
    };
    uint64_t warmup = vpp == 1 ? pp - stage - 1 : uint64_t{pp - stage - 1} * 2 + uint64_t{vpp - 1} * pp;
    if (vpp > 1 && microBatches == pp) {
        warmup = total;  // as Megatron: every forward first when the micro-batches just fill the pipeline
    }
    warmup = std::min(warmup, total);
    std::vector<ScheduleStep> steps;
    steps.reserve(2 * total);
    for (uint64_t k = 0; k < warmup; ++k) {
        steps.push_back(step(k, false));
    }
    for (uint64_t i = 0; i + warmup < total; ++i) {
        steps.push_back(step(warmup + i, false));
        steps.push_back(step(i, true));
    }
    for (uint64_t k = total - warmup; k < total; ++k) {
        steps.push_back(step(k, true));
    }
    return steps;
}

LayerRange layersOfVirtualStage(uint32_t layers, uint32_t virtualStages, uint32_t virtualStage) {
    const uint32_t base = layers / virtualStages, extra = layers % virtualStages;
    const uint32_t first = virtualStage * base + std::min(virtualStage, extra);
    return {first, base + (virtualStage < extra ? 1u : 0u)};
}

}  // namespace mlnet::workload

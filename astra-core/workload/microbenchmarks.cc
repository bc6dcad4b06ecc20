#include "microbenchmarks.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace mlnet::microbench {

namespace {

void require(bool condition, const char* generator, const char* argument, const char* rule) {
    if (!condition) {
        throw std::invalid_argument(std::string(generator) + ": " + argument + " must be " + rule);
    }
}

std::string numbered(std::string_view stem, uint64_t index) {
    return std::string(stem) + "_" + std::to_string(index);
}

std::vector<uint64_t> after(std::optional<uint64_t> node) {
    return node ? std::vector<uint64_t>{*node} : std::vector<uint64_t>{};
}

}  // namespace

TraceSetBuilder collective(CollectiveType type, uint32_t numRanks, uint64_t sizeBytes) {
    require(numRanks >= 1, "collective", "numRanks", "at least 1");
    require(sizeBytes >= 1, "collective", "sizeBytes", "at least 1");
    TraceSetBuilder set(numRanks);
    for (Rank r = 0; r < numRanks; ++r) {
        set.rank(r).addCollective(std::string(toString(type)), type, sizeBytes);
    }
    return set;
}

TraceSetBuilder computeCollectiveChain(uint32_t numRanks, CollectiveType type, uint64_t sizeBytes,
                                       uint64_t computeMicros, uint32_t layers) {
    require(numRanks >= 1, "computeCollectiveChain", "numRanks", "at least 1");
    require(sizeBytes >= 1, "computeCollectiveChain", "sizeBytes", "at least 1");
    require(layers >= 1, "computeCollectiveChain", "layers", "at least 1");
    TraceSetBuilder set(numRanks);
    for (Rank r = 0; r < numRanks; ++r) {
        RankTraceBuilder& trace = set.rank(r);
        uint64_t previous = trace.addCompute("compute_0", computeMicros);
        for (uint32_t layer = 0; layer < layers; ++layer) {
            previous = trace.addCollective(numbered(toString(type), layer), type, sizeBytes, {previous});
            previous = trace.addCompute(numbered("compute", layer + 1), computeMicros, {previous});
        }
    }
    return set;
}

TraceSetBuilder p2pRing(uint32_t numRanks, uint64_t sizeBytes, uint32_t rounds) {
    require(numRanks >= 2, "p2pRing", "numRanks", "at least 2");
    require(sizeBytes >= 1, "p2pRing", "sizeBytes", "at least 1");
    require(rounds >= 1, "p2pRing", "rounds", "at least 1");
    TraceSetBuilder set(numRanks);
    for (Rank r = 0; r < numRanks; ++r) {
        RankTraceBuilder& trace = set.rank(r);
        std::optional<uint64_t> previousRecv;
        for (uint32_t round = 0; round < rounds; ++round) {
            trace.addSend(numbered("send", round), (r + 1) % numRanks, sizeBytes, round, after(previousRecv));
            previousRecv = trace.addRecv(numbered("recv", round), (r + numRanks - 1) % numRanks, sizeBytes,
                                         round, after(previousRecv));
        }
    }
    return set;
}

TraceSetBuilder pipeline(uint32_t stages, uint32_t microbatches, uint64_t activationBytes,
                         uint64_t computeMicros) {
    require(stages >= 2, "pipeline", "stages", "at least 2");
    require(microbatches >= 1, "pipeline", "microbatches", "at least 1");
    require(activationBytes >= 1, "pipeline", "activationBytes", "at least 1");
    TraceSetBuilder set(stages);
    const Rank last = stages - 1;
    for (Rank s = 0; s < stages; ++s) {
        RankTraceBuilder& trace = set.rank(s);
        // Chaining the computes keeps one stage's work sequential and puts every forward before every
        // backward.
        std::optional<uint64_t> previousCompute;
        auto step = [&](bool backward, uint32_t m) {
            const std::string direction = backward ? "bwd" : "fwd";
            const uint64_t tag = 2 * uint64_t{m} + (backward ? 1 : 0);
            // Activations flow towards the last stage, gradients back towards the first.
            const bool receives = backward ? s < last : s > 0;
            const bool sends = backward ? s > 0 : s < last;
            std::vector<uint64_t> deps = after(previousCompute);
            if (receives) {
                const Rank from = backward ? s + 1 : s - 1;
                deps.push_back(trace.addRecv(numbered(direction + "_recv", m), from, activationBytes, tag));
            }
            previousCompute = trace.addCompute(numbered(direction, m), computeMicros, deps);
            if (sends) {
                const Rank to = backward ? s - 1 : s + 1;
                trace.addSend(numbered(direction + "_send", m), to, activationBytes, tag, {*previousCompute});
            }
        };
        for (uint32_t m = 0; m < microbatches; ++m) {
            step(false, m);
        }
        for (uint32_t m = microbatches; m-- > 0;) {
            step(true, m);
        }
    }
    return set;
}

TraceSetBuilder dataParallelStep(uint32_t numRanks, uint32_t layers, uint64_t gradientBytesPerLayer,
                                 uint64_t forwardMicros, uint64_t backwardMicros) {
    require(numRanks >= 1, "dataParallelStep", "numRanks", "at least 1");
    require(layers >= 1, "dataParallelStep", "layers", "at least 1");
    require(gradientBytesPerLayer >= 1, "dataParallelStep", "gradientBytesPerLayer", "at least 1");
    TraceSetBuilder set(numRanks);
    for (Rank r = 0; r < numRanks; ++r) {
        RankTraceBuilder& trace = set.rank(r);
        std::optional<uint64_t> previous;
        for (uint32_t layer = 0; layer < layers; ++layer) {
            previous = trace.addCompute(numbered("fwd_layer", layer), forwardMicros, after(previous));
        }
        std::vector<uint64_t> allReduces;
        for (uint32_t layer = layers; layer-- > 0;) {
            previous = trace.addCompute(numbered("bwd_layer", layer), backwardMicros, after(previous));
            allReduces.push_back(trace.addCollective(numbered("allreduce_layer", layer),
                                                     CollectiveType::AllReduce, gradientBytesPerLayer,
                                                     {*previous}));
        }
        trace.addCompute("optimizer", forwardMicros, allReduces);
    }
    return set;
}

TraceSetBuilder dlrmStep(uint32_t numRanks, uint64_t embeddingBytes, uint64_t denseGradientBytes,
                         uint64_t computeMicros) {
    require(numRanks >= 2, "dlrmStep", "numRanks", "at least 2");
    require(embeddingBytes >= 1, "dlrmStep", "embeddingBytes", "at least 1");
    require(denseGradientBytes >= 1, "dlrmStep", "denseGradientBytes", "at least 1");
    require(computeMicros <= UINT64_MAX / 2, "dlrmStep", "computeMicros", "below 2^63");
    TraceSetBuilder set(numRanks);
    for (Rank r = 0; r < numRanks; ++r) {
        RankTraceBuilder& t = set.rank(r);
        const uint64_t bottomFwd = t.addCompute("bottom_mlp_fwd", computeMicros);
        const uint64_t embeddings =
            t.addCollective("embedding_all_to_all", CollectiveType::AllToAll, embeddingBytes, {bottomFwd});
        const uint64_t topFwd = t.addCompute("interaction_top_mlp_fwd", computeMicros, {embeddings});
        const uint64_t topBwd = t.addCompute("top_mlp_bwd", 2 * computeMicros, {topFwd});
        const uint64_t embeddingGrads =
            t.addCollective("embedding_grad_all_to_all", CollectiveType::AllToAll, embeddingBytes, {topBwd});
        const uint64_t bottomBwd = t.addCompute("bottom_mlp_bwd", 2 * computeMicros, {topBwd});
        const uint64_t dense =
            t.addCollective("dense_allreduce", CollectiveType::AllReduce, denseGradientBytes, {bottomBwd});
        t.addCompute("optimizer", computeMicros, {embeddingGrads, dense});
    }
    return set;
}

TraceSetBuilder hybridParallelStep(uint32_t numRanks, uint32_t tensorParallel, uint32_t layers,
                                   uint64_t activationBytes, uint64_t gradientBytesPerLayer,
                                   uint64_t computeMicros) {
    require(tensorParallel >= 1, "hybridParallelStep", "tensorParallel", "at least 1");
    require(numRanks >= tensorParallel && numRanks % tensorParallel == 0, "hybridParallelStep", "numRanks",
            "a multiple of tensorParallel");
    require(layers >= 1, "hybridParallelStep", "layers", "at least 1");
    require(activationBytes >= 1, "hybridParallelStep", "activationBytes", "at least 1");
    require(gradientBytesPerLayer >= 1, "hybridParallelStep", "gradientBytesPerLayer", "at least 1");
    require(computeMicros <= UINT64_MAX / 2, "hybridParallelStep", "computeMicros", "below 2^63");
    const uint32_t tpGroups = numRanks / tensorParallel;
    std::vector<DeclaredGroup> groups;
    for (uint32_t g = 0; g < tpGroups; ++g) {
        DeclaredGroup group{1 + g, {}, 0};
        for (uint32_t i = 0; i < tensorParallel; ++i) {
            group.ranks.push_back(g * tensorParallel + i);
        }
        groups.push_back(std::move(group));
    }
    for (uint32_t p = 0; p < tensorParallel; ++p) {
        DeclaredGroup group{1 + tpGroups + p, {}, 0};
        for (uint32_t g = 0; g < tpGroups; ++g) {
            group.ranks.push_back(g * tensorParallel + p);
        }
        groups.push_back(std::move(group));
    }
    TraceSetBuilder set(numRanks);
    for (Rank r = 0; r < numRanks; ++r) {
        RankTraceBuilder& t = set.rank(r);
        t.addProcessGroups(groups);
        const GroupId tp = 1 + r / tensorParallel;
        const GroupId dp = 1 + tpGroups + r % tensorParallel;
        std::optional<uint64_t> previous;
        auto tensorParallelAllReduce = [&](const std::string& name) {
            // A group of one rank has nothing to exchange.
            if (tensorParallel > 1) {
                previous =
                    t.addCollective(name, CollectiveType::AllReduce, activationBytes, after(previous), tp);
            }
        };
        for (uint32_t layer = 0; layer < layers; ++layer) {
            previous = t.addCompute(numbered("fwd_layer", layer), computeMicros, after(previous));
            tensorParallelAllReduce(numbered("tp_allreduce_attention_fwd", layer));
            tensorParallelAllReduce(numbered("tp_allreduce_mlp_fwd", layer));
        }
        std::vector<uint64_t> gradients;
        for (uint32_t layer = layers; layer-- > 0;) {
            previous = t.addCompute(numbered("bwd_layer", layer), 2 * computeMicros, after(previous));
            tensorParallelAllReduce(numbered("tp_allreduce_mlp_bwd", layer));
            tensorParallelAllReduce(numbered("tp_allreduce_attention_bwd", layer));
            if (tpGroups > 1) {
                gradients.push_back(t.addCollective(numbered("dp_allreduce_layer", layer),
                                                    CollectiveType::AllReduce, gradientBytesPerLayer,
                                                    after(previous), dp));
            }
        }
        if (gradients.empty()) {
            gradients = after(previous);
        }
        t.addCompute("optimizer", computeMicros, gradients);
    }
    return set;
}

}  // namespace mlnet::microbench

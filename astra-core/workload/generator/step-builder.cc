#include "step-builder.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

namespace mlnet::workload {

namespace {

constexpr double kActivationBytes = 2;  // activations, their gradients and everything communicated: bf16
constexpr double kParamBytes = 2;       // bf16 weights and gradients (ZeRO's mixed-precision accounting)
constexpr double kOptimizerBytes = 12;  // fp32 master weights, Adam's m and v
// The optimizer step per parameter of its shard: reads master, m, v (fp32) and the gradient, writes master,
// m, v and the bf16 weight.
constexpr double kOptimizerTrafficBytes = 12 + 2 + 12 + 2;
// Backward passes against forward: a GEMM's data and weight gradients, FlashAttention's backward kernel,
// element-wise kernels reading the saved input and the incoming gradient.
constexpr double kGemmBackward = 2, kAttentionBackward = 2.5, kMemoryBackward = 2;
// What a rank holds besides the model: CUDA context, NCCL and cuBLAS workspaces, allocator slack.
constexpr uint64_t kOtherBytes = 2'000'000'000ull;

struct Kernel {
    const char* op;
    OpClass cls;
    double flops;  // model FLOPs (attention counted as if not causal)
    double bytes;
    GemmShape gemm{};  // a GEMM's forward shape
};

constexpr uint64_t kNone = UINT64_MAX;  // no node

enum TagKind : uint64_t { kPipeForward = 1, kPipeBackward = 2, kContextForward = 3, kContextBackward = 4 };

uint64_t tag(TagKind kind, uint64_t step, uint64_t a, uint64_t b, uint64_t c = 0) {
    return kind << 56 | (step & 0xff) << 48 | (a & 0xffff) << 32 | (b & 0xffffff) << 8 | (c & 0xff);
}

}  // namespace

StepBuilder::StepBuilder(const ModelSpec& model, const ParallelPlan& plan, const GpuSpec& gpu,
                         const MeasuredTimes* measured)
    : m_model(model), m_plan(plan), m_gpu(gpu), m_measured(measured), m_layout(plan) {}

uint64_t StepBuilder::tokensPerRank() const {
    return m_plan.microBatch * m_plan.sequence / m_plan.cp;
}

// Emits one rank's trace; every compute node waits for the previous one and for what the model says it
// needs (a blocking collective, a received activation), so the rank's kernels run in schedule order.
class StepBuilder::RankWriter {
public:
    RankWriter(const StepBuilder& b, Rank rank, StepStats* stats)
        : m_b(b),
          m(b.m_model),
          p(b.m_plan),
          m_rank(rank),
          m_c(b.m_layout.coords(rank)),
          m_stats(stats),
          m_trace(rank) {
        T = static_cast<double>(b.tokensPerRank());
        t = p.tp;
        Ts = p.sequenceParallel ? T / t : T;
        S = static_cast<double>(p.sequence);
        h = static_cast<double>(m.hidden);
        kvWidth = m.mla ? static_cast<double>(m.qkWidth() + m.vWidth()) / t
                        : static_cast<double>(m.headDim) * 2 * std::max<double>(1, double(m.kvHeads) / t);
    }

    RankTraceBuilder run() {
        std::vector<DeclaredGroup> groups;
        for (const Communicator* g : m_b.m_layout.groupsOf(m_rank)) {
            groups.push_back(DeclaredGroup{g->id, g->ranks, 0});
        }
        if (!groups.empty()) {
            m_trace.addProcessGroups(groups);
        }
        const uint32_t micro = static_cast<uint32_t>(p.gradientAccumulation());
        const std::vector<ScheduleStep> schedule = pipelineSchedule(m_c.pp, p.pp, p.vpp, micro);
        planBuckets();
        for (m_step = 0; m_step < p.steps; ++m_step) {
            m_prefix = "step" + std::to_string(m_step) + ".";
            gatherWeights();
            for (const ScheduleStep& s : schedule) {
                const uint32_t vs = s.chunk * p.pp + m_c.pp;
                const bool lastMicro = s.microBatch + 1 == micro;
                s.backward ? backwardPass(vs, s.microBatch, lastMicro) : forwardPass(vs, s.microBatch);
            }
            endOfStep();
        }
        flush();
        return std::move(m_trace);
    }

private:
    // --- emission ---------------------------------------------------------------------------------------

    // A kernel joins the open compute node; communication closes it.
    void kernel(const Kernel& k, bool backward, bool recomputed = false) {
        const double scale = !backward                     ? 1
                             : k.cls == OpClass::Gemm      ? kGemmBackward
                             : k.cls == OpClass::Attention ? kAttentionBackward
                                                           : kMemoryBackward;
        // Model FLOPs count a backward as twice its forward, attention included, and attention as if every
        // query saw every key (the MFU convention); the kernels skip the masked half.
        const double flops = k.flops * (backward ? 2 : 1);
        const double executed = k.flops * scale * (k.cls == OpClass::Attention ? 0.5 : 1);
        const auto measured = m_b.m_measured ? m_b.m_measured->find(k.op, backward) : std::nullopt;
        m_openMicros += measured ? *measured
                                 : kernelMicros(m_b.m_gpu, k.cls, m.precision == Precision::Fp8, backward,
                                                executed, k.bytes * scale, k.gemm);
        if (m_openName.empty()) {
            m_openName = m_context + k.op + (backward ? ".bwd" : recomputed ? ".recompute" : ".fwd");
        }
        if (m_stats) {
            m_stats->executedFlops += executed;
            m_stats->modelFlops += recomputed ? 0 : flops;
        }
    }

    void flush() {
        if (m_openName.empty()) {
            return;
        }
        // Whole microseconds, the rounding remainder carried to the next node.
        const double wanted = m_openMicros + m_carryMicros;
        const uint64_t micros = static_cast<uint64_t>(std::max<long long>(0, std::llround(wanted)));
        m_carryMicros = wanted - static_cast<double>(micros);
        std::vector<uint64_t> deps = std::move(m_waits);
        m_waits.clear();
        if (m_lastCompute != kNone) {
            deps.push_back(m_lastCompute);
        }
        m_lastCompute = m_trace.addCompute(m_prefix + m_openName, micros, std::move(deps));
        if (m_stats) {
            m_computeMicros += m_openMicros;
        }
        m_openName.clear();
        m_openMicros = 0;
    }

    std::vector<uint64_t> depsForComm() {
        flush();
        std::vector<uint64_t> deps = m_waits;
        if (m_lastCompute != kNone) {
            deps.push_back(m_lastCompute);
        }
        return deps;
    }

    void account(const std::string& key, double bytes) {
        if (m_stats) {
            m_stats->commBytes[key] += static_cast<uint64_t>(bytes);
            m_stats->commCount[key] += 1;
        }
    }

    // A collective of `kind`'s communicator (skipped when the rank has none: a group of one). Blocking: the
    // next kernel waits for it.
    uint64_t collective(const std::string& name, CollectiveType type, const char* kind, double bytes,
                        bool blocking = true) {
        const Communicator* g = m_b.m_layout.group(m_rank, kind);
        if (!g || bytes < 1) {
            return kNone;
        }
        const uint64_t id = m_trace.addCollective(
            m_prefix + name, type, static_cast<uint64_t>(std::ceil(bytes)), depsForComm(), g->id);
        account(std::string(toString(type)) + " " + kind, bytes);
        if (blocking) {
            m_waits = {id};
        }
        return id;
    }

    void send(const std::string& name, Rank dst, double bytes, uint64_t tagValue, const char* kind) {
        m_trace.addSend(m_prefix + name, dst, static_cast<uint64_t>(std::ceil(bytes)), tagValue,
                        depsForComm());
        account(std::string("SEND ") + kind, bytes);
    }

    void receive(const std::string& name, Rank src, double bytes, uint64_t tagValue) {
        flush();
        m_waits.push_back(
            m_trace.addRecv(m_prefix + name, src, static_cast<uint64_t>(std::ceil(bytes)), tagValue));
    }

    // --- the model ----------------------------------------------------------------------------------------

    Rank rankAtStage(uint32_t stage) const {
        RankCoords c = m_c;
        c.pp = stage;
        return m_b.m_layout.rankOf(c);
    }
    Rank cpNeighbour(int delta) const {
        RankCoords c = m_c;
        c.cp = static_cast<uint32_t>((c.cp + p.cp + delta) % p.cp);
        return m_b.m_layout.rankOf(c);
    }
    uint32_t virtualStages() const { return p.pp * p.vpp; }

    // Between stages each TP rank sends its 1/tp of the activation (Megatron's scatter/gather; with sequence
    // parallelism the activation is that shard already); without sequence parallelism the receiving TP
    // ranks all-gather the pieces over NVLink (gatherPipe).
    double pipeBytes() const { return T * h * kActivationBytes / t; }
    void gatherPipe(const std::string& name) {
        if (p.tp > 1 && !p.sequenceParallel) {
            collective(name, CollectiveType::AllGather, "tp", pipeBytes());
        }
    }

    void forwardPass(uint32_t vs, uint32_t mb) {
        m_prefix = "mb" + std::to_string(mb) + ".";
        const uint32_t chunk = vs / p.pp;
        const std::size_t units = m_units[chunk].size();
        std::size_t next = 0;  // units in forward order: the reverse of their (backward) list
        auto enter = [&]() { weightsFor(chunk, units - 1 - next++, false, mb); };
        if (vs > 0) {
            receive("recv.act", rankAtStage((vs - 1) % p.pp), pipeBytes(), tag(kPipeForward, m_step, vs, mb));
            gatherPipe("recv.act.ag");
        } else {
            enter();
            embeddingForward();
        }
        const LayerRange layers = layersOfVirtualStage(m.layers, virtualStages(), vs);
        for (uint32_t l = layers.first; l < layers.first + layers.count; ++l) {
            enter();
            layerForward(l, mb, false);
        }
        if (vs + 1 == virtualStages()) {
            enter();
            lmHead(false);
        } else {
            send("send.act", rankAtStage((vs + 1) % p.pp), pipeBytes(), tag(kPipeForward, m_step, vs + 1, mb),
                 "pp");
        }
    }

    void backwardPass(uint32_t vs, uint32_t mb, bool lastMicro) {
        m_prefix = "mb" + std::to_string(mb) + ".";
        const uint32_t chunk = vs / p.pp;
        std::size_t next = 0;
        auto enter = [&]() { weightsFor(chunk, next, true, mb); };
        auto done = [&]() {
            if (lastMicro) {
                gradientsDone(m_units[chunk][next]);
            }
            ++next;
        };
        if (vs + 1 < virtualStages()) {
            receive("recv.grad", rankAtStage((vs + 1) % p.pp), pipeBytes(),
                    tag(kPipeBackward, m_step, vs, mb));
            gatherPipe("recv.grad.ag");
        } else {
            enter();
            lmHead(true);
            done();
        }
        const LayerRange layers = layersOfVirtualStage(m.layers, virtualStages(), vs);
        for (uint32_t i = layers.count; i-- > 0;) {
            const uint32_t l = layers.first + i;
            enter();
            if (p.recompute == Recompute::Full) {
                layerForward(l, mb, true);
            }
            layerBackward(l, mb);
            done();
        }
        if (vs == 0) {
            enter();
            kernel({"embedding", OpClass::Memory, 0, Ts * h * kActivationBytes * 2}, true);
            done();
        } else {
            send("send.grad", rankAtStage((vs - 1) % p.pp), pipeBytes(),
                 tag(kPipeBackward, m_step, vs - 1, mb), "pp");
        }
    }

    void embeddingForward() {
        kernel({"embedding", OpClass::Memory, 0, Ts * h * kActivationBytes * 2}, false);
        // Vocabulary-parallel embedding: the partial lookups are summed over TP (reduce-scattered with SP).
        if (p.tp > 1) {
            p.sequenceParallel
                ? collective("embedding.rs", CollectiveType::ReduceScatter, "tp", T * h * kActivationBytes)
                : collective("embedding.ar", CollectiveType::AllReduce, "tp", T * h * kActivationBytes);
        }
    }

    void lmHead(bool backward) {
        const double vocab = static_cast<double>(m.vocabulary);
        const Kernel norm{"norm", OpClass::Memory, 0, Ts * h * kActivationBytes * 3};
        const Kernel head{"lm-head",
                          OpClass::Gemm,
                          2 * T * h * vocab / t,
                          (T * h + h * vocab / t + T * vocab / t) * kActivationBytes,
                          {T, vocab / t, h}};
        const Kernel loss{"cross-entropy", OpClass::Memory, 0, T * vocab / t * 4 * 3};  // fp32 logits
        if (!backward) {
            kernel(norm, false);
            if (p.sequenceParallel) {
                collective("lm-head.ag", CollectiveType::AllGather, "tp", Ts * h * kActivationBytes);
            }
            kernel(head, false);
            kernel(loss, false);
            return;
        }
        kernel(loss, true);
        kernel(head, true);
        if (p.tp > 1) {
            p.sequenceParallel
                ? collective("lm-head.rs", CollectiveType::ReduceScatter, "tp", T * h * kActivationBytes)
                : collective("lm-head.ar", CollectiveType::AllReduce, "tp", T * h * kActivationBytes);
        }
        kernel(norm, true);
    }

    // TP communication around a block, as Megatron issues it: with sequence parallelism the shards are
    // all-gathered before the block's first GEMM and its output reduce-scattered after the last (in the
    // backward, the conjugates: all-gather of the gradient, reduce-scatter of the input gradient); without,
    // the output is all-reduced. With tp-comm-overlap (Transformer Engine's userbuffers) the all-gather and
    // the reduce-scatter run beside the GEMM they feed or drain, pipelined in chunks: the kernel after the
    // GEMM waits for both, so the pair takes about the longer of the two.
    void gatherInto(const std::string& name, const Kernel& gemm, bool backward, bool recomputed) {
        if (p.tp == 1 || !p.sequenceParallel) {
            kernel(gemm, backward, recomputed);
            return;
        }
        const std::string ag = name + (backward ? ".bwd.ag" : ".ag");
        const double bytes = Ts * h * kActivationBytes;
        if (!p.tpCommOverlap) {
            collective(ag, CollectiveType::AllGather, "tp", bytes);
            kernel(gemm, backward, recomputed);
            return;
        }
        const uint64_t id = collective(ag, CollectiveType::AllGather, "tp", bytes, false);
        kernel(gemm, backward, recomputed);
        flush();
        m_waits.push_back(id);
    }

    void reduceFrom(const std::string& name, const Kernel& gemm, bool backward, bool recomputed) {
        if (p.tp == 1) {
            kernel(gemm, backward, recomputed);
            return;
        }
        const bool sp = p.sequenceParallel;
        const std::string op = name + (backward ? ".bwd" : "") + (sp ? ".rs" : ".ar");
        const CollectiveType type = sp ? CollectiveType::ReduceScatter : CollectiveType::AllReduce;
        const double bytes = T * h * kActivationBytes;
        if (!p.tpCommOverlap || !sp) {
            kernel(gemm, backward, recomputed);
            collective(op, type, "tp", bytes);
            return;
        }
        const uint64_t id = collective(op, type, "tp", bytes, false);
        kernel(gemm, backward, recomputed);
        flush();
        m_waits.push_back(id);
    }

    Kernel qkvKernel() const {
        if (m.mla) {
            const MlaSpec& a = *m.mla;
            const double q = a.qLoraRank ? 2 * T * h * a.qLoraRank + 2 * T * a.qLoraRank * m.qkWidth() / t
                                         : 2 * T * h * m.qkWidth() / t;
            const double kv = 2 * T * h * (a.kvLoraRank + a.qkRopeHeadDim) +
                              2 * T * a.kvLoraRank * m.heads * (a.qkNopeHeadDim + a.vHeadDim) / t;
            // MLA's down- and up-projections, shaped as one GEMM of their work over the hidden size.
            return {"qkv",
                    OpClass::Gemm,
                    q + kv,
                    (T * h + T * (m.qkWidth() + m.vWidth()) / t) * kActivationBytes,
                    {T, (q + kv) / (2 * T * h), h}};
        }
        const double out = m.qkWidth() / t + kvWidth;
        return {"qkv",
                OpClass::Gemm,
                2 * T * h * out,
                (T * h + h * out + T * out) * kActivationBytes,
                {T, out, h}};
    }

    // Attention over the whole context: each of this rank's T queries against the sequence's keys.
    Kernel attentionKernel(double share) const {
        const double width = static_cast<double>(m.qkWidth() + m.vWidth()) / t;
        return {"attention", OpClass::Attention, 2 * T * S * width * share,
                (T * width + S * kvWidth * share) * kActivationBytes};
    }

    void attention(uint32_t layer, uint32_t mb, bool backward, bool recomputed) {
        const std::string name = "L" + std::to_string(layer) + ".attention";
        if (p.cp == 1) {
            kernel(attentionKernel(1), backward, recomputed);
            return;
        }
        const double kvBytes = T * kvWidth * kActivationBytes;
        if (p.cpComm == CpComm::AllGather) {
            if (!backward) {
                collective(name + ".cp.ag", CollectiveType::AllGather, "cp", kvBytes);
                kernel(attentionKernel(1), false, recomputed);
            } else {
                kernel(attentionKernel(1), true);
                collective(name + ".cp.rs", CollectiveType::ReduceScatter, "cp", kvBytes * p.cp);
            }
            return;
        }
        // Ring attention: cp steps, each computing against the K/V chunk in hand while the next one arrives
        // from the previous rank (the backward also passes the K/V gradients round).
        const double bytes = backward ? 2 * kvBytes : kvBytes;
        const TagKind kind = backward ? kContextBackward : kContextForward;
        for (uint32_t j = 0; j < p.cp; ++j) {
            if (j > 0) {
                const uint64_t tg = tag(kind, m_step, layer, mb, j + (recomputed ? 128 : 0));
                send(name + ".cp.send", cpNeighbour(1), bytes, tg, "cp");
                receive(name + ".cp.recv", cpNeighbour(-1), bytes, tg);
            }
            kernel(attentionKernel(1.0 / p.cp), backward, recomputed);
        }
    }

    void attentionBlock(uint32_t layer, uint32_t mb, bool backward, bool recomputed) {
        const std::string name = "L" + std::to_string(layer) + ".attn";
        const Kernel norm{"norm", OpClass::Memory, 0, Ts * h * kActivationBytes * 5};
        const Kernel qkv = qkvKernel();
        const Kernel out{"out-proj",
                         OpClass::Gemm,
                         2 * T * m.vWidth() / t * h,
                         (T * m.vWidth() / t + m.vWidth() / t * h + T * h) * kActivationBytes,
                         {T, h, static_cast<double>(m.vWidth()) / t}};
        if (!backward) {
            kernel(norm, false, recomputed);
            gatherInto(name, qkv, false, recomputed);
            attention(layer, mb, false, recomputed);
            reduceFrom(name, out, false, recomputed);
            return;
        }
        gatherInto(name, out, true, false);
        if (p.recompute == Recompute::Selective) {
            kernel(attentionKernel(1), false, true);  // the attention's forward again, for its saved state
        }
        attention(layer, mb, true, false);
        reduceFrom(name, qkv, true, false);
        kernel(norm, true);
    }

    void denseMlp(uint32_t layer, bool backward, bool recomputed) {
        const std::string name = "L" + std::to_string(layer) + ".mlp";
        const double f = static_cast<double>(m.ffn) / t, up = (m.gatedMlp ? 2 : 1) * f;
        const Kernel norm{"norm", OpClass::Memory, 0, Ts * h * kActivationBytes * 5};
        const Kernel upK{"mlp-up",
                         OpClass::Gemm,
                         2 * T * h * up,
                         (T * h + h * up + T * up) * kActivationBytes,
                         {T, up, h}};
        const Kernel act{"mlp-act", OpClass::Memory, 0, T * (up + f) * kActivationBytes};
        const Kernel down{
            "mlp-down", OpClass::Gemm, 2 * T * f * h, (T * f + f * h + T * h) * kActivationBytes, {T, h, f}};
        if (!backward) {
            kernel(norm, false, recomputed);
            gatherInto(name, upK, false, recomputed);
            kernel(act, false, recomputed);
            reduceFrom(name, down, false, recomputed);
            return;
        }
        gatherInto(name, down, true, false);
        kernel(act, true);
        reduceFrom(name, upK, true, false);
        kernel(norm, true);
    }

    void moeMlp(uint32_t layer, bool backward, bool recomputed) {
        const std::string name = "L" + std::to_string(layer) + ".moe";
        const double experts = m.moe.experts, topK = m.moe.topK;
        const double fe = static_cast<double>(m.moe.expertFfn), mats = m.gatedMlp ? 3 : 2;
        const double routed =
            Ts * topK;  // tokens this rank's experts take, routing balanced over the EP group
        const double localExperts = experts / p.ep;
        const Kernel norm{"norm", OpClass::Memory, 0, Ts * h * kActivationBytes * 5};
        const Kernel router{"router",
                            OpClass::Gemm,
                            2 * Ts * h * experts,
                            (Ts * h + h * experts) * kActivationBytes,
                            {Ts, experts, h}};
        const Kernel expertsK{
            "experts",
            OpClass::Gemm,
            2 * mats * routed * h * fe,
            (localExperts * mats * h * fe + 2 * routed * h + routed * mats * fe) * kActivationBytes,
            {routed / localExperts, fe, h, localExperts * mats}};  // each expert's GEMMs, side by side
        const double shared = static_cast<double>(m.moe.sharedExperts * m.sharedFfn());
        const Kernel sharedK{"shared-experts",
                             OpClass::Gemm,
                             2 * mats * Ts * h * shared,
                             (mats * h * shared + 2 * Ts * h) * kActivationBytes,
                             {Ts, shared, h, mats}};
        const double a2a = routed * h * kActivationBytes;
        if (!backward) {
            kernel(norm, false, recomputed);
            kernel(router, false, recomputed);
            if (shared > 0) {
                kernel(sharedK, false, recomputed);
            }
            collective(name + ".dispatch", CollectiveType::AllToAll, "ep", a2a);
            kernel(expertsK, false, recomputed);
            collective(name + ".combine", CollectiveType::AllToAll, "ep", a2a);
            return;
        }
        collective(name + ".bwd.combine", CollectiveType::AllToAll, "ep", a2a);
        kernel(expertsK, true);
        collective(name + ".bwd.dispatch", CollectiveType::AllToAll, "ep", a2a);
        if (shared > 0) {
            kernel(sharedK, true);
        }
        kernel(router, true);
        kernel(norm, true);
    }

    // Parameters of a layer on this rank: the TP-split part, and the routed experts (EP-split, not TP-split).
    double denseParams(uint32_t layer) const {
        if (!m.isMoeLayer(layer)) {
            return static_cast<double>(m.layerParams(layer)) / t;
        }
        const double routed =
            static_cast<double>(m.moe.experts) * static_cast<double>(m.routedExpertParams());
        return (static_cast<double>(m.layerParams(layer)) - routed) / t;
    }
    double expertParams(uint32_t layer) const {
        return m.isMoeLayer(layer)
                   ? static_cast<double>(m.moe.experts / p.ep) * static_cast<double>(m.routedExpertParams())
                   : 0;
    }
    double embeddingParams() const { return static_cast<double>(m.embeddingParams()) / t; }

    void layerForward(uint32_t layer, uint32_t mb, bool recomputed) {
        m_context = "L" + std::to_string(layer) + ".";
        attentionBlock(layer, mb, false, recomputed);
        m.isMoeLayer(layer) ? moeMlp(layer, false, recomputed) : denseMlp(layer, false, recomputed);
        m_context.clear();
    }

    void layerBackward(uint32_t layer, uint32_t mb) {
        m_context = "L" + std::to_string(layer) + ".";
        m.isMoeLayer(layer) ? moeMlp(layer, true, false) : denseMlp(layer, true, false);
        attentionBlock(layer, mb, true, false);
        m_context.clear();
    }

    // --- gradients and the optimizer ---------------------------------------------------------------------

    // What carries parameters on this rank (the LM head, a layer, the embedding), per model chunk in backward
    // order, with the gradient bucket it falls in: Megatron fills buckets in backward order, up to
    // bucketParams each, per chunk. ZeRO-3 gathers and reduces layer by layer instead (fsdpGather).
    struct ParamUnit {
        double dense = 0, experts = 0;
        uint32_t bucket = 0;
        bool lastOfBucket = false;   // in backward order: its bucket's gradients are complete after it
        bool firstOfBucket = false;  // in backward order; in forward order the last to need its weights
    };
    struct Bucket {
        double dense = 0, experts = 0;
        uint64_t gather[2] = {kNone, kNone};  // this step's weight all-gathers (dense, experts)
    };

    void planBuckets() {
        m_units.assign(p.vpp, {});
        for (uint32_t chunk = 0; chunk < p.vpp; ++chunk) {
            const uint32_t vs = chunk * p.pp + m_c.pp;
            std::vector<ParamUnit>& units = m_units[chunk];
            if (vs + 1 == virtualStages()) {  // the final norm (on every TP rank) and the LM head
                units.push_back({static_cast<double>(m.headParams()) / t + double(m.finalNormParams()), 0});
            }
            const LayerRange layers = layersOfVirtualStage(m.layers, virtualStages(), vs);
            for (uint32_t i = layers.count; i-- > 0;) {
                units.push_back({denseParams(layers.first + i), expertParams(layers.first + i)});
            }
            if (vs == 0) {
                units.push_back({embeddingParams(), 0});
            }
            double filled = 0;
            for (std::size_t u = 0; u < units.size(); ++u) {
                if (u == 0 || filled >= static_cast<double>(p.bucketParams)) {
                    m_buckets.push_back({});
                    units[u].firstOfBucket = true;
                    if (u > 0) {
                        units[u - 1].lastOfBucket = true;
                    }
                    filled = 0;
                }
                units[u].bucket = static_cast<uint32_t>(m_buckets.size() - 1);
                m_buckets.back().dense += units[u].dense;
                m_buckets.back().experts += units[u].experts;
                filled += units[u].dense + units[u].experts;
            }
            if (!units.empty()) {
                units.back().lastOfBucket = true;
            }
        }
    }

    double dpRanks() const { return double(p.dp) * p.cp; }
    double edpRanks() const { return double(p.dp) * p.cp / p.ep; }

    // Sharded optimizer (ZeRO-1/2): each bucket's updated weights are all-gathered at the start of the step,
    // and the first forward through it waits for them: the steady state of Megatron's overlap of the
    // parameter all-gather with the next step's forward.
    void gatherWeights() {
        if (p.zero != 1 && p.zero != 2) {
            return;
        }
        for (std::size_t b = m_buckets.size(); b-- > 0;) {
            Bucket& bucket = m_buckets[b];
            bucket.gather[0] = collective("params.ag", CollectiveType::AllGather, "dp",
                                          bucket.dense * kParamBytes / dpRanks(), false);
            bucket.gather[1] = collective("params.ag.experts", CollectiveType::AllGather, "edp",
                                          bucket.experts * kParamBytes / edpRanks(), false);
        }
    }

    // Before a unit's kernels: ZeRO-1/2's first forward of a step waits for the bucket's gathered weights;
    // ZeRO-3 gathers the unit's weights for every pass, one unit ahead (FSDP's prefetch): the gather of the
    // next unit in this pass's order runs while this one computes.
    void weightsFor(uint32_t chunk, std::size_t index, bool backward, uint32_t mb) {
        const std::vector<ParamUnit>& units = m_units[chunk];
        if (index >= units.size()) {
            return;
        }
        flush();  // the previous unit's kernels do not wait for this one's weights
        if (p.zero == 1 || p.zero == 2) {
            const ParamUnit& unit = units[index];
            if (!backward && mb == 0 && unit.lastOfBucket) {
                for (uint64_t id : m_buckets[unit.bucket].gather) {
                    if (id != kNone) {
                        m_waits.push_back(id);
                    }
                }
            }
            return;
        }
        if (p.zero != 3) {
            return;
        }
        auto gather = [&](std::size_t i, bool blocking) {
            const ParamUnit& u = units[i];
            const std::string name = std::string("params.ag") + (backward ? ".bwd" : "");
            const uint64_t dense = collective(name, CollectiveType::AllGather, "dp",
                                              u.dense * kParamBytes / dpRanks(), blocking);
            const uint64_t experts = collective(name + ".experts", CollectiveType::AllGather, "edp",
                                                u.experts * kParamBytes / edpRanks(), blocking);
            return std::array<uint64_t, 2>{dense, experts};
        };
        const auto key = std::make_tuple(chunk, index, backward);
        const auto prefetched = m_prefetched.find(key);
        if (prefetched == m_prefetched.end()) {
            gather(index, true);
        } else {
            for (uint64_t id : prefetched->second) {
                if (id != kNone) {
                    m_waits.push_back(id);
                }
            }
            m_prefetched.erase(prefetched);
        }
        // The pass visits units in backward order when backward, in reverse otherwise.
        const bool more = backward ? index + 1 < units.size() : index > 0;
        if (more) {
            const std::size_t nextIndex = backward ? index + 1 : index - 1;
            const std::vector<uint64_t> waits = m_waits;  // the prefetch must not hold up this unit's kernels
            m_prefetched[std::make_tuple(chunk, nextIndex, backward)] = gather(nextIndex, false);
            m_waits = waits;
        }
    }

    void gradientsDone(const ParamUnit& unit) {
        m_shardParams +=
            p.zero >= 1 ? unit.dense / dpRanks() + unit.experts / edpRanks() : unit.dense + unit.experts;
        if (p.zero == 3) {
            // FSDP: each unit's gradients reduce-scattered as soon as its last micro-batch's backward is
            // done.
            m_pending.push_back(
                collective("grads.rs", CollectiveType::ReduceScatter, "dp", unit.dense * kParamBytes, false));
            m_pending.push_back(collective("grads.rs.experts", CollectiveType::ReduceScatter, "edp",
                                           unit.experts * kParamBytes, false));
            return;
        }
        if (!unit.lastOfBucket) {
            return;
        }
        const Bucket& bucket = m_buckets[unit.bucket];
        const CollectiveType type = p.zero == 0 ? CollectiveType::AllReduce : CollectiveType::ReduceScatter;
        const char* name = p.zero == 0 ? "grads.ar" : "grads.rs";
        m_pending.push_back(collective(name, type, "dp", bucket.dense * kParamBytes, false));
        m_pending.push_back(
            collective(std::string(name) + ".experts", type, "edp", bucket.experts * kParamBytes, false));
    }

    void endOfStep() {
        m_prefix = "step" + std::to_string(m_step) + ".";
        // Tied embeddings: the first and last stages add their gradients of the shared matrix.
        if (m.tiedEmbeddings && p.pp > 1) {
            m_pending.push_back(collective("embedding.grads.ar", CollectiveType::AllReduce, "embedding",
                                           embeddingParams() * kParamBytes, false));
        }
        for (uint64_t id : m_pending) {
            if (id != kNone) {
                m_waits.push_back(id);
            }
        }
        m_pending.clear();
        kernel({"optimizer", OpClass::Memory, 0, m_shardParams * kOptimizerTrafficBytes}, false);
        flush();
        m_shardParams = 0;
        if (m_stats) {
            m_stats->computeMicrosMax = std::max(m_stats->computeMicrosMax, m_computeMicros);
        }
        m_computeMicros = 0;
    }

    const StepBuilder& m_b;
    const ModelSpec& m;
    const ParallelPlan& p;
    Rank m_rank;
    RankCoords m_c;
    StepStats* m_stats;
    RankTraceBuilder m_trace;
    double T = 0, t = 1, Ts = 0, S = 0, h = 0, kvWidth = 0;
    uint32_t m_step = 0;
    std::string m_prefix;   // "mb3." (the micro-batch) or "step0."
    std::string m_context;  // "L12." inside a layer
    std::string m_openName;
    double m_openMicros = 0, m_carryMicros = 0, m_computeMicros = 0;
    uint64_t m_lastCompute = kNone;
    std::vector<uint64_t> m_waits;                // what the next kernel waits for
    std::vector<uint64_t> m_pending;              // gradient collectives the optimizer waits for
    std::vector<std::vector<ParamUnit>> m_units;  // per model chunk, in backward order
    std::vector<Bucket> m_buckets;
    std::map<std::tuple<uint32_t, std::size_t, bool>, std::array<uint64_t, 2>> m_prefetched;  // ZeRO-3
    double m_shardParams = 0;
};

RankTraceBuilder StepBuilder::buildRank(Rank rank, StepStats* stats) const {
    RankWriter writer(*this, rank, stats);
    return writer.run();
}

RankMemory StepBuilder::memoryOf(Rank rank) const {
    const RankCoords c = m_layout.coords(rank);
    const double t = m_plan.tp, T = static_cast<double>(tokensPerRank());
    const double Ts = m_plan.sequenceParallel ? T / t : T, h = static_cast<double>(m_model.hidden);
    const uint32_t virtualStages = m_plan.pp * m_plan.vpp;
    double dense = 0, experts = 0;
    std::vector<double> chunkActivation(m_plan.vpp, 0);
    // Q and K/V widths on this rank (K and V replicated when there are fewer KV heads than TP ranks).
    const double qk = m_model.mla ? static_cast<double>(m_model.qkWidth() * 2 + m_model.vWidth()) / t
                                  : static_cast<double>(m_model.qkWidth()) / t +
                                        static_cast<double>(m_model.headDim) * 2 *
                                            std::max<double>(1, double(m_model.kvHeads) / t);
    for (uint32_t chunk = 0; chunk < m_plan.vpp; ++chunk) {
        const uint32_t vs = chunk * m_plan.pp + c.pp;
        const LayerRange layers = layersOfVirtualStage(m_model.layers, virtualStages, vs);
        for (uint32_t l = layers.first; l < layers.first + layers.count; ++l) {
            const double routed = m_model.isMoeLayer(l)
                                      ? static_cast<double>(m_model.moe.experts) *
                                            static_cast<double>(m_model.routedExpertParams())
                                      : 0;
            dense += (static_cast<double>(m_model.layerParams(l)) - routed) / t;
            experts += routed / m_plan.ep;
            // Saved for the backward, as Megatron with Transformer Engine keeps it: the residual stream
            // before each norm (bf16, sequence-sharded), each GEMM's input (sequence-sharded where it is
            // gathered again in the backward; fp8 with fp8 GEMMs), Q, K, V and the attention output for
            // FlashAttention's backward, the MLP's first projection (bf16, for the activation's backward).
            // With full recomputation only the layer's input.
            const double in = m_model.precision == Precision::Fp8 ? 1 : 2, bf16 = kActivationBytes;
            const double v = static_cast<double>(m_model.vWidth()) / t;
            double saved = 2 * Ts * h * bf16 + Ts * h * in + T * qk * bf16 + T * v * (bf16 + in);
            if (m_model.isMoeLayer(l)) {
                const double routedTokens = Ts * m_model.moe.topK,
                             fe = static_cast<double>(m_model.moe.expertFfn);
                saved += Ts * h * in + routedTokens * h * (in + bf16) +
                         routedTokens * fe * ((m_model.gatedMlp ? 2 : 1) * bf16 + in);
            } else {
                const double f = static_cast<double>(m_model.ffn) / t;
                saved += Ts * h * in + T * f * ((m_model.gatedMlp ? 2 : 1) * bf16 + in);
            }
            if (m_plan.recompute == Recompute::Full) {
                saved = Ts * h * bf16;
            }
            chunkActivation[chunk] += saved;
        }
        if (vs == 0) {
            dense += static_cast<double>(m_model.embeddingParams()) / t;
        }
        if (vs + 1 == virtualStages) {
            dense += static_cast<double>(m_model.headParams()) / t + double(m_model.finalNormParams());
        }
    }
    // The schedule's peak of live activations: a forward adds its chunk's, its backward frees them.
    double live = 0, peak = 0;
    for (const ScheduleStep& s : pipelineSchedule(c.pp, m_plan.pp, m_plan.vpp,
                                                  static_cast<uint32_t>(m_plan.gradientAccumulation()))) {
        live += s.backward ? -chunkActivation[s.chunk] : chunkActivation[s.chunk];
        peak = std::max(peak, live);
    }
    if (c.pp + 1 == m_plan.pp) {
        peak += T * static_cast<double>(m_model.vocabulary) / t * 4;  // the fp32 logits of one micro-batch
    }
    const double dpRanks = m_plan.dp * m_plan.cp, edpRanks = dpRanks / m_plan.ep;
    RankMemory mem;
    auto part = [&](double perParam, uint32_t fromStage) {
        const double d = m_plan.zero >= fromStage ? dense / dpRanks : dense;
        const double e = m_plan.zero >= fromStage ? experts / edpRanks : experts;
        return static_cast<uint64_t>((d + e) * perParam);
    };
    mem.weights = part(kParamBytes, 3);
    mem.gradients = part(kParamBytes, 2);
    mem.optimizer = part(kOptimizerBytes, 1);
    mem.activations = static_cast<uint64_t>(peak);
    mem.other = kOtherBytes;
    return mem;
}

}  // namespace mlnet::workload

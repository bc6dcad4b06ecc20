#include "workload-importer.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <unordered_map>

#include "util/memory-limit.h"

namespace mlnet::importers {

namespace {

constexpr uint64_t kNone = UINT64_MAX;
constexpr int kNumKinds = 5;

enum TagKind : uint64_t { kActivation = 1, kGradient = 2 };

// SEND/RECV tags of the pipeline: one per direction, pass and micro-batch.
uint64_t pipeTag(TagKind kind, uint32_t pass, uint32_t microBatch) {
    return kind << 48 | uint64_t{pass} << 24 | microBatch;
}

// "a SimAI", "an ASTRA-sim 1.0": for sentences.
std::string withArticle(WorkloadFormat format) {
    return (format == WorkloadFormat::SimAI ? "a " : "an ") + std::string(toString(format));
}

std::string policyName(Policy p) {
    return std::string(keywordOf(p));
}

}  // namespace

std::string_view groupName(GroupKind kind) {
    static constexpr std::string_view kNames[] = {"world", "tp", "dp", "ep", "dp_ep"};
    return kNames[static_cast<int>(kind)];
}

uint32_t Layout::size(GroupKind kind) const {
    switch (kind) {
        case GroupKind::World:
            return world;
        case GroupKind::Tp:
            return tp;
        case GroupKind::Dp:
            return dp;
        case GroupKind::Ep:
            return ep;
        case GroupKind::DpEp:
            return dpEp;
    }
    return 1;
}

// Ids: the world is Chakra's group 0; then every TP group, every DP group, every EP group, every DP_EP group.
GroupId Layout::groupOf(GroupKind kind, Rank r) const {
    const uint32_t t = tpOf(r), d = dpOf(r), s = stageOf(r);
    const uint32_t e = d % ep, f = d / ep;
    const uint32_t tpBase = 1, dpBase = tpBase + world / tp, epBase = dpBase + tp * pp,
                   dpEpBase = epBase + world / ep;
    switch (kind) {
        case GroupKind::World:
            return kWorldGroup;
        case GroupKind::Tp:
            return tpBase + r / tp;
        case GroupKind::Dp:
            return dpBase + t + tp * s;
        case GroupKind::Ep:
            return epBase + t + tp * (f + dpEp * s);
        case GroupKind::DpEp:
            return dpEpBase + t + tp * (e + ep * s);
    }
    return kWorldGroup;
}

std::vector<Rank> Layout::members(GroupKind kind, Rank r) const {
    std::vector<Rank> out;
    const uint32_t t = tpOf(r), d = dpOf(r), s = stageOf(r);
    const uint32_t e = d % ep, f = d / ep;
    auto rankAt = [&](uint32_t tpIndex, uint32_t dpIndex) { return tpIndex + tp * (dpIndex + dp * s); };
    switch (kind) {
        case GroupKind::World:
            out.resize(world);
            std::iota(out.begin(), out.end(), 0);
            break;
        case GroupKind::Tp:
            for (uint32_t k = 0; k < tp; ++k) {
                out.push_back(rankAt(k, d));
            }
            break;
        case GroupKind::Dp:
            for (uint32_t k = 0; k < dp; ++k) {
                out.push_back(rankAt(t, k));
            }
            break;
        case GroupKind::Ep:
            for (uint32_t k = 0; k < ep; ++k) {
                out.push_back(rankAt(t, k + ep * f));
            }
            break;
        case GroupKind::DpEp:
            for (uint32_t k = 0; k < dpEp; ++k) {
                out.push_back(rankAt(t, e + ep * k));
            }
            break;
    }
    return out;
}

// One rank's trace, written by running the policy's loop as the tool's state machine runs it: compute nodes
// in program order (each waits for the previous one and for the blocking collectives and received
// activations since), collectives after the compute that precedes them.
class WorkloadImporter::RankEmitter {
public:
    RankEmitter(const WorkloadImporter& im, Rank rank, RankStats* stats, IgnoredItems* notes,
                Diagnostics* diag, bool declareGroups, std::vector<bool>* kindsUsed)
        : m_im(im),
          m_w(im.m_w),
          m_layout(im.m_layout),
          m_rank(rank),
          m_stats(stats),
          m_notes(notes),
          m_diag(diag),
          m_declare(declareGroups),
          m_kindsUsed(kindsUsed),
          m_trace(rank),
          m_simai(im.m_w.format == WorkloadFormat::SimAI),
          m_stage(im.m_layout.stageOf(rank)) {}

    RankTraceBuilder run() {
        if (m_declare) {
            std::vector<DeclaredGroup> groups;
            for (int k = 1; k < kNumKinds; ++k) {
                const auto kind = static_cast<GroupKind>(k);
                if (m_im.m_kindUsed[k] && m_layout.size(kind) > 1) {
                    groups.push_back(
                        DeclaredGroup{m_layout.groupOf(kind, m_rank), m_layout.members(kind, m_rank), 0});
                }
            }
            if (!groups.empty()) {
                m_trace.addProcessGroups(groups);
            }
        }
        const std::size_t n = m_w.layers.size();
        m_prevWg.assign(n, kNone);
        for (m_pass = 0; m_pass < m_im.m_options.passes; ++m_pass) {
            m_thisWg.assign(n, kNone);
            switch (m_w.policy) {
                case Policy::Micro:
                    micro();
                    break;
                case Policy::DistributedInference:
                    inference();
                    break;
                case Policy::Data:
                    dataParallel();
                    break;
                case Policy::HybridDlrm:
                case Policy::HybridDlrmEnhanced:
                    dlrm();
                    break;
                case Policy::HybridTransformer:
                case Policy::HybridTransformerFwdInBckwd:
                    transformer();
                    break;
                case Policy::Model:
                case Policy::HybridDataModel:
                case Policy::HybridModelData:
                case Policy::HybridCustomized:
                    modelParallel();
                    break;
            }
            m_prevWg = m_thisWg;
        }
        flush();
        if (m_stats) {
            m_stats->unwrittenNs = m_pendingNs;
            m_stats->nodes = m_trace.nodes().size();
            for (const auto& node : m_trace.nodes()) {
                m_stats->nameBytes += node.name().size();
            }
        }
        return std::move(m_trace);
    }

private:
    // --- notes -------------------------------------------------------------------------------------------

    void note(const std::string& what, int line, uint64_t count = 1) {
        if (m_notes) {
            m_notes->add(what, atLine(m_w.path, line), count);
        }
    }
    void refuse(int line, const std::string& field, const std::string& what) {
        if (m_diag) {
            m_diag->error(fieldError(m_w.path, line, field, what));
        }
    }
    std::string tool() const { return std::string(toString(m_w.format)); }
    std::string where(uint32_t i, Phase p) const {
        return "layer " + std::to_string(i + 1) + " " + shownToken(m_w.layers[i].name) + " " +
               std::string(phaseColumn(p));
    }

    // --- emission ----------------------------------------------------------------------------------------

    void compute(uint64_t ns, const std::string& name) {
        if (ns == 0) {
            return;
        }
        m_pendingNs += static_cast<int64_t>(ns);
        if (m_openName.empty()) {
            m_openName = name;
        }
        if (m_stats) {
            m_stats->computeNs += ns;
        }
    }

    // The update time: the delay between a collective's end and the step that waits for it, which is the
    // next compute here.
    void delay(uint64_t ns, const std::string& layer) {
        if (ns == 0) {
            return;
        }
        m_pendingNs += static_cast<int64_t>(ns);
        if (m_openName.empty()) {
            m_delayName = layer + ".update";
        }
        if (m_stats) {
            m_stats->computeNs += ns;
        }
    }

    // Whole microseconds, the remainder carried to the next compute; below half a microsecond nothing is
    // written yet (a 0 µs node would still take ASTRA-sim's 1 ns).
    void flush() {
        if (m_pendingNs < 500) {
            return;
        }
        const uint64_t micros = static_cast<uint64_t>((m_pendingNs + 500) / 1000);
        std::vector<uint64_t> deps = std::move(m_waits);
        m_waits.clear();
        if (m_lastCompute != kNone) {
            deps.push_back(m_lastCompute);
        }
        m_lastCompute =
            m_trace.addCompute(m_openName.empty() ? m_delayName : m_openName, micros, std::move(deps));
        m_pendingNs -= static_cast<int64_t>(micros * 1000);
        m_openName.clear();
        m_delayName.clear();
        if (m_stats) {
            m_stats->computeMicros += micros;
        }
    }

    std::vector<uint64_t> commDeps() {
        flush();
        std::vector<uint64_t> deps = m_waits;
        if (m_lastCompute != kNone) {
            deps.push_back(m_lastCompute);
        }
        return deps;
    }

    // What runs after this point waits for `id`; the compute before it is written first.
    void waitFor(uint64_t id) {
        if (id != kNone) {
            flush();
            m_waits.push_back(id);
        }
    }

    void account(const std::string& key, uint64_t bytes) {
        if (m_stats) {
            RankStats::Comm& c = m_stats->comm[key];
            c.count += 1;
            c.bytes += bytes;
        }
    }

    // The collective of layer i's column p, if the policy issues it on a communicator of more than one rank
    // with something to move. Blocking: the rank's next step waits for it and its update time.
    uint64_t collective(uint32_t i, Phase p, bool blocking) {
        const LayerLine& layer = m_w.layers[i];
        const CommField& c = layer.comm[p];
        if (!c.present) {
            return kNone;
        }
        const Placement place = m_im.place(i, p);
        if (!place.issued) {
            note(place.why, c.line);
            return kNone;
        }
        if (c.allReduceAllToAll) {
            refuse(
                c.line, where(i, p) + " communication type",
                "ALLREDUCEALLTOALL is simulated by neither tool (SimAI reads it as an all-reduce on no "
                "communicator, ASTRA-sim 1.0 stops with 'no known collective operation'); expected ALLREDUCE "
                "or ALLTOALL");
            return kNone;
        }
        if (m_kindsUsed) {
            (*m_kindsUsed)[static_cast<int>(place.kind)] = true;
        }
        const uint32_t members = m_layout.size(place.kind);
        if (members == 1) {
            note("a collective on a " + std::string(groupName(place.kind)) +
                     " communicator of one rank: nothing to move, not issued",
                 c.line);
            return kNone;
        }
        uint64_t bytes = c.bytes;
        if (m_simai && m_w.policy == Policy::HybridTransformerFwdInBckwd && p == kForward && bytes > 0 &&
            bytes < 4096) {
            note(
                "a forward collective under 4096 B, raised to 4096 B as SimAI's "
                "HYBRID_TRANSFORMER_FWD_IN_BCKWD "
                "loop raises it",
                c.line);
            bytes = 4096;
        }
        if (bytes == 0) {
            note("a collective of 0 bytes: nothing to move, not issued", c.line);
            return kNone;
        }
        uint64_t commSize = bytes;
        if (m_simai && c.type == CollectiveType::AllGather) {
            // SimAI's all-gather size is the gathered output; Chakra's comm_size is each rank's input.
            commSize = bytes / members;
            if (bytes % members != 0) {
                note(
                    "a SimAI all-gather size not divisible by its group size: each rank's share is rounded "
                    "down, as SimAI's flow model divides it",
                    c.line);
            }
            if (commSize == 0) {
                note("a SimAI all-gather smaller than its group: nothing per rank, not issued", c.line);
                return kNone;
            }
        }
        const uint64_t id =
            m_trace.addCollective(layer.name + "." + std::string(phaseColumn(p)) + "_comm", c.type, commSize,
                                  commDeps(), m_layout.groupOf(place.kind, m_rank));
        account(std::string(toString(c.type)) + " " + std::string(groupName(place.kind)), commSize);
        if (blocking) {
            m_waits = {id};
            delay(layer.updateNs, layer.name);
        } else if (layer.updateNs > 0) {
            note(
                "the update time after a non-blocking collective: Chakra has no delay node below a "
                "microsecond, and only what waits for the collective would see it",
                layer.line);
        }
        return id;
    }

    void notIssued(uint32_t i, Phase p, const std::string& why) {
        const CommField& c = m_w.layers[i].comm[p];
        if (c.present) {
            note(why, c.line);
        }
    }

    void notRun(uint32_t i, Phase p, const std::string& why) {
        if (m_w.layers[i].computeNs[p] > 0) {
            note(why, m_w.layers[i].computeLine[p]);
        }
    }

    // --- the pipeline ------------------------------------------------------------------------------------

    bool pipelined() const { return m_layout.pp > 1; }
    // The micro-batch block of line i and whether i is its first / last line; false outside the blocks.
    bool blockOf(uint32_t i, uint32_t& micro, bool& first, bool& last) const {
        const MicroBatchBlocks& b = m_im.m_blocks;
        if (i < b.first || i >= b.first + b.lines * b.count) {
            return false;
        }
        micro = (i - b.first) / b.lines;
        first = (i - b.first) % b.lines == 0;
        last = (i - b.first) % b.lines == b.lines - 1;
        return true;
    }
    Rank peer(int stageDelta) const {
        return static_cast<Rank>(static_cast<int64_t>(m_rank) +
                                 stageDelta * static_cast<int64_t>(m_layout.tp * m_layout.dp));
    }

    void receive(TagKind kind, uint32_t micro, int stageDelta) {
        flush();
        const std::string what = kind == kActivation ? "activation" : "gradient";
        m_waits.push_back(m_trace.addRecv("mb" + std::to_string(micro) + "." + what + ".recv",
                                          peer(stageDelta), m_im.m_ppBytes, pipeTag(kind, m_pass, micro)));
    }

    void send(TagKind kind, uint32_t micro, int stageDelta) {
        const std::string what = kind == kActivation ? "activation" : "gradient";
        m_trace.addSend("mb" + std::to_string(micro) + "." + what + ".send", peer(stageDelta), m_im.m_ppBytes,
                        pipeTag(kind, m_pass, micro), commDeps());
        account("SEND pp", m_im.m_ppBytes);
    }

    void beforeForward(uint32_t i) {
        uint32_t micro = 0;
        bool first = false, last = false;
        if (pipelined() && m_stage > 0 && blockOf(i, micro, first, last) && first) {
            receive(kActivation, micro, -1);
        }
    }
    void afterForward(uint32_t i) {
        uint32_t micro = 0;
        bool first = false, last = false;
        if (pipelined() && m_stage + 1 < m_layout.pp && blockOf(i, micro, first, last) && last) {
            send(kActivation, micro, +1);
        }
    }
    void beforeBackward(uint32_t i) {
        uint32_t micro = 0;
        bool first = false, last = false;
        if (pipelined() && m_stage + 1 < m_layout.pp && blockOf(i, micro, first, last) && last) {
            receive(kGradient, micro, +1);
        }
    }
    void afterBackward(uint32_t i) {
        uint32_t micro = 0;
        bool first = false, last = false;
        if (pipelined() && m_stage > 0 && blockOf(i, micro, first, last) && first) {
            send(kGradient, micro, -1);
        }
    }

    // --- the loops (Workload::iterate_* of both tools) ----------------------------------------------------

    const std::string& nameOf(uint32_t i) const { return m_w.layers[i].name; }
    uint32_t layers() const { return static_cast<uint32_t>(m_w.layers.size()); }

    // Before a layer's forward, its previous pass's weight-gradient collective must be done.
    void waitPreviousWeightGradient(uint32_t i) { waitFor(m_prevWg[i]); }

    void forward(uint32_t i, bool issue, bool blocking, const char* suffix = ".fwd") {
        waitPreviousWeightGradient(i);
        compute(m_w.layers[i].computeNs[kForward], nameOf(i) + suffix);
        if (issue) {
            collective(i, kForward, blocking);
        }
    }

    void micro() {
        if (m_pass == 0) {
            const std::string why = "MICRO issues only the first layer's weight-gradient collective";
            for (uint32_t i = 0; i < layers(); ++i) {
                for (int p = 0; p < kNumPhases; ++p) {
                    notRun(i, static_cast<Phase>(p), why + " and runs no compute (both tools)");
                    if (i > 0 || p != kWeightGradient) {
                        notIssued(i, static_cast<Phase>(p), why + " (both tools)");
                    }
                }
            }
        }
        // Every pass's collective is issued at once, without waiting for the one before.
        m_thisWg[0] = collective(0, kWeightGradient, false);
    }

    void inference() {
        for (uint32_t i = 0; i < layers(); ++i) {
            forward(i, true, true);
            if (m_pass == 0) {
                for (Phase p : {kInputGradient, kWeightGradient}) {
                    notRun(i, p, "DISTRIBUTED_INFERENCE runs no backward pass (both tools)");
                    notIssued(i, p, "DISTRIBUTED_INFERENCE runs no backward pass (both tools)");
                }
            }
        }
    }

    void dataParallel() {
        for (uint32_t i = 0; i < layers(); ++i) {
            forward(i, false, false);
            if (m_pass == 0) {
                notIssued(i, kForward, "DATA issues no forward collectives (both tools)");
                notIssued(i, kInputGradient, "DATA issues no input-gradient collectives (both tools)");
            }
        }
        // Backward from the last layer, weight gradient first; the pass ends at layer 0's weight gradient.
        for (uint32_t i = layers(); i-- > 0;) {
            compute(m_w.layers[i].computeNs[kWeightGradient], nameOf(i) + ".wg");
            m_thisWg[i] = collective(i, kWeightGradient, false);
            if (i == 0) {
                if (m_pass == 0) {
                    notRun(
                        0, kInputGradient,
                        "layer 1's input-gradient compute: DATA ends the pass at layer 1's weight gradient "
                        "(both tools)");
                }
                break;
            }
            compute(m_w.layers[i].computeNs[kInputGradient], nameOf(i) + ".ig");
        }
    }

    void modelParallel() {
        const bool model = m_w.policy == Policy::Model;
        for (uint32_t i = 0; i < layers(); ++i) {
            forward(i, true, true);
        }
        for (uint32_t i = layers(); i-- > 0;) {
            compute(m_w.layers[i].computeNs[kInputGradient], nameOf(i) + ".ig");
            uint64_t ig = kNone;
            if (i > 0) {
                ig = collective(i, kInputGradient, false);
            } else if (m_pass == 0) {
                notIssued(0, kInputGradient,
                          "layer 1's input-gradient collective: " + policyName(m_w.policy) +
                              " issues none for the first layer (both tools)");
            }
            compute(m_w.layers[i].computeNs[kWeightGradient], nameOf(i) + ".wg");
            if (model) {
                if (m_pass == 0) {
                    notIssued(i, kWeightGradient, "MODEL issues no weight-gradient collectives (both tools)");
                }
            } else {
                m_thisWg[i] = collective(i, kWeightGradient, false);
            }
            waitFor(ig);
        }
    }

    void transformer() {
        const bool recompute = m_w.policy == Policy::HybridTransformerFwdInBckwd;
        for (uint32_t i = 0; i < layers(); ++i) {
            beforeForward(i);
            forward(i, true, true);
            afterForward(i);
        }
        for (uint32_t i = layers(); i-- > 0;) {
            beforeBackward(i);
            if (recompute &&
                std::binary_search(m_w.checkpointInitiates.begin(), m_w.checkpointInitiates.end(), i)) {
                const uint32_t from = m_im.checkpointBefore(i);
                for (uint32_t k = from; k < i; ++k) {
                    compute(m_w.layers[k].computeNs[kForward], nameOf(k) + ".recompute");
                    collective(k, kForward, true);
                }
            }
            compute(m_w.layers[i].computeNs[kInputGradient], nameOf(i) + ".ig");
            // SimAI waits for the input-gradient collective; ASTRA-sim 1.0 overlaps it with the
            // weight-gradient compute and waits before the next layer.
            const uint64_t ig = collective(i, kInputGradient, m_simai);
            compute(m_w.layers[i].computeNs[kWeightGradient], nameOf(i) + ".wg");
            m_thisWg[i] = collective(i, kWeightGradient, false);
            if (!m_simai) {
                waitFor(ig);
            }
            afterBackward(i);
        }
    }

    void dlrm() {
        const uint32_t lastBottom = m_w.dlrmLastBottomLayer->value;
        uint64_t embeddingForward = kNone;
        for (uint32_t i = 0; i < layers(); ++i) {
            waitPreviousWeightGradient(i);
            compute(m_w.layers[i].computeNs[kForward], nameOf(i) + ".fwd");
            const CommField& c = m_w.layers[i].comm[kForward];
            if (c.present && !c.allReduceAllToAll && c.type == CollectiveType::AllToAll) {
                const uint64_t id = collective(i, kForward, false);
                if (i == 0) {
                    embeddingForward = id;
                }
            } else {
                if (m_pass == 0) {
                    notIssued(i, kForward,
                              "HYBRID_DLRM issues only all-to-all forward collectives (both tools)");
                }
                if (i == lastBottom) {
                    // The top MLP needs the embeddings.
                    waitFor(embeddingForward);
                }
            }
        }
        uint64_t embeddingBackward = kNone;
        for (uint32_t i = layers(); i-- > 0;) {
            compute(m_w.layers[i].computeNs[kWeightGradient], nameOf(i) + ".wg");
            m_thisWg[i] = collective(i, kWeightGradient, false);
            if (i == 0) {
                if (m_w.policy == Policy::HybridDlrm) {
                    waitFor(embeddingBackward);
                }
                if (m_pass == 0) {
                    notRun(0, kInputGradient,
                           "layer 1's input-gradient compute: HYBRID_DLRM ends the pass at layer 1's weight "
                           "gradient (both tools)");
                }
                break;
            }
            compute(m_w.layers[i].computeNs[kInputGradient], nameOf(i) + ".ig");
            if (m_pass == 0) {
                notIssued(
                    i, kInputGradient,
                    "HYBRID_DLRM issues only the embedding layer's (layer 1's) input-gradient collective "
                    "(both tools)");
            }
            if (i == lastBottom + 1) {
                embeddingBackward = collective(0, kInputGradient, false);
            }
        }
        if (m_pass == 0 && lastBottom + 1 >= layers()) {
            notIssued(0, kInputGradient,
                      "the embedding layer's input-gradient collective: issued when the backward reaches the "
                      "layer after the last bottom layer, which this file does not have (both tools)");
        }
    }

    const WorkloadImporter& m_im;
    const TextWorkload& m_w;
    const Layout& m_layout;
    Rank m_rank;
    RankStats* m_stats;
    IgnoredItems* m_notes;
    Diagnostics* m_diag;
    bool m_declare;
    std::vector<bool>* m_kindsUsed;
    RankTraceBuilder m_trace;
    bool m_simai;
    uint32_t m_stage;
    uint32_t m_pass = 0;

    uint64_t m_lastCompute = kNone;
    std::vector<uint64_t> m_waits;
    int64_t m_pendingNs = 0;
    std::string m_openName, m_delayName;
    std::vector<uint64_t> m_prevWg, m_thisWg;
};

// --- WorkloadImporter -----------------------------------------------------------------------------------

WorkloadImporter::Placement WorkloadImporter::place(uint32_t i, Phase p) const {
    const LayerLine& layer = m_w.layers[i];
    const CommField& c = layer.comm[p];
    Placement out;
    if (m_w.format == WorkloadFormat::SimAI && isTransformer(m_w.policy)) {
        out.issued = true;
        out.kind = c.suffix == GroupSuffix::Ep     ? GroupKind::Ep
                   : c.suffix == GroupSuffix::DpEp ? GroupKind::DpEp
                   : p == kWeightGradient          ? GroupKind::Dp
                                                   : GroupKind::Tp;
        return out;
    }
    // ASTRA-sim 1.0's involved dimensions (SimAI keeps them for its other policies).
    Policy policy = m_w.policy;
    bool all = false;
    if (m_w.policy == Policy::HybridCustomized) {
        policy = *layer.layerPolicy;
    } else if (isDlrm(m_w.policy) && i == 0) {
        all = true;
    }
    const std::string tool(toString(m_w.format));
    auto none = [&](const std::string& policyText) {
        out.why = "a " + std::string(phaseName(p)) + " collective under " + policyText +
                  ", which involves no dimension for that column: not issued (both tools skip it)";
        return out;
    };
    const bool modelColumn = p != kWeightGradient;
    out.issued = true;
    if (all) {
        out.kind = GroupKind::World;
        return out;
    }
    switch (policy) {
        case Policy::Data:
        case Policy::Micro:
        case Policy::HybridDlrm:
        case Policy::HybridDlrmEnhanced:
            if (modelColumn) {
                out.issued = false;
                return none(policyName(policy));
            }
            out.kind = GroupKind::World;
            return out;
        case Policy::Model:
        case Policy::DistributedInference:
            if (!modelColumn) {
                out.issued = false;
                return none(policyName(policy));
            }
            out.kind = GroupKind::World;
            return out;
        case Policy::HybridDataModel:
        case Policy::HybridTransformer:
        case Policy::HybridTransformerFwdInBckwd:
            out.kind = modelColumn ? GroupKind::Tp : GroupKind::Dp;
            return out;
        case Policy::HybridModelData:
            out.kind = modelColumn ? GroupKind::Dp : GroupKind::Tp;
            return out;
        case Policy::HybridCustomized:
            break;
    }
    out.issued = false;
    return none(policyName(policy));
}

uint32_t WorkloadImporter::checkpointBefore(uint32_t initiator) const {
    const auto& cps = m_w.checkpoints;
    auto it = std::upper_bound(cps.begin(), cps.end(), initiator);
    return it == cps.begin() ? initiator : *std::prev(it);
}

std::optional<WorkloadImporter> WorkloadImporter::prepare(TextWorkload workload, const ImportOptions& options,
                                                          Diagnostics& diag) {
    WorkloadImporter im;
    im.m_w = std::move(workload);
    im.m_options = options;
    TextWorkload& w = im.m_w;
    IgnoredItems& ignored = im.m_ignored;
    ignored = w.ignored;
    const std::string tool(toString(w.format));
    const std::size_t errorsBefore = diag.errorCount();
    auto fail = [&](int line, const std::string& field, const std::string& what) {
        diag.error(fieldError(w.path, line, field, what));
    };
    const bool simaiTransformer = w.format == WorkloadFormat::SimAI && isTransformer(w.policy);
    const uint32_t layerCount = static_cast<uint32_t>(w.layers.size());
    if (options.passes == 0) {
        diag.error(w.path + ": passes: 0; expected at least one training pass");
        return std::nullopt;
    }

    // --- the world size
    uint64_t dimsProduct = 1;
    for (uint32_t d : options.dims) {
        dimsProduct *= d;
    }
    std::optional<uint32_t> world = options.gpus;
    if (!options.dims.empty()) {
        if (dimsProduct > (1u << 24)) {
            diag.error(w.path + ": dimensions: their product " + std::to_string(dimsProduct) +
                       " exceeds 2^24 ranks");
            return std::nullopt;
        }
        if (world && *world != dimsProduct) {
            diag.error(w.path + ": dimensions: their product " + std::to_string(dimsProduct) +
                       " is not the " + std::to_string(*world) +
                       " GPUs of the run; expected them to multiply to the GPU count");
            return std::nullopt;
        }
        world = static_cast<uint32_t>(dimsProduct);
    }
    if (simaiTransformer && w.allGpus) {
        if (world && *world != w.allGpus->value) {
            fail(w.allGpus->line, "all_gpus:",
                 std::to_string(w.allGpus->value) + ", but the run has " + std::to_string(*world) +
                     " GPUs; expected them to agree (SimAI would build its groups for the network's GPUs)");
            return std::nullopt;
        }
        if (options.networkGpus && w.allGpus->value > *options.networkGpus) {
            fail(w.allGpus->line, "all_gpus:",
                 std::to_string(w.allGpus->value) + ", but the network has " +
                     std::to_string(*options.networkGpus) + " GPUs; expected a network with a GPU per rank");
            return std::nullopt;
        }
        world = w.allGpus->value;
    }
    if (!world) {
        world = options.networkGpus;
    }
    if (!world || *world == 0) {
        diag.error(w.path + ": the GPU count is " + (world ? "0" : "not given") + ": " +
                   (simaiTransformer ? "line 1 has no all_gpus:" : tool + " files do not carry it") +
                   "; expected the number of GPUs (the tools take it from the network: run the file on one, "
                   "or give --gpus)");
        return std::nullopt;
    }
    const uint32_t n = *world;
    im.m_dim0 = options.dims.empty() ? n : options.dims[0];

    // --- the layout
    Layout& L = im.m_layout;
    L.world = n;
    if (simaiTransformer) {
        auto header = [&](const std::optional<Located<uint32_t>>& v, const char* label) -> uint32_t {
            if (!v) {
                ignored.add(std::string("line 1 has no ") + label + " (older AICB files): taken as 1",
                            atLine(w.path, 1));
                return 1;
            }
            return v->value;
        };
        uint32_t tp = header(w.tp, "model_parallel_NPU_group:");
        if (w.tp && tp == 0) {
            ignored.add(
                "model_parallel_NPU_group: 0 means every GPU (SimAI warns and takes the whole machine)",
                atLine(w.path, w.tp->line));
            tp = n;
        }
        const uint32_t ep = header(w.ep, "ep:"), pp = header(w.pp, "pp:");
        if (ep == 0 || pp == 0) {
            fail(1, ep == 0 ? "ep:" : "pp:", "0; expected a group size of at least 1");
            return std::nullopt;
        }
        if (n % (uint64_t{tp} * pp) != 0) {
            fail(1, "model_parallel_NPU_group: / pp:",
                 "TP " + std::to_string(tp) + " x PP " + std::to_string(pp) + " does not divide the " +
                     std::to_string(n) + " GPUs; expected GPUs = TP x DP x PP");
            return std::nullopt;
        }
        L.tp = tp;
        L.pp = pp;
        L.dp = n / (tp * pp);
        if (L.dp % ep != 0) {
            fail(w.ep ? w.ep->line : 1, "ep:",
                 std::to_string(ep) + " does not divide DP = " + std::to_string(L.dp) +
                     " (GPUs / (TP x PP)); expected DP = EP x DP_EP");
            return std::nullopt;
        }
        L.ep = ep;
        L.dpEp = L.dp / ep;
    } else {
        uint32_t block = im.m_dim0;
        if (isTransformer(w.policy)) {
            block = w.tp->value;
            if (block == 0 || n % block != 0) {
                fail(w.tp->line, "model_parallel_NPU_group",
                     std::to_string(block) + " does not divide the " + std::to_string(n) +
                         " GPUs; expected a TP size that divides the GPU count");
                return std::nullopt;
            }
            // ASTRA-sim 1.0 splits its dimensions where the model-parallel NPUs end.
            uint64_t below = 1;
            for (uint32_t d : options.dims) {
                if (below * d > block) {
                    if (block % below != 0 || d % (block / below) != 0) {
                        fail(w.tp->line, "model_parallel_NPU_group",
                             std::to_string(block) +
                                 " NPUs cannot be split off the dimensions (fastest first) at "
                                 "a dimension boundary or a divisor of one; expected a TP size "
                                 "ASTRA-sim 1.0's break_dimension can cut");
                        return std::nullopt;
                    }
                    break;
                }
                below *= d;
            }
        } else if (n % block != 0) {
            diag.error(w.path + ": dimensions: the first (" + std::to_string(block) + ") does not divide " +
                       std::to_string(n) + " GPUs");
            return std::nullopt;
        }
        L.tp = block;
        L.dp = n / block;
    }

    // --- header values the run does not use
    if (simaiTransformer) {
        // With pp 1 SimAI's bubble formula is zero, so vpp and ga change nothing there either; with a
        // pipeline ga is the micro-batch count here, and vpp (AICB writes the layers per stage there) is not
        // simulated.
        if (w.vpp && L.pp > 1) {
            ignored.add(
                "vpp: " + std::to_string(w.vpp->value) +
                    ": SimAI uses it only in its bubble formula (AICB writes the layers per stage there); "
                    "the simulated pipeline does not interleave stages",
                atLine(w.path, w.vpp->line));
        }
        if (w.ppCommBytes && L.pp == 1 && w.ppCommBytes->value > 0) {
            ignored.add("pp_comm: with pp 1 there is no pipeline to carry it (SimAI warns too)",
                        atLine(w.path, w.ppCommBytes->line));
        }
    } else if (w.ppCommBytes) {
        ignored.add("pp_comm: " + tool + " has no pipeline under " + policyName(w.policy),
                    atLine(w.path, w.ppCommBytes->line));
    }

    // --- checks of the layers against the policy
    if (w.format == WorkloadFormat::SimAI && !isTransformer(w.policy)) {
        for (uint32_t i = 0; i < layerCount; ++i) {
            for (int p = 0; p < kNumPhases; ++p) {
                const CommField& c = w.layers[i].comm[p];
                if (c.present && c.suffix != GroupSuffix::None) {
                    fail(c.line,
                         "layer " + std::to_string(i + 1) + " " +
                             std::string(phaseColumn(static_cast<Phase>(p))) + " communication type",
                         "'" + c.token +
                             "': SimAI gives _EP and _DP_EP a communicator only under "
                             "HYBRID_TRANSFORMER policies (its TP and EP sizes are not set under " +
                             policyName(w.policy) + ")");
                }
            }
        }
    }
    if (w.policy == Policy::HybridCustomized) {
        for (uint32_t i = 0; i < layerCount; ++i) {
            const Policy p = *w.layers[i].layerPolicy;
            if (isTransformer(p) || p == Policy::HybridCustomized) {
                fail(w.layers[i].line, "layer " + std::to_string(i + 1) + " layer policy",
                     policyName(p) +
                         " needs settings a HYBRID_CUSTOMIZED file cannot give (a TP size); expected "
                         "DATA, MODEL, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, HYBRID_DLRM, MICRO or "
                         "DISTRIBUTED_INFERENCE");
            }
        }
    }
    if (isDlrm(w.policy) && w.dlrmLastBottomLayer->value >= layerCount) {
        fail(w.dlrmLastBottomLayer->line, "last bottom layer",
             std::to_string(w.dlrmLastBottomLayer->value) + " is not a layer index in 0.." +
                 std::to_string(layerCount - 1));
    }
    if (w.policy == Policy::HybridTransformerFwdInBckwd) {
        std::sort(w.checkpoints.begin(), w.checkpoints.end());
        w.checkpoints.erase(std::unique(w.checkpoints.begin(), w.checkpoints.end()), w.checkpoints.end());
        std::sort(w.checkpointInitiates.begin(), w.checkpointInitiates.end());
        w.checkpointInitiates.erase(std::unique(w.checkpointInitiates.begin(), w.checkpointInitiates.end()),
                                    w.checkpointInitiates.end());
        for (uint32_t c : w.checkpoints) {
            if (c >= layerCount) {
                fail(w.checkpointsLine, "checkpoints",
                     "layer " + std::to_string(c) + " is not a layer index in 0.." +
                         std::to_string(layerCount - 1));
            }
        }
        for (uint32_t i : w.checkpointInitiates) {
            if (i >= layerCount) {
                fail(w.checkpointsLine, "checkpoint_initiates",
                     "layer " + std::to_string(i) + " is not a layer index in 0.." +
                         std::to_string(layerCount - 1));
                continue;
            }
            auto it = std::upper_bound(w.checkpoints.begin(), w.checkpoints.end(), i);
            if (it == w.checkpoints.begin() || *std::prev(it) == i) {
                fail(w.checkpointsLine, "checkpoint_initiates",
                     "layer " + std::to_string(i) +
                         (it == w.checkpoints.begin() ? " has no checkpoint at or before it"
                                                      : " is itself a checkpoint") +
                         "; both tools would walk the recompute off the layer list");
                continue;
            }
            const uint32_t from = *std::prev(it);
            auto between = std::upper_bound(w.checkpointInitiates.begin(), w.checkpointInitiates.end(), from);
            if (*between != i) {
                fail(w.checkpointsLine, "checkpoint_initiates",
                     "layer " + std::to_string(i) + "'s recompute from checkpoint " + std::to_string(from) +
                         " passes initiator " + std::to_string(*between) +
                         ", where both tools would resume the backward and skip the layers between; expected "
                         "a "
                         "checkpoint between them");
            }
        }
    }
    if (diag.errorCount() != errorsBefore) {
        return std::nullopt;
    }

    // --- the pipeline: micro-batch blocks and what travels between stages
    if (L.pp > 1) {
        const uint32_t ga = w.ga ? w.ga->value : 1;
        if (w.ga && ga == 0) {
            fail(w.ga->line, "ga:", "0 with pp " + std::to_string(L.pp) + "; expected the micro-batch count");
            return std::nullopt;
        }
        MicroBatchBlocks& b = im.m_blocks;
        b = {0, layerCount, 1};
        if (ga > 1) {
            // AICB repeats one stage's layer list once per micro-batch: the longest period with ga repeats.
            std::unordered_map<std::string, uint32_t> ids;
            std::vector<uint32_t> name(layerCount);
            for (uint32_t i = 0; i < layerCount; ++i) {
                name[i] = ids.emplace(w.layers[i].name, static_cast<uint32_t>(ids.size())).first->second;
            }
            bool found = false;
            for (uint32_t period = layerCount / ga; period >= 1 && !found; --period) {
                const uint32_t need = (ga - 1) * period;
                uint32_t run = 0;
                for (uint32_t i = 0; i + period < layerCount; ++i) {
                    run = name[i] == name[i + period] ? run + 1 : 0;
                    if (run == need) {
                        b = {i + 1 - need, period, ga};
                        found = true;
                        break;
                    }
                }
                if (need == 0) {
                    break;
                }
            }
            if (!found) {
                fail(w.ga->line, "ga:",
                     std::to_string(ga) + " with pp " + std::to_string(L.pp) +
                         ", but the layer lines hold no " + std::to_string(ga) +
                         " consecutive copies of one layer sequence; expected AICB's layout (the "
                         "micro-batches "
                         "of one stage written out) to know what each stage sends per micro-batch");
                return std::nullopt;
            }
        }
        if (w.ppCommBytes && w.ppCommBytes->value > 0) {
            im.m_ppBytes = w.ppCommBytes->value;
            im.m_ppBytesSource = "pp_comm on line 1";
        } else {
            // The activation of one micro-batch, 2 x micro-batch x sequence x hidden bytes: what AICB writes
            // as pp_comm, and what a layer's forward TP all-reduce carries (its all-gather the same,
            // gathered, with sequence parallelism, where each rank holds 1/TP of it).
            for (uint32_t i = b.first; i < b.first + b.lines && im.m_ppBytes == 0; ++i) {
                const CommField& c = w.layers[i].comm[kForward];
                if (c.present && c.suffix == GroupSuffix::None && c.bytes > 0 &&
                    (c.type == CollectiveType::AllReduce || c.type == CollectiveType::AllGather)) {
                    im.m_ppBytes = c.type == CollectiveType::AllGather ? c.bytes / L.tp : c.bytes;
                    im.m_ppBytesSource = "no pp_comm on line 1: the activation size from layer " +
                                         std::to_string(i + 1) + "'s forward " + c.token + " of " +
                                         std::to_string(c.bytes) + " B" +
                                         (c.type == CollectiveType::AllGather ? " / TP" : "") + " (line " +
                                         std::to_string(c.line) + ")";
                }
            }
            if (im.m_ppBytes == 0) {
                fail(1, "pp_comm",
                     std::string(w.ppCommBytes ? "0" : "missing") + " with pp " + std::to_string(L.pp) +
                         ", and no forward TP all-reduce or all-gather gives the activation size; "
                         "expected pp_comm: <bytes per micro-batch activation>");
                return std::nullopt;
            }
            ignored.add("pp_comm: " + std::string(w.ppCommBytes ? "0" : "absent") + " with pp " +
                            std::to_string(L.pp) + " (SimAI warns): " + im.m_ppBytesSource,
                        atLine(w.path, 1));
        }
        im.m_differences.push_back(
            "the pipeline is simulated: SimAI runs every GPU as if PP were 1 and adds a bubble formula; here "
            "each "
            "of the " +
            std::to_string(L.pp) +
            " stages runs the file's lines and sends activations and "
            "gradients to its neighbours per micro-batch (all forwards, then all backwards, in the file's "
            "order)");
        im.m_differences.push_back(
            "DP groups span the ranks of one stage (" + std::to_string(L.dp) +
            " = GPUs / (TP x PP)); SimAI's own ns-3 runs build them over GPUs / TP (PP taken as 1)");
    }
    if (simaiTransformer && L.tp == 1) {
        bool expertComm = false;
        for (const LayerLine& layer : w.layers) {
            for (Phase p : {kForward, kInputGradient}) {
                expertComm |= layer.comm[p].present && layer.comm[p].suffix != GroupSuffix::None;
            }
        }
        if (expertComm) {
            im.m_differences.push_back(
                "with TP 1 SimAI's dimension split finds no model-parallel dimension and skips every forward "
                "and "
                "input-gradient collective, EP ones included; the EP and DP_EP ones run here");
        }
    }

    // --- one trial rank: the kinds of communicators used, what is not issued, refused collectives
    {
        RankEmitter trial(im, 0, nullptr, &ignored, &diag, false, &im.m_kindUsed);
        trial.run();
        if (diag.errorCount() != errorsBefore) {
            return std::nullopt;
        }
    }
    for (uint32_t s = 0; s < L.pp; ++s) {
        RankStats stats;
        RankEmitter(im, s * L.tp * L.dp, &stats, nullptr, nullptr, true, nullptr).run();
        im.m_stageStats.push_back(std::move(stats));
    }
    return im;
}

RankTraceBuilder WorkloadImporter::buildRank(Rank rank, RankStats* stats) const {
    return RankEmitter(*this, rank, stats, nullptr, nullptr, true, nullptr).run();
}

uint64_t WorkloadImporter::totalNodes() const {
    uint64_t nodes = 0;
    for (const RankStats& s : m_stageStats) {
        nodes += s.nodes * m_layout.tp * m_layout.dp;
    }
    return nodes;
}

uint64_t WorkloadImporter::estimateTraceSetBytes() const {
    // Per decoded node: TraceNode (80 B), its id index entry (16 B), about two parents in CSR form, and the
    // executor's per-node state; measured at about 170 B with the reader's and allocator's slack.
    constexpr uint64_t kBytesPerNode = 170;
    uint64_t bytes = 0;
    for (const RankStats& s : m_stageStats) {
        bytes += (s.nodes * kBytesPerNode + s.nameBytes + 1024) * m_layout.tp * m_layout.dp;
    }
    uint64_t members = 0;
    for (int k = 1; k < kNumKinds; ++k) {
        if (m_kindUsed[k]) {
            members += m_layout.size(static_cast<GroupKind>(k));
        }
    }
    // Every rank's declarations, and the communicators once (a map entry and the members).
    return bytes + uint64_t{m_layout.world} * members * 4 * 2 + uint64_t{m_layout.world} * 64;
}

std::string WorkloadImporter::summary() const {
    const Layout& L = m_layout;
    std::string out;
    char line[512];
    std::snprintf(line, sizeof line, "imported %s as %s workload: %s, %zu layer lines%s\n", m_w.path.c_str(),
                  withArticle(m_w.format).c_str(), policyName(m_w.policy).c_str(), m_w.layers.size(),
                  m_options.passes > 1 ? (", " + std::to_string(m_options.passes) + " passes").c_str() : "");
    out += line;
    if (m_w.format == WorkloadFormat::SimAI && isTransformer(m_w.policy)) {
        std::snprintf(
            line, sizeof line,
            "  ranks: %u = TP %u x DP %u x PP %u, DP = EP %u x DP_EP %u; rank = tp + %u (dp + %u stage), "
            "dp = ep + %u dp_ep\n",
            L.world, L.tp, L.dp, L.pp, L.ep, L.dpEp, L.tp, L.dp, L.ep);
    } else {
        std::snprintf(line, sizeof line,
                      "  ranks: %u; model-parallel block %u, data-parallel stride groups of %u\n", L.world,
                      L.tp, L.dp);
    }
    out += line;
    if (L.pp > 1) {
        const MicroBatchBlocks& b = m_blocks;
        std::snprintf(
            line, sizeof line,
            "  pipeline: %u stages; %u micro-batch%s of %u layer lines (layers %u..%u; %u opening and %u "
            "closing lines run once per stage); %llu B per activation and gradient (%s)\n",
            L.pp, b.count, b.count == 1 ? "" : "es", b.lines, b.first + 1, b.first + b.lines * b.count,
            b.first, static_cast<uint32_t>(m_w.layers.size()) - b.first - b.lines * b.count,
            static_cast<unsigned long long>(m_ppBytes), m_ppBytesSource.c_str());
        out += line;
    }
    for (uint32_t s = 0; s < m_stageStats.size(); ++s) {
        const RankStats& st = m_stageStats[s];
        if (s > 0 && s + 1 < m_stageStats.size()) {
            continue;  // inner stages are like the first apart from what they receive
        }
        std::snprintf(
            line, sizeof line,
            "  rank %u%s: compute %.6f ms in the file, %llu us written (remainder %lld ns), %llu nodes\n",
            s * L.tp * L.dp, L.pp > 1 ? (" (stage " + std::to_string(s) + ")").c_str() : "",
            static_cast<double>(st.computeNs) / 1e6, static_cast<unsigned long long>(st.computeMicros),
            static_cast<long long>(st.unwrittenNs), static_cast<unsigned long long>(st.nodes));
        out += line;
        for (const auto& [key, c] : st.comm) {
            std::snprintf(line, sizeof line, "    %-22s %8llu x, %16llu B\n", key.c_str(),
                          static_cast<unsigned long long>(c.count), static_cast<unsigned long long>(c.bytes));
            out += line;
        }
    }
    if (!m_ignored.items().empty()) {
        out += "  ignored (counted per rank where per layer):\n";
        for (const auto& [what, item] : m_ignored.items()) {
            out += "    " + std::to_string(item.count) + " x " + what + " (first: " + item.firstWhere + ")\n";
        }
    }
    for (const std::string& d : m_differences) {
        out += "  differs from " + std::string(toString(m_w.format)) + "'s own run: " + d + "\n";
    }
    return out;
}

std::optional<WorkloadImporter> importTextWorkload(const std::string& path,
                                                   std::optional<WorkloadFormat> format,
                                                   WorkloadFormat fallback, const ImportOptions& options,
                                                   Diagnostics& diag, std::string* formatNote) {
    std::string text;
    if (!readTextFile(path, text, diag, "workload file")) {
        return std::nullopt;
    }
    std::string why;
    if (!format) {
        format = detectFormat(text, &why);
        if (!format) {
            format = fallback;
            why = "nothing in it is read by only one of SimAI and ASTRA-sim 1.0; taken as " +
                  std::string(toString(fallback)) + "'s";
        }
    } else {
        why = "as asked";
    }
    if (formatNote) {
        *formatNote = "read as " + withArticle(*format) + " workload (" + why + ")";
    }
    std::optional<TextWorkload> parsed = parseTextWorkload(path, text, *format, diag);
    if (!parsed) {
        return std::nullopt;
    }
    std::optional<WorkloadImporter> im = WorkloadImporter::prepare(std::move(*parsed), options, diag);
    if (im) {
        im->ignored().report(diag);
    }
    return im;
}

TraceSet importAsTraceSet(const WorkloadImporter& importer, const TraceSetOptions& traceOptions,
                          uint64_t maxMemoryBytes, Diagnostics& diag) {
    const std::string& path = importer.workload().path;
    if (!checkMemoryNeed(importer.estimateTraceSetBytes(), maxMemoryBytes,
                         path + ": the imported workload (" + std::to_string(importer.numRanks()) +
                             " ranks, " + std::to_string(importer.totalNodes()) + " trace nodes)",
                         "fewer GPUs or layer lines, or more memory", diag)) {
        return TraceSet();
    }
    return loadTraceSetFromRanks(
        path, importer.numRanks(), [&](Rank r) { return importer.buildRank(r).serialize(); },
        [&](Rank r) { return path + " (rank " + std::to_string(r) + ")"; }, traceOptions, diag);
}

}  // namespace mlnet::importers

namespace mlnet::importers {

TraceSet importForSimulator(const std::string& path, std::optional<WorkloadFormat> format, uint32_t passes,
                            uint32_t networkGpus, const std::vector<uint32_t>& networkDims,
                            const TraceSetOptions& traceOptions, uint64_t maxMemoryBytes, Diagnostics& diag,
                            std::string& report) {
    std::string text;
    if (!readTextFile(path, text, diag, "workload file")) {
        return TraceSet();
    }
    std::string why;
    if (!format) {
        format = detectFormat(text, &why);
        if (!format) {
            format = WorkloadFormat::Astra1;
            why =
                "nothing in it is read by only one of the tools, so it is taken as ASTRA-sim 1.0's, the "
                "format's "
                "origin; --workload-format=simai reads it as SimAI's";
        }
    } else {
        why = "as asked: --workload-format, or SimAI's -w";
    }
    report = "workload: " + path + " read as " + withArticle(*format) + " text workload (" + why + ")\n";
    ImportOptions options;
    options.networkGpus = networkGpus;
    options.passes = passes;
    uint64_t product = 1;
    for (uint32_t d : networkDims) {
        product *= d;
    }
    if (*format == WorkloadFormat::Astra1 && product == networkGpus) {
        options.dims = networkDims;
    }
    std::optional<TextWorkload> parsed = parseTextWorkload(path, text, *format, diag);
    if (!parsed) {
        return TraceSet();
    }
    std::optional<WorkloadImporter> im = WorkloadImporter::prepare(std::move(*parsed), options, diag);
    if (!im) {
        return TraceSet();
    }
    im->ignored().report(diag);
    report += im->summary();
    return importAsTraceSet(*im, traceOptions, maxMemoryBytes, diag);
}

std::string simaiSystemJson(std::size_t dimensions) {
    // One algorithm per logical dimension: the planner refuses a shorter list rather than use only its first
    // entry, as ASTRA-sim would. SimAI's ns-3 network is a single dimension, so on a multi-dimensional
    // network the rings run per dimension, which SimAI has no counterpart for.
    auto perDimension = [&](const char* algorithm) {
        std::string list = "[";
        for (std::size_t d = 0; d < std::max<std::size_t>(dimensions, 1); ++d) {
            list += std::string(d ? ", " : "") + "\"" + algorithm + "\"";
        }
        return list + "]";
    };
    return std::string("{\n") +
           "    \"scheduling-policy\": \"FIFO\",\n"
           "    \"endpoint-delay\": 6000,\n"
           "    \"active-chunks-per-dimension\": 1,\n"
           "    \"preferred-dataset-splits\": 1,\n"
           "    \"all-reduce-implementation\": " +
           perDimension("ring") + ",\n    \"all-gather-implementation\": " + perDimension("ring") +
           ",\n    \"reduce-scatter-implementation\": " + perDimension("ring") +
           ",\n    \"all-to-all-implementation\": " + perDimension("direct") +
           ",\n    \"collective-optimization\": \"baseline\"\n}";
}

}  // namespace mlnet::importers

// SimAI / AICB and ASTRA-sim 1.0 text workloads (astra-core/workload/importers/): parsing of both formats
// with files written here, errors that name the file, line and field, closed forms of what a small
// TP/EP/DP/PP file becomes per rank and communicator, the loops of every policy (blocking, overlap,
// recompute, DLRM), traces that pass the strict checker and run to the end on the analytical model.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "sim-test-util.h"
#include "trace-test-util.h"
#include "workload/importers/workload-importer.h"

namespace mlnet::test {
namespace {

using importers::GroupKind;
using importers::ImportOptions;
using importers::Policy;
using importers::RankStats;
using importers::TextWorkload;
using importers::WorkloadFormat;
using importers::WorkloadImporter;
using ::testing::HasSubstr;

std::optional<TextWorkload> parse(const std::string& text, WorkloadFormat format, Diagnostics& diag,
                                  const std::string& path = "w.txt") {
    return importers::parseTextWorkload(path, text, format, diag);
}

std::string parseError(const std::string& text, WorkloadFormat format = WorkloadFormat::SimAI) {
    Diagnostics diag;
    EXPECT_FALSE(parse(text, format, diag).has_value()) << text;
    return diag.hasErrors() ? diag.firstError() : std::string();
}

std::optional<WorkloadImporter> prepare(const std::string& text, WorkloadFormat format, Diagnostics& diag,
                                        ImportOptions options = {}) {
    std::optional<TextWorkload> w = parse(text, format, diag);
    if (!w) {
        return std::nullopt;
    }
    return WorkloadImporter::prepare(std::move(*w), options, diag);
}

WorkloadImporter prepared(const std::string& text, WorkloadFormat format, ImportOptions options = {}) {
    Diagnostics diag;
    std::optional<WorkloadImporter> im = prepare(text, format, diag, options);
    EXPECT_TRUE(im.has_value()) << diag.format(Severity::Error);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    return std::move(*im);
}

std::string prepareError(const std::string& text, WorkloadFormat format, ImportOptions options = {}) {
    Diagnostics diag;
    EXPECT_FALSE(prepare(text, format, diag, options).has_value()) << text;
    return diag.hasErrors() ? diag.firstError() : std::string();
}

// Every rank built, encoded and read back through the trace reader, strict (ASTRA-sim parity).
TraceSet loadStrict(const WorkloadImporter& im) {
    TraceSetOptions options;
    options.read.strict = true;
    Diagnostics diag;
    TraceSet set = importers::importAsTraceSet(im, options, UINT64_MAX, diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    return set;
}

// A small MoE file in AICB's layout: one opening data-parallel row, two micro-batches of an embedding and an
// MoE line, one closing line. 16 GPUs = TP 2 x DP 4 x PP 2, DP = EP 2 x DP_EP 2.
const std::string kMoe =
    "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 2 pp: 2 vpp: 2 ga: 2 all_gpus: 16 "
    "checkpoints: 0 checkpoint_initiates: 0 pp_comm: 8192\n"
    "6\n"
    "grad_sync\t-1\t1000\tNONE\t0\t2000\tNONE\t0\t3000\tALLGATHER\t8192\t100\n"
    "embedding\t-1\t5000\tALLREDUCE\t65536\t1000\tNONE\t0\t1000\tNONE\t0\t100\n"
    "moe\t-1\t2000\tALLTOALL_EP\t32768\t3000\tALLTOALL_EP\t32768\t500\tREDUCESCATTER_DP_EP\t16384\t100\n"
    "embedding\t-1\t5000\tALLREDUCE\t65536\t1000\tNONE\t0\t1000\tNONE\t0\t100\n"
    "moe\t-1\t2000\tALLTOALL_EP\t32768\t3000\tALLTOALL_EP\t32768\t500\tREDUCESCATTER_DP_EP\t16384\t100\n"
    "loss\t-1\t0\tALLREDUCE\t4\t0\tNONE\t0\t0\tNONE\t0\t100\n";

TEST(TextWorkloadParser, ReadsSimAiHeaderLabelsInAnyOrderAndTheLayers) {
    Diagnostics diag;
    auto w = parse(kMoe, WorkloadFormat::SimAI, diag);
    ASSERT_TRUE(w) << diag.format(Severity::Error);
    EXPECT_EQ(w->policy, Policy::HybridTransformerFwdInBckwd);
    EXPECT_EQ(w->tp->value, 2u);
    EXPECT_EQ(w->ep->value, 2u);
    EXPECT_EQ(w->pp->value, 2u);
    EXPECT_EQ(w->ga->value, 2u);
    EXPECT_EQ(w->allGpus->value, 16u);
    EXPECT_EQ(w->ppCommBytes->value, 8192u);
    ASSERT_EQ(w->layers.size(), 6u);
    const auto& moe = w->layers[2];
    EXPECT_EQ(moe.name, "moe");
    EXPECT_EQ(moe.line, 5);
    EXPECT_EQ(moe.computeNs[importers::kInputGradient], 3000u);
    EXPECT_EQ(moe.comm[importers::kForward].type, CollectiveType::AllToAll);
    EXPECT_EQ(moe.comm[importers::kForward].suffix, importers::GroupSuffix::Ep);
    EXPECT_EQ(moe.comm[importers::kWeightGradient].type, CollectiveType::ReduceScatter);
    EXPECT_EQ(moe.comm[importers::kWeightGradient].suffix, importers::GroupSuffix::DpEp);
    EXPECT_EQ(moe.updateNs, 100u);

    // The order of labels is free, pp_comm comes with or without its colon and as AICB's Python float.
    auto v = parse(
        "HYBRID_TRANSFORMER ga: 1 all_gpus: 4 pp_comm 25165824.0 model_parallel_NPU_group: 4\n1\n"
        "l -1 1 NONE 0 1 NONE 0 1 NONE 0 1",
        WorkloadFormat::SimAI, diag);
    ASSERT_TRUE(v) << diag.format(Severity::Error);
    EXPECT_EQ(v->ppCommBytes->value, 25165824u);
    EXPECT_EQ(v->tp->value, 4u);
}

TEST(TextWorkloadParser, SimAiHonoursOnlyTheFirstCheckpointOfEachListAndCountsTheRest) {
    Diagnostics diag;
    auto w = parse(
        "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 all_gpus: 2 checkpoints: 2 1 3 "
        "checkpoint_initiates: 2 2 5 expert_parallel_npu_group: 8\n6\n" +
            std::string(6 * 1, ' ') +
            [] {
                std::string s;
                for (int i = 0; i < 6; ++i) {
                    s += "l" + std::to_string(i) + " -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n";
                }
                return s;
            }(),
        WorkloadFormat::SimAI, diag);
    ASSERT_TRUE(w) << diag.format(Severity::Error);
    EXPECT_EQ(w->checkpoints, (std::vector<uint32_t>{1}));
    EXPECT_EQ(w->checkpointInitiates, (std::vector<uint32_t>{2}));
    std::string ignored;
    for (const auto& [what, item] : w->ignored.items()) {
        ignored += std::to_string(item.count) + " " + what + "\n";
    }
    EXPECT_THAT(ignored, HasSubstr("1 line 1: 'checkpoints:' entries after the first"));
    EXPECT_THAT(ignored, HasSubstr("'expert_parallel_npu_group: 8' is no label SimAI reads"));
}

TEST(TextWorkloadParser, ReadsAstra1HeadersAsATokenStream) {
    Diagnostics diag;
    auto t = parse(
        "HYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 4 checkpoints: 2 1 3\n"
        "checkpoint_initiates: 2 2 5\n6\n"
        "a -1 1 NONE 0 1 NONE 0 1 NONE 0 1 b -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n"
        "c -1 1 NONE 0 1 NONE 0 1 NONE 0 1\nd -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n"
        "e -1 1 NONE 0 1 NONE 0 1 NONE 0 1\nf -1 1 NONE 0 1 NONE 0 1 NONE 0 1",
        WorkloadFormat::Astra1, diag);
    ASSERT_TRUE(t) << diag.format(Severity::Error);
    EXPECT_EQ(t->tp->value, 4u);
    EXPECT_EQ(t->checkpoints, (std::vector<uint32_t>{1, 3}));
    EXPECT_EQ(t->checkpointInitiates, (std::vector<uint32_t>{2, 5}));
    EXPECT_EQ(t->layers.size(), 6u);
    EXPECT_EQ(t->layers[1].name, "b");

    auto d = parse(
        "HYBRID_DLRM 2\n3\nemb -1 1 ALLTOALL 64 1 ALLTOALL 64 1 NONE 0 1\n"
        "bot -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 128 1\ntop -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 256 1\n",
        WorkloadFormat::Astra1, diag);
    ASSERT_TRUE(d) << diag.format(Severity::Error);
    EXPECT_EQ(d->dlrmLastBottomLayer->value, 2u);
}

TEST(TextWorkloadParser, DetectsWhichToolAFileIsFor) {
    std::string why;
    EXPECT_EQ(importers::detectFormat(kMoe, &why), WorkloadFormat::SimAI);
    EXPECT_THAT(why, HasSubstr("ep:"));
    EXPECT_EQ(importers::detectFormat("HYBRID_TRANSFORMER model_parallel_NPU_group: 2\n1\n"
                                      "l -1 1 ALLTOALL_EP 8 1 NONE 0 1 NONE 0 1\n"),
              WorkloadFormat::SimAI);
    EXPECT_EQ(importers::detectFormat("HYBRID_DLRM 4\n1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n"),
              WorkloadFormat::Astra1);
    EXPECT_EQ(importers::detectFormat("HYBRID_TRANSFORMER\nmodel_parallel_NPU_group: 2\n1\n"),
              WorkloadFormat::Astra1);
    EXPECT_FALSE(importers::detectFormat("DATA\n1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n").has_value());
}

TEST(TextWorkloadParser, ErrorsNameTheFileLineAndField) {
    EXPECT_THAT(parseError("TRAINING\n1\n"),
                HasSubstr("w.txt: line 1: policy: 'TRAINING' is not a parallelism "
                          "policy; expected one of DATA, MODEL"));
    EXPECT_THAT(parseError("DATA\n\n"), HasSubstr("line 2: layer count: line 2 is empty"));
    EXPECT_THAT(parseError("DATA\n2 layers\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n"),
                HasSubstr("line 2: layer count: line 2 has 2 fields; SimAI reads only the count there"));
    EXPECT_THAT(parseError("DATA\n2\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n"),
                HasSubstr("line 3: layer 2: the file ends after 1 of the 2 layers"));
    EXPECT_THAT(parseError("DATA\n1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 1\nextra -1 1\n"),
                HasSubstr("line 4: layer count (line 2): the file continues after the 1 layers"));
    // A count the file cannot hold is refused at the end of the file, not allocated.
    EXPECT_THAT(parseError("DATA\n16777216\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n"),
                HasSubstr("line 3: layer 2: the file ends after 1 of the 16777216 layers"));
    // Bytes that are not text are shown escaped, and a long token cut.
    EXPECT_THAT(parseError(std::string("DA\x01TA\xff\n1\n")),
                HasSubstr("line 1: policy: 'DA\\x01TA\\xff' is not a parallelism policy"));
    EXPECT_THAT(parseError("DATA\n1\n" + std::string(100, 'n') + " -1 1 NONE 0 1 NONE 0 1 NONE 0 x\n"),
                HasSubstr("layer 1 '" + std::string(48, 'n') + "'... update time (ns): 'x'"));
    EXPECT_THAT(parseError("DATA\n1\nconv -1 12x NONE 0 1 NONE 0 1 NONE 0 1\n"),
                HasSubstr("line 3: layer 1 'conv' fwd compute time (ns): '12x' is not a whole number"));
    EXPECT_THAT(
        parseError("DATA\n1\nconv -1 1 NONE 0 1 NONE 0 1 ALLREDUC 8 1\n"),
        HasSubstr("line 3: layer 1 'conv' wg communication type: 'ALLREDUC' is not a communication type; "
                  "expected NONE"));
    EXPECT_THAT(parseError("DATA\n1\nconv -1 1 NONE 0 1 NONE 0 1 ALLREDUCE_TP 8 1\n"),
                HasSubstr("'ALLREDUCE_TP': SimAI would read it as ALLREDUCE on no communicator"));
    EXPECT_THAT(parseError("DATA\n1\nconv -1 1 NONE 0 1 NONE 0 1 ALLREDUCE_EP 8 1\n", WorkloadFormat::Astra1),
                HasSubstr("carries SimAI's communicator suffix"));
    EXPECT_THAT(parseError("HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 4 ep: 2\n1\n"),
                HasSubstr("line 1: ep: given twice"));
    EXPECT_THAT(parseError("HYBRID_DLRM 3\n1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n"),
                HasSubstr("DLRM_LAST_BOTTOM_LAYER: missing"));
    EXPECT_THAT(
        parseError("HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 2\n1\n", WorkloadFormat::Astra1),
        HasSubstr("looks like a SimAI header label"));
    EXPECT_THAT(parseError("HYBRID_CUSTOMIZED\n1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 1 SOMETHING\n"),
                HasSubstr("layer 1 'l' layer policy (13th field of HYBRID_CUSTOMIZED): 'SOMETHING'"));
}

TEST(WorkloadImporter, MoeFileClosedFormsPerRankAndCommunicator) {
    WorkloadImporter im = prepared(kMoe, WorkloadFormat::SimAI);
    const importers::Layout& L = im.layout();
    EXPECT_EQ(L.world, 16u);
    EXPECT_EQ(L.tp, 2u);
    EXPECT_EQ(L.dp, 4u);
    EXPECT_EQ(L.pp, 2u);
    EXPECT_EQ(L.ep, 2u);
    EXPECT_EQ(L.dpEp, 2u);
    // Rank 5: tp 1, dp 2 (ep 0, dp_ep 1), stage 0. TP fastest, EP consecutive TP groups, DP_EP every EP-th.
    EXPECT_EQ(L.members(GroupKind::Tp, 5), (std::vector<Rank>{4, 5}));
    EXPECT_EQ(L.members(GroupKind::Dp, 5), (std::vector<Rank>{1, 3, 5, 7}));
    EXPECT_EQ(L.members(GroupKind::Ep, 5), (std::vector<Rank>{5, 7}));
    EXPECT_EQ(L.members(GroupKind::DpEp, 5), (std::vector<Rank>{1, 5}));
    EXPECT_EQ(L.members(GroupKind::Dp, 13), (std::vector<Rank>{9, 11, 13, 15}));
    // Micro-batch blocks: two copies of [embedding, moe] after one opening line.
    EXPECT_EQ(im.blocks().first, 1u);
    EXPECT_EQ(im.blocks().lines, 2u);
    EXPECT_EQ(im.blocks().count, 2u);
    EXPECT_EQ(im.pipelineBytes(), 8192u);

    for (Rank r : {Rank{0}, Rank{5}, Rank{13}}) {
        RankStats st;
        im.buildRank(r, &st);
        const bool first = L.stageOf(r) == 0;
        // TP all-reduces: two embeddings of 64 KiB and the 4 B loss raised to 4096 B (FWD_IN_BCKWD forward).
        EXPECT_EQ(st.comm["ALL_REDUCE tp"].count, 3u);
        EXPECT_EQ(st.comm["ALL_REDUCE tp"].bytes, 2 * 65536u + 4096u);
        // EP all-to-alls, forward and input gradient of both micro-batches.
        EXPECT_EQ(st.comm["ALL_TO_ALL ep"].count, 4u);
        EXPECT_EQ(st.comm["ALL_TO_ALL ep"].bytes, 4 * 32768u);
        EXPECT_EQ(st.comm["REDUCE_SCATTER dp_ep"].bytes, 2 * 16384u);
        // SimAI's all-gather size is the gathered output: each of the 4 DP ranks contributes a quarter.
        EXPECT_EQ(st.comm["ALL_GATHER dp"].count, 1u);
        EXPECT_EQ(st.comm["ALL_GATHER dp"].bytes, 8192u / 4);
        // Stage 0 sends two activations, stage 1 two gradients.
        EXPECT_EQ(st.comm["SEND pp"].count, 2u);
        EXPECT_EQ(st.comm["SEND pp"].bytes, 2 * 8192u);
        // Compute: every line's three passes, plus the update time after each blocking collective (3 forward
        // TP all-reduces, 2 forward and 2 input-gradient EP all-to-alls: SimAI blocks on the latter).
        EXPECT_EQ(st.computeNs, 6000u + 2 * 7000 + 2 * 5500 + 7 * 100u) << "rank " << r << " first " << first;
        EXPECT_LE(std::llabs(static_cast<long long>(st.computeMicros * 1000) -
                             static_cast<long long>(st.computeNs)),
                  500);
    }
    // The data-parallel rows' collectives would pass the update-time note; the summary names what is ignored.
    const std::string summary = im.summary();
    EXPECT_THAT(summary, HasSubstr("16 = TP 2 x DP 4 x PP 2, DP = EP 2 x DP_EP 2"));
    EXPECT_THAT(summary, HasSubstr("2 micro-batches of 2 layer lines"));
    EXPECT_THAT(summary, HasSubstr("vpp: 2"));
    EXPECT_THAT(summary, HasSubstr("raised to 4096 B"));
    EXPECT_THAT(summary, HasSubstr("differs from SimAI's own run: the pipeline is simulated"));
}

TEST(WorkloadImporter, MoeFilePassesTheStrictCheckerAndRuns) {
    WorkloadImporter im = prepared(kMoe, WorkloadFormat::SimAI);
    TraceSet set = loadStrict(im);
    ASSERT_EQ(set.numRanks(), 16u);
    // Every rank declares exactly the communicators it is in: TP, DP, EP and DP_EP.
    for (const RankTrace& t : set.ranks) {
        EXPECT_EQ(t.declaredGroups.size(), 4u) << t.path;
        for (const DeclaredGroup& g : t.declaredGroups) {
            EXPECT_TRUE(std::binary_search(g.ranks.begin(), g.ranks.end(), t.rank));
        }
    }
    SimulationOptions options;
    options.executor.overlapCollectives = true;
    const Topology topology = Topology::multiDimensional({dim(DimensionKind::Switch, 16)});
    SimulationOutcome o = run(set, ringSystem(1), topology, options);
    EXPECT_TRUE(o.completed) << o.stallReport;
    // The second stage starts only once the first stage's first activation arrives.
    EXPECT_GT(o.ranks[8].finishNs, o.ranks[0].finishNs - o.ranks[0].finishNs / 2);
}

// The rank's node by name, for dependency checks.
const ChakraProtoMsg::Node& nodeNamed(const RankTraceBuilder& t, const std::string& name, int nth = 0) {
    for (const auto& n : t.nodes()) {
        if (n.name() == name && nth-- == 0) {
            return n;
        }
    }
    throw std::runtime_error("no node " + name);
}

bool dependsOn(const ChakraProtoMsg::Node& n, uint64_t id) {
    return std::find(n.data_deps().begin(), n.data_deps().end(), id) != n.data_deps().end();
}

const std::string kTransformer =
    "HYBRID_TRANSFORMER model_parallel_NPU_group: 2\n2\n"
    "l0 -1 3000 ALLREDUCE 4096 3000 ALLREDUCE 4096 3000 ALLREDUCE 8192 10\n"
    "l1 -1 3000 ALLREDUCE 4096 3000 ALLREDUCE 4096 3000 ALLREDUCE 8192 10\n";

TEST(WorkloadImporter, SimAiBlocksOnInputGradientCollectivesAstra1OverlapsThem) {
    ImportOptions four;
    four.gpus = 4;
    WorkloadImporter simai = prepared(kTransformer, WorkloadFormat::SimAI, four);
    WorkloadImporter astra = prepared(kTransformer, WorkloadFormat::Astra1, four);
    const RankTraceBuilder s = simai.buildRank(0), a = astra.buildRank(0);
    // SimAI: l1's weight-gradient compute waits for l1's input-gradient all-reduce.
    EXPECT_TRUE(dependsOn(nodeNamed(s, "l1.wg"), nodeNamed(s, "l1.ig_comm").id()));
    // ASTRA-sim 1.0: it runs beside it; l0's input-gradient compute waits for it instead.
    EXPECT_FALSE(dependsOn(nodeNamed(a, "l1.wg"), nodeNamed(a, "l1.ig_comm").id()));
    EXPECT_TRUE(dependsOn(nodeNamed(a, "l0.ig"), nodeNamed(a, "l1.ig_comm").id()));
    // Weight-gradient collectives never hold up the compute: nothing depends on them in one pass.
    for (const RankTraceBuilder* t : {&s, &a}) {
        const uint64_t wg = nodeNamed(*t, "l1.wg_comm").id();
        for (const auto& n : t->nodes()) {
            EXPECT_FALSE(dependsOn(n, wg)) << n.name();
        }
    }
    // With two passes, a layer's next forward waits for its previous weight-gradient collective.
    ImportOptions twoPasses = four;
    twoPasses.passes = 2;
    const RankTraceBuilder p = prepared(kTransformer, WorkloadFormat::Astra1, twoPasses).buildRank(0);
    EXPECT_TRUE(dependsOn(nodeNamed(p, "l0.fwd", 1), nodeNamed(p, "l0.wg_comm", 0).id()));
}

TEST(WorkloadImporter, RecomputeReplaysTheForwardFromTheCheckpoint) {
    std::string layers;
    for (int i = 0; i < 4; ++i) {
        layers += "l" + std::to_string(i) + " -1 2000 ALLREDUCE 4096 1000 NONE 0 1000 NONE 0 0\n";
    }
    ImportOptions two;
    two.gpus = 2;
    const RankTraceBuilder t =
        prepared(
            "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 checkpoints: 1 1 "
            "checkpoint_initiates: 1 3\n4\n" +
                layers,
            WorkloadFormat::SimAI, two)
            .buildRank(0);
    // Before layer 3's input gradient, layers 1 and 2 run forward again with their collectives.
    std::vector<std::string> names;
    for (const auto& n : t.nodes()) {
        names.push_back(n.name());
    }
    const auto at = std::find(names.begin(), names.end(), "l3.ig");
    ASSERT_NE(at, names.end());
    EXPECT_EQ(std::vector<std::string>(at - 4, at),
              (std::vector<std::string>{"l1.recompute", "l1.fwd_comm", "l2.recompute", "l2.fwd_comm"}));
    EXPECT_THAT(prepareError("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 checkpoints: 1 2 "
                             "checkpoint_initiates: 1 1\n4\n" +
                                 layers,
                             WorkloadFormat::SimAI, two),
                HasSubstr("checkpoint_initiates: layer 1 has no checkpoint at or before it"));
    EXPECT_THAT(prepareError("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 checkpoints: 1 0 "
                             "checkpoint_initiates: 2 1 3\n4\n" +
                                 layers,
                             WorkloadFormat::Astra1, two),
                HasSubstr("layer 3's recompute from checkpoint 0 passes initiator 1"));
}

// One file per policy (ASTRA-sim 1.0's forms), each a set that passes the strict checker and runs to the end.
struct PolicyCase {
    std::string name, text;
    std::vector<uint32_t> dims;
    std::vector<std::string> collectives;  // "<TYPE> <communicator>" keys rank 0 issues
};

std::vector<PolicyCase> policyCases() {
    const std::string mlp =
        "l0 -1 3000 ALLGATHER 4096 3000 ALLREDUCE 4096 3000 ALLREDUCE 8192 10\n"
        "l1 -1 3000 ALLGATHER 4096 3000 ALLREDUCE 4096 3000 ALLREDUCE 8192 10\n"
        "l2 -1 3000 ALLGATHER 4096 3000 ALLREDUCE 4096 3000 ALLREDUCE 8192 10\n";
    return {
        {"micro", "MICRO\n1\nconv1 -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 1048576 5\n", {}, {"ALL_REDUCE world"}},
        {"data", "DATA\n3\n" + mlp, {}, {"ALL_REDUCE world"}},
        {"model", "MODEL\n3\n" + mlp, {}, {"ALL_GATHER world", "ALL_REDUCE world"}},
        {"data-model",
         "HYBRID_DATA_MODEL\n3\n" + mlp,
         {4, 2},
         {"ALL_GATHER tp", "ALL_REDUCE tp", "ALL_REDUCE dp"}},
        {"model-data",
         "HYBRID_MODEL_DATA\n3\n" + mlp,
         {4, 2},
         {"ALL_GATHER dp", "ALL_REDUCE dp", "ALL_REDUCE tp"}},
        {"transformer",
         "HYBRID_TRANSFORMER model_parallel_NPU_group: 4\n3\n" + mlp,
         {},
         {"ALL_GATHER tp", "ALL_REDUCE tp", "ALL_REDUCE dp"}},
        {"fwd-in-bckwd",
         "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 checkpoints: 1 0 "
         "checkpoint_initiates: 1 2\n3\n" +
             mlp,
         {2, 4},
         {"ALL_GATHER tp", "ALL_REDUCE tp", "ALL_REDUCE dp"}},
        {"dlrm",
         "HYBRID_DLRM 1\n3\nemb -1 3000 ALLTOALL 8192 3000 ALLTOALL 8192 3000 NONE 0 10\n"
         "bottom -1 3000 NONE 0 3000 NONE 0 3000 ALLREDUCE 4096 10\n"
         "top -1 3000 NONE 0 3000 NONE 0 3000 ALLREDUCE 4096 10\n",
         {},
         {"ALL_TO_ALL world", "ALL_REDUCE world"}},
        // Layer 0's input-gradient collective is never issued (both tools); a DATA layer issues no forward
        // one.
        {"customized",
         "HYBRID_CUSTOMIZED\n3\nl0 -1 3000 ALLGATHER 4096 3000 ALLREDUCE 4096 3000 ALLREDUCE 4096 10 "
         "HYBRID_DATA_MODEL\nl1 -1 3000 ALLGATHER 4096 3000 REDUCESCATTER 4096 3000 ALLREDUCE 4096 10 "
         "HYBRID_DATA_MODEL\nl2 -1 3000 ALLGATHER 4096 3000 ALLREDUCE 4096 3000 ALLREDUCE 4096 10 DATA\n",
         {4, 2},
         {"ALL_GATHER tp", "REDUCE_SCATTER tp", "ALL_REDUCE dp", "ALL_REDUCE world"}},
        {"inference",
         "DISTRIBUTED_INFERENCE\n2\nl0 -1 3000 ALLREDUCE 4096 1 NONE 0 1 NONE 0 10\n"
         "l1 -1 3000 ALLREDUCE 4096 1 NONE 0 1 NONE 0 10\n",
         {},
         {"ALL_REDUCE world"}},
    };
}

TEST(WorkloadImporter, EveryAstra1PolicyPassesTheStrictCheckerAndRuns) {
    for (const PolicyCase& c : policyCases()) {
        SCOPED_TRACE(c.name);
        ImportOptions options;
        options.gpus = 8;
        options.dims = c.dims;
        WorkloadImporter im = prepared(c.text, WorkloadFormat::Astra1, options);
        RankStats st;
        im.buildRank(0, &st);
        std::vector<std::string> keys;
        for (const auto& entry : st.comm) {
            keys.push_back(entry.first);
        }
        std::vector<std::string> expected = c.collectives;
        std::sort(expected.begin(), expected.end());
        EXPECT_EQ(keys, expected);
        TraceSet set = loadStrict(im);
        ASSERT_EQ(set.numRanks(), 8u);
        SimulationOptions options2;
        options2.executor.overlapCollectives = true;
        const Topology topology = Topology::multiDimensional({dim(DimensionKind::Ring, 8)});
        SimulationOutcome o = run(set, ringSystem(1), topology, options2);
        EXPECT_TRUE(o.completed) << o.stallReport;
    }
}

TEST(WorkloadImporter, DlrmWaitsForTheEmbeddingAllToAllBeforeTheTopLayers) {
    ImportOptions eight;
    eight.gpus = 8;
    const RankTraceBuilder t = prepared(policyCases()[7].text, WorkloadFormat::Astra1, eight).buildRank(0);
    // The forward all-to-all overlaps the bottom MLP; the top MLP's compute waits for it.
    const uint64_t a2a = nodeNamed(t, "emb.fwd_comm").id();
    EXPECT_FALSE(dependsOn(nodeNamed(t, "bottom.fwd"), a2a));
    EXPECT_TRUE(dependsOn(nodeNamed(t, "top.fwd"), a2a));
    // Backward: the embedding's input-gradient all-to-all is issued after the top layer's input gradient.
    const auto& ig = nodeNamed(t, "emb.ig_comm");
    EXPECT_TRUE(dependsOn(ig, nodeNamed(t, "top.ig").id()));
}

TEST(WorkloadImporter, WhatThePolicyDoesNotIssueIsCountedNotDropped) {
    ImportOptions eight;
    eight.gpus = 8;
    WorkloadImporter im = prepared(
        "DATA\n2\nl0 -1 10 ALLGATHER 64 20 ALLREDUCE 64 30 ALLREDUCE 64 5\n"
        "l1 -1 10 NONE 0 20 BROADCAST 64 30 ALLREDUCE 0 5\n",
        WorkloadFormat::Astra1, eight);
    std::map<std::string, uint64_t> counts;
    for (const auto& [what, item] : im.ignored().items()) {
        counts[what] = item.count;
    }
    auto count = [&](const std::string& part) {
        uint64_t n = 0;
        for (const auto& [what, c] : counts) {
            n += what.find(part) != std::string::npos ? c : 0;
        }
        return n;
    };
    EXPECT_EQ(count("DATA issues no forward collectives"), 1u);
    EXPECT_EQ(count("DATA issues no input-gradient collectives"), 1u);
    EXPECT_EQ(count("does not simulate BROADCAST"), 1u);
    EXPECT_EQ(count("a collective of 0 bytes"), 1u);
    EXPECT_EQ(count("layer 1's input-gradient compute: DATA ends the pass"), 1u);
    Diagnostics diag;
    im.ignored().report(diag);
    EXPECT_THAT(diag.format(Severity::Warning), HasSubstr("w.txt: line 3: "));
}

TEST(WorkloadImporter, MicroRunsOnlyTheFirstCollective) {
    ImportOptions eight;
    eight.gpus = 8;
    WorkloadImporter im = prepared(
        "MICRO\n3\na -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 4096 5\n"
        "b -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 8192 5\n"
        "c -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 16384 5\n",
        WorkloadFormat::SimAI, eight);
    RankStats st;
    const RankTraceBuilder t = im.buildRank(3, &st);
    ASSERT_EQ(t.nodes().size(), 1u);
    EXPECT_EQ(st.comm["ALL_REDUCE world"].bytes, 4096u);
    EXPECT_THAT(im.summary(),
                HasSubstr("2 x MICRO issues only the first layer's weight-gradient collective"));
}

TEST(WorkloadImporter, RefusesWhatNeitherToolSimulatesOrCannotBeLaidOut) {
    ImportOptions eight;
    eight.gpus = 8;
    EXPECT_THAT(
        prepareError("DATA\n1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCEALLTOALL 64 1\n", WorkloadFormat::Astra1,
                     eight),
        HasSubstr("w.txt: line 3: layer 1 'l' wg communication type: ALLREDUCEALLTOALL is simulated by "
                  "neither tool"));
    // Not issued by the policy: counted, no error.
    Diagnostics diag;
    EXPECT_TRUE(prepare("DATA\n1\nl -1 1 ALLREDUCEALLTOALL 64 1 NONE 0 1 NONE 0 1\n", WorkloadFormat::Astra1,
                        diag, eight));
    EXPECT_THAT(prepareError("HYBRID_TRANSFORMER model_parallel_NPU_group: 3 ep: 1 pp: 1 all_gpus: 8\n1\n"
                             "l -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
                             WorkloadFormat::SimAI),
                HasSubstr("line 1: model_parallel_NPU_group: / pp: TP 3 x PP 1 does not divide the 8 GPUs"));
    EXPECT_THAT(prepareError("HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 3 all_gpus: 8\n1\n"
                             "l -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
                             WorkloadFormat::SimAI),
                HasSubstr("ep: 3 does not divide DP = 4"));
    EXPECT_THAT(prepareError(
                    "HYBRID_TRANSFORMER model_parallel_NPU_group: 2 all_gpus: 8\n1\n"
                    "l -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
                    WorkloadFormat::SimAI,
                    eight =
                        [] {
                            ImportOptions o;
                            o.gpus = 16;
                            return o;
                        }()),
                HasSubstr("all_gpus: 8, but the run has 16 GPUs"));
    EXPECT_THAT(prepareError("DATA\n1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 64 1\n", WorkloadFormat::Astra1),
                HasSubstr("the GPU count is not given"));
    EXPECT_THAT(
        prepareError("HYBRID_TRANSFORMER model_parallel_NPU_group: 2 pp: 2 ga: 3 all_gpus: 8\n4\n"
                     "a -1 1 ALLREDUCE 8 1 NONE 0 1 NONE 0 1\nb -1 1 ALLREDUCE 8 1 NONE 0 1 NONE 0 1\n"
                     "c -1 1 ALLREDUCE 8 1 NONE 0 1 NONE 0 1\nd -1 1 ALLREDUCE 8 1 NONE 0 1 NONE 0 1\n",
                     WorkloadFormat::SimAI),
        HasSubstr("ga: 3 with pp 2, but the layer lines hold no 3 consecutive copies"));
    EXPECT_THAT(prepareError("HYBRID_DATA_MODEL\n1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE_EP 64 1\n",
                             WorkloadFormat::SimAI, eight),
                HasSubstr("SimAI gives _EP and _DP_EP a communicator only under HYBRID_TRANSFORMER"));
}

TEST(WorkloadImporter, PipelineBytesFromTheActivationWhenPpCommIsAbsent) {
    // Without pp_comm the activation is the first forward TP collective of a micro-batch: an all-reduce's
    // size, an all-gather's divided by TP (sequence parallelism).
    const std::string body =
        "2\nemb -1 1000 ALLGATHER 65536 1000 NONE 0 1000 NONE 0 1\n"
        "emb -1 1000 ALLGATHER 65536 1000 NONE 0 1000 NONE 0 1\n";
    WorkloadImporter im = prepared(
        "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4 ep: 1 pp: 2 ga: 2 all_gpus: 8\n" + body,
        WorkloadFormat::SimAI);
    EXPECT_EQ(im.pipelineBytes(), 65536u / 4);
    EXPECT_THAT(im.pipelineBytesSource(), HasSubstr("layer 1's forward ALLGATHER of 65536 B / TP"));
    loadStrict(im);
}

TEST(WorkloadImporter, ComputeIsWrittenInWholeMicrosecondsWithTheRemainderCarried) {
    // 10 layers of 1.4 us: each alone would round to 1 us (10 us in all); carried, the total stays 14 us.
    std::string text = "DATA\n10\n";
    for (int i = 0; i < 10; ++i) {
        text += "l" + std::to_string(i) + " -1 1400 NONE 0 0 NONE 0 0 NONE 0 0\n";
    }
    ImportOptions one;
    one.gpus = 2;
    RankStats st;
    const RankTraceBuilder t = prepared(text, WorkloadFormat::Astra1, one).buildRank(0, &st);
    uint64_t micros = 0;
    for (const auto& n : t.nodes()) {
        micros += n.duration_micros();
    }
    EXPECT_EQ(st.computeNs, 14000u);
    EXPECT_EQ(micros, 14u);
    EXPECT_EQ(st.computeMicros, 14u);
}

TEST(WorkloadImporter, MemoryEstimateRefusesWithBothNumbers) {
    WorkloadImporter im = prepared(kMoe, WorkloadFormat::SimAI);
    EXPECT_GT(im.estimateTraceSetBytes(), im.totalNodes() * 100);
    Diagnostics diag;
    TraceSet set = importers::importAsTraceSet(im, {}, 1000, diag);
    ASSERT_TRUE(diag.hasErrors());
    EXPECT_THAT(diag.firstError(), HasSubstr("w.txt: the imported workload (16 ranks"));
    EXPECT_EQ(set.numRanks(), 0u);
}

}  // namespace
}  // namespace mlnet::test

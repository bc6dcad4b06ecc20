// The workload generator against closed forms: parameter counts of the presets against the published models,
// Megatron's pipeline orders, model FLOPs = 6 x parameters x tokens + attention, every collective's bytes per
// rank for TP (with and without sequence parallelism), PP, DP (ZeRO-0/1/2/3), CP and EP, memory by the ZeRO
// formulas (16 B per parameter, each part divided by its group), GEMM times by their shape's tiles and waves,
// every preset's traces accepted by the strict checker, and the tool end to end on mlnet-analytical.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <map>

#include "trace-test-util.h"
#include "workload/generator/model-spec.h"
#include "workload/generator/parallel-plan.h"
#include "workload/generator/step-builder.h"
#include "workload/trace-set.h"

namespace mlnet::workload {
namespace {

using ::testing::HasSubstr;

// A small dense model whose numbers are easy to follow: MHA, SwiGLU, untied embeddings.
ModelSpec smallDense(uint32_t layers = 4) {
    ModelSpec m;
    m.name = "small";
    m.layers = layers;
    m.hidden = 256;
    m.ffn = 1024;
    m.heads = 8;
    m.kvHeads = 8;
    m.headDim = 32;
    m.vocabulary = 1000;
    m.sequence = 512;
    return m;
}

ModelSpec smallMoe() {
    ModelSpec m = smallDense();
    m.moe = MoeSpec{8, 2, 512, 1, 512, 1};
    return m;
}

struct Built {
    StepStats stats;
    std::vector<std::string> bytes;  // per rank file bytes
};

Built buildAll(const ModelSpec& model, ParallelPlan plan, bool keep = false) {
    Diagnostics diag;
    EXPECT_TRUE(resolvePlan(model, plan, diag)) << diag.format(Severity::Error);
    const GpuSpec gpu = *gpuPreset("h100");
    StepBuilder builder(model, plan, gpu, nullptr);
    Built b;
    for (Rank r = 0; r < plan.gpus; ++r) {
        RankTraceBuilder trace = builder.buildRank(r, &b.stats);
        if (keep) {
            b.bytes.push_back(trace.serialize());
        }
    }
    return b;
}

ParallelPlan plan(uint32_t gpus, uint32_t tp, uint32_t pp, uint64_t globalBatch) {
    ParallelPlan p;
    p.gpus = gpus;
    p.tp = tp;
    p.pp = pp;
    p.globalBatch = globalBatch;
    return p;
}

double perRank(const Built& b, const std::string& key, uint32_t ranks) {
    const auto it = b.stats.commBytes.find(key);
    return it == b.stats.commBytes.end() ? 0 : static_cast<double>(it->second) / ranks;
}

TEST(GpuSpec, AGemmPaysForItsPartTilesItsLastWaveAndItsTileFill) {
    const GpuSpec a100 = *gpuPreset("a100");  // 108 SMs, 256 x 128 tiles, a fill of 256 K elements
    ASSERT_EQ(a100.sms, 108u);
    // One full wave of whole tiles and K = 768: only the fill, 768 / (768 + 256).
    EXPECT_DOUBLE_EQ(gemmShapeEfficiency(a100, {256, 128 * 108, 768}), 0.75);
    // One tile more takes a second wave for it alone.
    EXPECT_DOUBLE_EQ(gemmShapeEfficiency(a100, {256, 128 * 109, 768}), 109.0 / 216 * 0.75);
    // Rows that fill 200 of a tile's 256.
    EXPECT_DOUBLE_EQ(gemmShapeEfficiency(a100, {200, 128 * 108, 768}), 200.0 / 256 * 0.75);
    // Two GEMMs of half the tiles each share one wave.
    EXPECT_DOUBLE_EQ(gemmShapeEfficiency(a100, {256, 128 * 54, 768, 2}), 0.75);
    EXPECT_DOUBLE_EQ(gemmShapeEfficiency(a100, {}), 1);

    // The forward at the shape's efficiency; the backward's data gradient (m x k, reducing over n) and weight
    // gradient (k x n, reducing over m) at theirs, half of the flops each.
    const GemmShape shape{256, 128 * 108, 768};
    const double flops = 2 * shape.m * shape.n * shape.k;
    const double rate = a100.bf16FlopsPerS * a100.gemmEfficiency;
    EXPECT_DOUBLE_EQ(kernelMicros(a100, OpClass::Gemm, false, false, flops, 0, shape),
                     flops / (rate * 0.75) * 1e6);
    const double dgrad = gemmShapeEfficiency(a100, {256, 768, 128 * 108});  // 1 x 6 tiles, one wave
    const double wgrad = gemmShapeEfficiency(a100, {768, 128 * 108, 256});  // 3 x 108 tiles, three waves
    EXPECT_DOUBLE_EQ(dgrad, 6.0 / 108 * (128.0 * 108 / (128.0 * 108 + 256)));
    EXPECT_DOUBLE_EQ(wgrad, 0.5);
    EXPECT_DOUBLE_EQ(kernelMicros(a100, OpClass::Gemm, false, true, 2 * flops, 0, shape),
                     (flops / (rate * dgrad) + flops / (rate * wgrad)) * 1e6);
    // A GEMM whose bytes take longer than its math is memory-bound whatever its shape.
    const double bytes = 1e12;
    EXPECT_DOUBLE_EQ(kernelMicros(a100, OpClass::Gemm, false, false, flops, bytes, shape),
                     bytes / (a100.hbmBytesPerS * a100.memoryEfficiency) * 1e6);
    // The larger hidden sizes of the largest models fill their waves better: GPT 1T's attention projection
    // (2048 tokens, 3 x 25600 / 8 columns, K 25600) against GPT-3 175B's (4608 columns, K 12288).
    EXPECT_GT(gemmShapeEfficiency(a100, {2048, 9600, 25600}),
              gemmShapeEfficiency(a100, {2048, 4608, 12288}) + 0.03);
}

TEST(ModelSpec, PresetParameterCountsAreThePublishedModels) {
    EXPECT_EQ(modelPreset("llama3-8b")->totalParams(), 8'030'261'248ull);
    EXPECT_EQ(modelPreset("llama3-70b")->totalParams(), 70'553'706'496ull);
    EXPECT_EQ(modelPreset("llama3.1-405b")->totalParams(), 405'853'388'800ull);
    EXPECT_EQ(modelPreset("mixtral-8x7b")->totalParams(), 46'702'792'704ull);
    // DeepSeek-V3's 671,026,419,200 without its MTP module, less the routers' score-correction biases (256
    // per MoE layer), which we do not model.
    EXPECT_EQ(modelPreset("deepseek-v3")->totalParams() + 58 * 256, 671'026'419'200ull);
    // GPT-3's paper rounds 174.6 B (tied embeddings, biases, learned positions not counted) to 175 B.
    EXPECT_NEAR(static_cast<double>(modelPreset("gpt3-175b")->totalParams()), 174.6e9, 0.1e9);
    // Active per token: DeepSeek-V3 "37 B activated", Mixtral "12.9 B" (with the input embedding).
    EXPECT_NEAR(static_cast<double>(modelPreset("deepseek-v3")->activeParamsPerToken()), 37e9, 0.6e9);
}

TEST(ParallelPlan, PipelineSchedulesAreMegatronsOrders) {
    // 1F1B, 4 stages, 8 micro-batches: stage 0 warms up with 3 forwards; the last stage alternates at once.
    const auto first = pipelineSchedule(0, 4, 1, 8);
    ASSERT_EQ(first.size(), 16u);
    for (int i = 0; i < 3; ++i) {
        EXPECT_FALSE(first[i].backward);
    }
    EXPECT_FALSE(first[3].backward);
    EXPECT_TRUE(first[4].backward);
    EXPECT_EQ(first[4].microBatch, 0u);
    const auto last = pipelineSchedule(3, 4, 1, 8);
    for (std::size_t i = 0; i < 16; ++i) {
        EXPECT_EQ(last[i].backward, i % 2 == 1);
        EXPECT_EQ(last[i].microBatch, i / 2);
    }
    // Interleaved, 2 stages x 2 chunks, 4 micro-batches, stage 0 (Megatron's order).
    const std::vector<std::tuple<bool, uint32_t, uint32_t>> expected = {
        {false, 0, 0}, {false, 1, 0}, {false, 0, 1}, {false, 1, 1}, {false, 2, 0}, {true, 0, 1},
        {false, 3, 0}, {true, 1, 1},  {false, 2, 1}, {true, 0, 0},  {false, 3, 1}, {true, 1, 0},
        {true, 2, 1},  {true, 3, 1},  {true, 2, 0},  {true, 3, 0}};
    const auto interleaved = pipelineSchedule(0, 2, 2, 4);
    ASSERT_EQ(interleaved.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(interleaved[i].backward, std::get<0>(expected[i])) << i;
        EXPECT_EQ(interleaved[i].microBatch, std::get<1>(expected[i])) << i;
        EXPECT_EQ(interleaved[i].chunk, std::get<2>(expected[i])) << i;
    }
    // Every (micro-batch, chunk) goes forward once and backward once, the backward later.
    for (uint32_t stage = 0; stage < 4; ++stage) {
        std::map<std::pair<uint32_t, uint32_t>, int> seen;
        for (const ScheduleStep& s : pipelineSchedule(stage, 4, 3, 8)) {
            int& state = seen[{s.microBatch, s.chunk}];
            EXPECT_EQ(state, s.backward ? 1 : 0);
            state += 1;
        }
        EXPECT_EQ(seen.size(), 24u);
    }
}

TEST(ParallelPlan, RanksAndCommunicatorsFollowTheOrder) {
    ParallelPlan p = plan(16, 2, 2, 8);
    Diagnostics diag;
    ASSERT_TRUE(resolvePlan(smallDense(), p, diag)) << diag.format(Severity::Error);
    EXPECT_EQ(p.dp, 4u);
    RankLayout layout(p);
    // tp fastest, then (cp) dp, then pp.
    const RankCoords c = layout.coords(13);  // 13 = 1 + 2 x (2 + 4 x 1)
    EXPECT_EQ(c.tp, 1u);
    EXPECT_EQ(c.dp, 2u);
    EXPECT_EQ(c.pp, 1u);
    EXPECT_EQ(layout.rankOf(c), 13u);
    EXPECT_EQ(layout.group(13, "tp")->ranks, (std::vector<Rank>{12, 13}));
    EXPECT_EQ(layout.group(13, "dp")->ranks, (std::vector<Rank>{9, 11, 13, 15}));
    EXPECT_EQ(layout.group(13, "ep"), nullptr);  // a dense model has no expert groups
}

TEST(ParallelPlan, InvalidPlansNameTheOption) {
    const ModelSpec m = smallDense();
    auto error = [&](ParallelPlan p) {
        Diagnostics diag;
        EXPECT_FALSE(resolvePlan(m, p, diag));
        return diag.format(Severity::Error);
    };
    EXPECT_THAT(error(plan(12, 8, 1, 0)), HasSubstr("--gpus=12: not a multiple of tp x cp x pp = 8"));
    EXPECT_THAT(error(plan(8, 3, 1, 0)), HasSubstr("--gpus=8"));
    EXPECT_THAT(error(plan(16, 16, 1, 0)), HasSubstr("--tp=16: does not divide the model's 8 heads"));
    EXPECT_THAT(error(plan(8, 1, 1, 12)),
                HasSubstr("--global-batch=12: not a multiple of micro-batch x dp = 8"));
    ParallelPlan vpp = plan(8, 1, 2, 8);
    vpp.vpp = 3;
    EXPECT_THAT(error(vpp), HasSubstr("--vpp=3: pp x vpp = 6 does not divide the 4 layers"));
    ParallelPlan ep = plan(8, 1, 1, 8);
    ep.ep = 2;
    EXPECT_THAT(error(ep), HasSubstr("--ep=2: expert parallelism needs a mixture-of-experts model"));
}

TEST(StepBuilder, ModelFlopsAreSixTimesParametersTimesTokensPlusAttention) {
    for (const ModelSpec& m : {smallDense(), smallMoe()}) {
        ParallelPlan p = plan(8, 2, 2, 8);
        p.ep = m.moe.experts ? 2 : 1;
        const Built b = buildAll(m, p);
        const double tokens = 8.0 * 512;
        // Per sequence and layer, attention's forward is 2 s^2 (qk + v); a backward twice that.
        const double attention = 3 * 2 * 512.0 * 512 * double(m.qkWidth() + m.vWidth()) * m.layers * 8;
        const double expected = 6 * double(m.activeParamsPerToken()) * tokens + attention;
        // Norm scales are parameters without GEMM FLOPs: within 1 %.
        EXPECT_NEAR(b.stats.modelFlops / expected, 1.0, 0.01) << m.name;
    }
}

TEST(StepBuilder, TensorParallelBytesAreTheClosedForms) {
    const ModelSpec m = smallDense(4);
    const double T = 512, h = 256, L = 4, micro = 2;  // 4 ranks: tp 2 x dp 2, 4 sequences
    {
        const Built b = buildAll(m, plan(4, 2, 1, 4));
        // Sequence parallel: per layer and micro-batch two all-gathers forward and two backward of the shard
        // (T/2 x h), plus the LM head's; two reduce-scatters each way of the full T x h, plus the embedding's
        // and the LM head's backward.
        EXPECT_DOUBLE_EQ(perRank(b, "ALL_GATHER tp", 4), (4 * L + 1) * micro * (T / 2) * h * 2);
        EXPECT_DOUBLE_EQ(perRank(b, "REDUCE_SCATTER tp", 4), (4 * L + 2) * micro * T * h * 2);
    }
    {
        ParallelPlan p = plan(4, 2, 1, 4);
        p.sequenceParallel = false;
        const Built b = buildAll(m, p);
        EXPECT_DOUBLE_EQ(perRank(b, "ALL_REDUCE tp", 4), (4 * L + 2) * micro * T * h * 2);
        EXPECT_EQ(b.stats.commBytes.count("ALL_GATHER tp"), 0u);
    }
}

TEST(StepBuilder, PipelineAndContextAndExpertBytesAreTheClosedForms) {
    const double T = 512, h = 256;
    {
        // Two stages, tp 2 with sequence parallelism: each micro-batch crosses once each way, T/2 x h per
        // rank.
        const Built b = buildAll(smallDense(4), plan(8, 2, 2, 8));  // dp 2: 4 micro-batches
        EXPECT_DOUBLE_EQ(perRank(b, "SEND pp", 8), 4 * (T / 2) * h * 2);
    }
    {
        // Ring attention over cp 2: per layer and micro-batch one K/V chunk forward, K/V and their gradients
        // backward; K/V width 2 x 8 heads x 32 on T/2 tokens per rank.
        ParallelPlan p = plan(4, 1, 1, 2);
        p.cp = 2;
        const Built b = buildAll(smallDense(4), p);  // dp 2, 1 micro-batch
        const double kv = (T / 2) * (2 * 8 * 32) * 2;
        EXPECT_DOUBLE_EQ(perRank(b, "SEND cp", 4), 4 * (kv + 2 * kv));
    }
    {
        // Experts: four all-to-alls per MoE layer and micro-batch (dispatch, combine, and their backward), of
        // the rank's tokens times top-k; the first layer is dense.
        ParallelPlan p = plan(4, 1, 1, 4);
        p.ep = 2;
        const Built b = buildAll(smallMoe(), p);  // dp 4, 1 micro-batch, 3 MoE layers
        EXPECT_DOUBLE_EQ(perRank(b, "ALL_TO_ALL ep", 4), 3 * 4 * T * 2 * h * 2);
    }
}

TEST(StepBuilder, DataParallelBytesFollowTheZeroStage) {
    const ModelSpec m = smallDense(4);
    const double params = double(m.totalParams());  // tp 1, pp 1: every rank holds the whole model
    auto built = [&](uint32_t zero) {
        ParallelPlan p = plan(4, 1, 1, 8);  // 2 micro-batches
        p.zero = zero;
        p.bucketParams = 100'000;
        return buildAll(m, p);
    };
    const Built zero0 = built(0), zero1 = built(1), zero2 = built(2), zero3 = built(3);
    EXPECT_NEAR(perRank(zero0, "ALL_REDUCE dp", 4), params * 2, 4);
    for (const Built* b : {&zero1, &zero2}) {
        EXPECT_NEAR(perRank(*b, "REDUCE_SCATTER dp", 4), params * 2, 4);
        EXPECT_NEAR(perRank(*b, "ALL_GATHER dp", 4), params * 2 / 4, 4);
    }
    // FSDP: every unit's weights gathered for each micro-batch's forward and backward; gradients
    // reduce-scattered once.
    EXPECT_NEAR(perRank(zero3, "ALL_GATHER dp", 4), 2 * 2 * params * 2 / 4, 16);
    EXPECT_NEAR(perRank(zero3, "REDUCE_SCATTER dp", 4), params * 2, 4);
}

TEST(StepBuilder, MemoryFollowsTheZeroFormulas) {
    const ModelSpec m = smallDense(4);
    const double params = double(m.totalParams());
    auto memory = [&](uint32_t zero, Recompute recompute = Recompute::None) {
        ParallelPlan p = plan(4, 1, 1, 8);
        p.zero = zero;
        p.recompute = recompute;
        Diagnostics diag;
        EXPECT_TRUE(resolvePlan(m, p, diag));
        const GpuSpec gpu = *gpuPreset("h100");
        return StepBuilder(m, p, gpu, nullptr).memoryOf(0);
    };
    // Mixed-precision Adam: 2 (bf16 weights) + 2 (bf16 gradients) + 12 (fp32 master, m, v) per parameter.
    const RankMemory z0 = memory(0), z1 = memory(1), z2 = memory(2), z3 = memory(3);
    EXPECT_NEAR(double(z0.weights + z0.gradients + z0.optimizer), 16 * params, 16);
    EXPECT_NEAR(double(z1.optimizer), 12 * params / 4, 16);
    EXPECT_NEAR(double(z1.gradients), 2 * params, 4);
    EXPECT_NEAR(double(z2.gradients), 2 * params / 4, 4);
    EXPECT_NEAR(double(z3.weights + z3.gradients + z3.optimizer), 16 * params / 4, 16);
    EXPECT_LT(memory(1, Recompute::Full).activations, z1.activations / 4);
}

TEST(StepBuilder, EveryPresetsShapeWritesTracesTheStrictCheckerAccepts) {
    for (const std::string& name : modelPresetNames()) {
        ModelSpec m = *modelPreset(name);
        m.layers = m.moe.denseLayersFirst + 4;  // the presets' shapes, few layers
        m.sequence = 256;
        ParallelPlan p = plan(16, 2, 2, 16);
        p.cp = m.mla ? 2 : 1;
        p.dp = 0;
        p.ep = m.moe.experts ? 2 : 1;
        p.vpp = m.moe.experts ? 1 : 2;
        p.gpus = 16 * p.cp;
        p.zero = name == "llama3-8b" ? 3 : 1;
        SCOPED_TRACE(name);
        const Built b = buildAll(m, p, true);
        TraceSetOptions options;
        options.read.strict = true;
        Diagnostics diag;
        const TraceSet set = loadTraceSetFromMemory(name, b.bytes, options, diag);
        EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
        EXPECT_EQ(diag.warningCount(), 0u) << diag.format(Severity::Warning);
        EXPECT_EQ(set.numRanks(), p.gpus);
    }
}

struct ToolRun {
    int status;
    std::string out, err;
};

ToolRun runTool(const std::string& dir, const std::string& tool, const std::string& args) {
    const std::string cmd = std::string(MLNET_BIN_DIR) + "/" + tool + " " + args + " > " + dir +
                            "/out.txt 2> " + dir + "/err.txt";
    const int raw = std::system(cmd.c_str());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, readFileBytes(dir + "/out.txt"),
            readFileBytes(dir + "/err.txt")};
}

TEST(MlnetWorkload, WritesAStepThatRunsOnTheAnalyticalNetwork) {
    const std::string dir = makeTempDir("mlnet-workload");
    writeFileBytes(dir + "/model.json", R"({"preset": "llama3-8b", "layers": 4, "sequence": 1024})");
    const ToolRun gen = runTool(dir, "mlnet-workload",
                                "--model " + dir +
                                    "/model.json --gpus 16 --tp 2 --pp 2 --vpp 2 --global-batch 8 "
                                    "--tp-comm-overlap --output " +
                                    dir + "/step/t");
    ASSERT_EQ(gen.status, 0) << gen.err;
    EXPECT_THAT(gen.out, HasSubstr("plan: 16 GPUs (h100) = tp 2 x cp 1 x pp 2 x dp 4; vpp 2"));
    EXPECT_THAT(gen.out, HasSubstr("wrote 16 traces"));
    writeFileBytes(dir + "/system.json", R"({"scheduling-policy": "LIFO", "endpoint-delay": 10,
        "active-chunks-per-dimension": 1, "preferred-dataset-splits": 4, "all-reduce-implementation": ["ring"],
        "all-gather-implementation": ["ring"], "reduce-scatter-implementation": ["ring"],
        "all-to-all-implementation": ["direct"], "collective-optimization": "localBWAware",
        "local-mem-bw": 1600})");
    writeFileBytes(dir + "/net.json", R"({"topology": {"builder": "rail-optimised", "servers": 2,
        "nics-per-server": 8, "spines": 2, "rate": "400Gbps", "delay": "1us",
        "scale-up": {"npus-per-server": 8, "rate": "3600Gbps", "delay": "250ns"}}})");
    const ToolRun sim = runTool(dir, "mlnet-analytical",
                                "--workload-configuration=" + dir + "/step/t --system-configuration=" + dir +
                                    "/system.json --network-configuration=" + dir +
                                    "/net.json --network-model=aware --overlap-collectives");
    ASSERT_EQ(sim.status, 0) << sim.err;
    EXPECT_THAT(sim.out, HasSubstr("sys[15] finished"));
}

TEST(MlnetWorkload, APlanThatDoesNotFitIsAnErrorWithTheNumbers) {
    const std::string dir = makeTempDir("mlnet-workload");
    const ToolRun r = runTool(dir, "mlnet-workload", "--model llama3-70b --gpus 8 --output " + dir + "/t");
    EXPECT_EQ(r.status, 2);
    EXPECT_THAT(r.err, HasSubstr("the plan does not fit: rank 0 needs"));
    EXPECT_THAT(r.err, HasSubstr("of the h100's 80.0 GB"));
    EXPECT_EQ(runTool(dir, "mlnet-workload", "--model llama3-70b --gpus 8 --plan-only --allow-oom").status,
              0);
    const ToolRun bad = runTool(dir, "mlnet-workload", "--model llama9 --gpus 8 --plan-only");
    EXPECT_EQ(bad.status, 2);
    EXPECT_THAT(bad.err, HasSubstr("--model=llama9: not a preset"));
}

}  // namespace
}  // namespace mlnet::workload

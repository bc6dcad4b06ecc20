// The shapes of the public traces (ASTRA-sim's microbenchmarks and examples, the MSCCL converter's custom
// collectives, PyTorch-derived Chakra traces) load with exactly the content they were written with. The
// traces are written at test time by our trace writer with each shape's quirks (reference-shaped-traces.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "reference-shaped-traces.h"
#include "trace-test-util.h"
#include "workload/trace-set.h"
#include "workload/trace-summary.h"

namespace mlnet::test {
namespace {

using ::testing::HasSubstr;

TraceSummary loadOk(const std::string& prefix, Diagnostics& diag, TraceSetOptions options = {}) {
    TraceSet set = loadTraceSet(prefix, options, diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    return summarize(set);
}

class ReferenceTraces : public ::testing::Test {
protected:
    std::string m_dir = makeTempDir("reference-shapes");
};

TEST_F(ReferenceTraces, PyTorchDerivedChakraTrace) {
    PyTorchShape shape;
    pyTorchShapedRank(0, shape).write(m_dir + "/chakra.0.et");
    Diagnostics diag;
    TraceSet set = loadTraceSet(m_dir + "/chakra", {}, diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    TraceSummary s = summarize(set);
    EXPECT_EQ(s.ranks, 1u);
    EXPECT_EQ(s.nodes, shape.nodes());
    EXPECT_EQ(s.nodesByType[static_cast<int>(NodeType::Compute)], shape.computeNodes);
    EXPECT_EQ(s.nodesByType[static_cast<int>(NodeType::Collective)],
              shape.gpuAllReduces + shape.gpuBroadcasts + shape.cpuCommNodes);
    EXPECT_EQ(s.cpuSideCommNodes, shape.cpuCommNodes);
    EXPECT_EQ(s.collectives[static_cast<int>(CollectiveType::Broadcast)].count, shape.gpuBroadcasts);
    EXPECT_EQ(s.collectives[static_cast<int>(CollectiveType::AllReduce)].count, shape.gpuAllReduces);
    EXPECT_EQ(set.ranks[0].danglingCtrlDeps, shape.danglingCtrlDeps);
    // Its ctrl_deps are call-stack links (self references and a cycle), so they are reported and dropped: one
    // warning each for the CPU-side records, the dangling, the self and the cyclic ctrl_deps.
    EXPECT_TRUE(set.ranks[0].ctrlDepsIgnored);
    EXPECT_EQ(diag.warningCount(), 4u) << diag.format(Severity::Warning);
    EXPECT_THAT(diag.format(Severity::Warning),
                HasSubstr(std::to_string(shape.danglingCtrlDeps) + " dangling ctrl_deps"));
    EXPECT_THAT(diag.format(Severity::Warning),
                HasSubstr(std::to_string(shape.selfCtrlDeps) + " such nodes"));
    EXPECT_THAT(diag.format(Severity::Warning), HasSubstr("close a dependency cycle"));
    // Every node still runs: the data_deps alone are acyclic.
    EXPECT_EQ(issueOrder(set.ranks[0]).size(), shape.nodes());
}

TEST_F(ReferenceTraces, PyTorchDerivedTraceIsRejectedInStrictMode) {
    PyTorchShape shape;
    pyTorchShapedRank(0, shape).write(m_dir + "/chakra.0.et");
    Diagnostics diag;
    TraceSetOptions options;
    options.read.strict = true;
    loadTraceSet(m_dir + "/chakra", options, diag);
    EXPECT_TRUE(diag.hasErrors());
    EXPECT_THAT(diag.format(Severity::Error), HasSubstr("COMM_COLL_NODE with is_cpu_op true"));
}

TEST_F(ReferenceTraces, AstraSimMicrobenchmarks) {
    const CollectiveType kinds[] = {CollectiveType::AllReduce, CollectiveType::AllGather,
                                    CollectiveType::ReduceScatter, CollectiveType::AllToAll};
    int sets = 0;
    for (CollectiveType type : kinds) {
        for (uint32_t npus : {4u, 8u, 16u}) {
            const std::string prefix = m_dir + "/" + astraMicrobenchmarkName(type) + std::to_string(npus);
            astraMicrobenchmark(type, npus).write(prefix);
            Diagnostics diag;
            TraceSummary s = loadOk(prefix, diag);
            EXPECT_EQ(s.ranks, npus) << prefix;
            EXPECT_EQ(s.collectives[static_cast<int>(type)].count, npus) << prefix;
            EXPECT_EQ(s.collectives[static_cast<int>(type)].bytes, uint64_t{npus} << 20) << prefix;
            EXPECT_EQ(diag.warningCount(), 0u) << prefix;
            ++sets;
        }
    }
    EXPECT_EQ(sets, 12);
}

TEST_F(ReferenceTraces, HistoricalGeneratorAllReduce) {
    chakraGeneratorAllReduce(8).write(m_dir + "/AllReduce_1MB");
    Diagnostics diag;
    TraceSet set = loadTraceSet(m_dir + "/AllReduce_1MB", {}, diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    ASSERT_EQ(set.numRanks(), 8u);
    for (const RankTrace& t : set.ranks) {
        ASSERT_EQ(t.nodes.size(), 1u);
        EXPECT_EQ(t.nodes[0].id, 64u + t.rank);  // the generator's global id counter
        EXPECT_EQ(t.nodes[0].commSizeBytes, 1048576u);
        EXPECT_EQ(t.version, "0.0.4");
    }
}

TEST_F(ReferenceTraces, MscclCustomRingAllReduce) {
    mscclRingAllReduce(8, 1 << 20).write(m_dir + "/custom_allreduce");
    Diagnostics diag;
    TraceSummary s = loadOk(m_dir + "/custom_allreduce", diag);
    EXPECT_EQ(s.ranks, 8u);
    EXPECT_EQ(s.nodes, 8u * 35u);
    EXPECT_EQ(s.nodesByType[static_cast<int>(NodeType::Send)], 8u * 14u);
    EXPECT_EQ(s.nodesByType[static_cast<int>(NodeType::Recv)], 8u * 14u);
    EXPECT_EQ(s.nodesByType[static_cast<int>(NodeType::Compute)], 8u * 7u);
    // 14 steps of 1 MiB / 8 per rank.
    EXPECT_EQ(s.pointToPoint.bytes, 8u * 14u * 131072u);
    EXPECT_EQ(diag.warningCount(), 0u) << diag.format(Severity::Warning);
}

}  // namespace
}  // namespace mlnet::test

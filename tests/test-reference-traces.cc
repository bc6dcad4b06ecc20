// Every public trace in shared/chakra-examples must load, with the exact content documented for it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "workload/trace-set.h"
#include "workload/trace-summary.h"

namespace mlnet {
namespace {

using ::testing::HasSubstr;

const std::string kExamples = std::string(MLNET_SHARED_DIR) + "/chakra-examples";

#define REQUIRE_EXAMPLES()                                                                          \
    if (!std::filesystem::exists(kExamples)) {                                                      \
        GTEST_SKIP() << "reference traces not found at " << kExamples << " (set MLNET_SHARED_DIR)"; \
    }

TraceSummary loadOk(const std::string& prefix, Diagnostics& diag, TraceSetOptions options = {}) {
    TraceSet set = loadTraceSet(prefix, options, diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    return summarize(set);
}

TEST(ReferenceTraces, PyTorchDerivedChakraSample) {
    REQUIRE_EXAMPLES();
    Diagnostics diag;
    TraceSet set = loadTraceSet(kExamples + "/mlcommons-chakra_tests_data/chakra", {}, diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    TraceSummary s = summarize(set);
    EXPECT_EQ(s.ranks, 1u);
    EXPECT_EQ(s.nodes, 3664u);
    EXPECT_EQ(s.nodesByType[static_cast<int>(NodeType::Compute)], 3643u);
    EXPECT_EQ(s.nodesByType[static_cast<int>(NodeType::Collective)], 21u);
    EXPECT_EQ(s.cpuSideCommNodes, 14u);
    EXPECT_EQ(s.collectives[static_cast<int>(CollectiveType::Broadcast)].count, 2u);
    EXPECT_EQ(s.collectives[static_cast<int>(CollectiveType::AllReduce)].count, 5u);
    EXPECT_EQ(set.ranks[0].danglingCtrlDeps, 1277u);
    // Its ctrl_deps are call-stack links (self references and cycles), so they are reported and dropped.
    EXPECT_TRUE(set.ranks[0].ctrlDepsIgnored);
    EXPECT_EQ(diag.warningCount(), 4u);
    EXPECT_THAT(diag.format(Severity::Warning), HasSubstr("1277 dangling ctrl_deps"));
    // Every node still runs: the data_deps alone are acyclic.
    EXPECT_EQ(issueOrder(set.ranks[0]).size(), 3664u);
}

TEST(ReferenceTraces, PyTorchSampleIsRejectedInStrictMode) {
    REQUIRE_EXAMPLES();
    Diagnostics diag;
    TraceSetOptions options;
    options.read.strict = true;
    loadTraceSet(kExamples + "/mlcommons-chakra_tests_data/chakra", options, diag);
    EXPECT_TRUE(diag.hasErrors());
    EXPECT_THAT(diag.format(Severity::Error), HasSubstr("COMM_COLL_NODE with is_cpu_op true"));
}

TEST(ReferenceTraces, AstraSimMicrobenchmarks) {
    REQUIRE_EXAMPLES();
    const std::pair<const char*, CollectiveType> kinds[] = {{"all_reduce", CollectiveType::AllReduce},
                                                            {"all_gather", CollectiveType::AllGather},
                                                            {"reduce_scatter", CollectiveType::ReduceScatter},
                                                            {"all_to_all", CollectiveType::AllToAll}};
    int sets = 0;
    for (const auto& [name, type] : kinds) {
        for (uint32_t npus : {4u, 8u, 16u}) {
            std::string prefix = kExamples + "/astra-sim_master/examples/workload/microbenchmarks/" + name +
                                 "/" + std::to_string(npus) + "npus_1MB/" + name;
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

TEST(ReferenceTraces, HistoricalGeneratorAllReduce) {
    REQUIRE_EXAMPLES();
    Diagnostics diag;
    TraceSet set = loadTraceSet(
        kExamples + "/astra-sim_historical_c94c746/examples/network_analytical/workload/AllReduce_1MB", {},
        diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    ASSERT_EQ(set.numRanks(), 8u);
    for (const RankTrace& t : set.ranks) {
        ASSERT_EQ(t.nodes.size(), 1u);
        EXPECT_EQ(t.nodes[0].id, 64u + t.rank);  // the generator's global id counter
        EXPECT_EQ(t.nodes[0].commSizeBytes, 1048576u);
        EXPECT_EQ(t.version, "0.0.4");
    }
}

TEST(ReferenceTraces, MscclCustomRingAllReduce) {
    REQUIRE_EXAMPLES();
    Diagnostics diag;
    TraceSummary s = loadOk(kExamples +
                                "/astra-sim_master/examples/system/custom_collectives/"
                                "custom_ring_allreduce_8npus_1MB/custom_allreduce",
                            diag);
    EXPECT_EQ(s.ranks, 8u);
    EXPECT_EQ(s.nodes, 8u * 35u);
    EXPECT_EQ(s.nodesByType[static_cast<int>(NodeType::Send)], 8u * 14u);
    EXPECT_EQ(s.nodesByType[static_cast<int>(NodeType::Recv)], 8u * 14u);
    EXPECT_EQ(s.nodesByType[static_cast<int>(NodeType::Compute)], 8u * 7u);
    // 14 steps of 1 MiB / 8 per rank.
    EXPECT_EQ(s.pointToPoint.bytes, 8u * 14u * 131072u);
    EXPECT_EQ(diag.warningCount(), 0u);
}

}  // namespace
}  // namespace mlnet

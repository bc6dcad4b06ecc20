// The trace executor's issue rule, compute and memory models, point-to-point messages and hang reports.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "raw-trace.h"
#include "sim-test-util.h"
#include "system/collective-report.h"
#include "workload/microbenchmarks.h"

namespace mlnet::test {
namespace {

using ::testing::HasSubstr;

Topology ring2() {
    return Topology::multiDimensional({dim(DimensionKind::Ring, 2)});
}

TraceSet twoRanks(const std::vector<Node>& rank0, const std::vector<Node>& rank1) {
    Diagnostics diag;
    TraceSet set = loadTraceSetFromMemory("exec", {file(rank0), file(rank1)}, {}, diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    return set;
}

Node cpu(uint64_t id, uint64_t micros, std::vector<uint64_t> deps = {}) {
    Node n = comp(id, micros, std::move(deps));
    n.mutable_attr(0)->set_bool_val(true);
    return n;
}

TEST(Executor, OneGpuComputeAtATimeInAscendingIdOrder) {
    // Nodes 3 (2 us) and 5 (1 us) are both ready; 3 goes first, so the CPU node 9 after it ends at 3 us.
    TraceSet t = twoRanks({comp(5, 1), comp(3, 2), cpu(9, 1, {3})}, {comp(1, 1)});
    SimulationOutcome o = run(t, ringSystem(1), ring2());
    EXPECT_EQ(o.ranks[0].finishNs, 3000u);
    EXPECT_EQ(o.ranks[0].gpuComputeNs, 3000u);
}

TEST(Executor, CpuAndGpuRunSideBySide) {
    TraceSet t = twoRanks({comp(1, 4), cpu(2, 3)}, {comp(1, 1)});
    EXPECT_EQ(run(t, ringSystem(1), ring2()).ranks[0].finishNs, 4000u);
}

TEST(Executor, ZeroDurationTakesOneNanosecond) {
    TraceSet t = twoRanks({comp(1, 0), comp(2, 0, {1})}, {comp(1, 0)});
    EXPECT_EQ(run(t, ringSystem(1), ring2()).ranks[0].finishNs, 2u);
}

TEST(Executor, ComputeOverlapsOneCollectiveAndExposedCommunicationIsTheRest) {
    const uint64_t s = 1 << 20;
    auto ranks = [&] { return std::vector<Node>{comp(1, 100), coll(2, CollectiveType::AllReduce, s)}; };
    TraceSet t = twoRanks(ranks(), ranks());
    SimulationOutcome o = run(t, ringSystem(1), ring2());
    const uint64_t ar = 2 * (netNs(s / 2) + 10) + reduceNs(s / 2) + 10;
    EXPECT_EQ(o.ranks[0].finishNs, std::max<uint64_t>(100000, ar));
}

TEST(Executor, CollectivesSerializeUnlessOverlapIsEnabled) {
    const uint64_t s = 1 << 20;
    auto ranks = [&] {
        return std::vector<Node>{coll(1, CollectiveType::AllReduce, s),
                                 coll(2, CollectiveType::AllReduce, s)};
    };
    TraceSet t = twoRanks(ranks(), ranks());
    const uint64_t one = 2 * (netNs(s / 2) + 10) + reduceNs(s / 2) + 10;
    EXPECT_EQ(run(t, ringSystem(1), ring2()).ranks[0].finishNs, 2 * one);
    SimulationOptions overlap;
    overlap.executor.overlapCollectives = true;
    // Issued together, the second collective's chunk still waits for the dimension's single active-chunk
    // slot.
    EXPECT_EQ(run(t, ringSystem(1), ring2(), overlap).ranks[0].finishNs, 2 * one);
    // With two slots both run at once; the congestion-unaware network does not share links, so they take
    // one's time.
    SystemConfig twoSlots = ringSystem(1);
    twoSlots.activeChunksPerDimension = 2;
    EXPECT_EQ(run(t, twoSlots, ring2(), overlap).ranks[0].finishNs, one);
}

TEST(Executor, SendCompletesOnArrivalAndReceivesAreUnlimited) {
    const int64_t s = 1000000;
    TraceSet t = twoRanks({send(1, 0, 1, s, 7), send(2, 0, 1, s, 8), comp(3, 1, {1, 2})},
                          {recv(1, 0, 1, s, 8), recv(2, 0, 1, s, 7)});
    SimulationOutcome o = run(t, ringSystem(1), ring2());
    // SENDs share the communication slot: the second starts when the first has arrived.
    EXPECT_EQ(o.ranks[1].finishNs, 2 * netNs(s));
    EXPECT_EQ(o.ranks[0].finishNs, 2 * netNs(s) + 1000);
}

TEST(Executor, RooflineCompute) {
    SystemConfig system = ringSystem(1);
    system.rooflineEnabled = true;
    system.peakPerfTflops = 900;
    Node n = comp(1, 999);
    attr(n, "num_ops")->set_int64_val(1000000000);
    attr(n, "tensor_size")->set_uint64_val(1000000);
    TraceSet t = twoRanks({n}, {n});
    // intensity 1000 op/B: min(1600 GB/s x 1000, 900 Tflop/s) = 900 Tflop/s; 1e9 ops take 1111 ns.
    EXPECT_EQ(run(t, system, ring2()).ranks[0].finishNs, 1111u);
}

TEST(Executor, RooflineNeedsItsAttributes) {
    SystemConfig system = ringSystem(1);
    system.rooflineEnabled = true;
    system.peakPerfTflops = 900;
    TraceSet t = twoRanks({comp(1, 5)}, {comp(1, 5)});
    Diagnostics diag;
    simulate(t, system, ring2(), {}, {}, diag);
    EXPECT_THAT(diag.firstError(), HasSubstr("exec.0.et: node 1: roofline-enabled needs attributes num_ops"));
}

TEST(Executor, MemoryModels) {
    Node load = makeNode(1, NodeType::MemLoad);
    attr(load, "tensor_size")->set_uint64_val(1600000);
    TraceSet t = twoRanks({load}, {load});
    EXPECT_EQ(run(t, ringSystem(1), ring2()).ranks[0].finishNs, 1000u);  // 1.6 MB at 1600 GB/s
    RemoteMemoryConfig pool;
    pool.type = MemoryType::MemoryPool;
    pool.remoteMemLatencyNs = 500;
    pool.remoteMemBwGBps = 100;
    SimulationOutcome o = run(t, ringSystem(1), ring2(), {}, pool);
    // One pool serves both ranks: the second access waits for the first.
    EXPECT_EQ(std::min(o.ranks[0].finishNs, o.ranks[1].finishNs), 16000u + 500u);
    EXPECT_EQ(std::max(o.ranks[0].finishNs, o.ranks[1].finishNs), 32000u + 500u);
}

TEST(Executor, DeadlockStopsWithAReportOfWhatEachRankWaitsFor) {
    // Each rank receives before it sends, so neither send is ever issued.
    TraceSet t = twoRanks({recv(1, 1, 0, 64, 1), send(2, 0, 1, 64, 2, {1})},
                          {recv(1, 0, 1, 64, 2), send(2, 1, 0, 64, 1, {1})});
    SimulationOutcome o = run(t, ringSystem(1), ring2());
    EXPECT_FALSE(o.completed);
    EXPECT_THAT(o.stallReport, HasSubstr("rank 0 (exec.0.et): 2 of 2 nodes unfinished"));
    EXPECT_THAT(o.stallReport, HasSubstr("node 1 COMM_RECV_NODE: waiting for 64 B from rank 1 with tag 1"));
    EXPECT_THAT(o.stallReport, HasSubstr("1 nodes wait for unfinished parents"));
}

TEST(Executor, TopologyMustMatchTheTrace) {
    TraceSet t = twoRanks({comp(1, 1)}, {comp(1, 1)});
    Diagnostics diag;
    simulate(t, ringSystem(1), Topology::multiDimensional({dim(DimensionKind::Ring, 4)}), {}, {}, diag);
    EXPECT_THAT(diag.firstError(), HasSubstr("the trace set has 2 ranks but the network has 4 NPUs"));
}

TEST(Executor, ImplementationListMustCoverEveryDimension) {
    const Topology twoDims =
        Topology::multiDimensional({dim(DimensionKind::Ring, 2), dim(DimensionKind::Ring, 2)});
    Diagnostics diag;
    simulate(loadBuilt(microbench::collective(CollectiveType::AllReduce, 4, 1024)), ringSystem(1), twoDims,
             {}, {}, diag);
    EXPECT_THAT(diag.firstError(), HasSubstr("lists 1 algorithms but the network has 2 dimensions"));
    // A trace without collectives reads no list, as in ASTRA-sim.
    Diagnostics none;
    simulate(loadBuilt(TraceSetBuilder(4)), ringSystem(1), twoDims, {}, {}, none);
    EXPECT_FALSE(none.hasErrors()) << none.format(Severity::Error);
}

}  // namespace
}  // namespace mlnet::test

namespace mlnet::test {
namespace {

// The reports' rows are written as text straight into the report; they must be exactly what nlohmann's
// dump(1) gives for the same values, wherever the array sits and whatever the rows hold.
TEST(CollectiveReport, RowsWrittenAsTextAreNlohmannsDumpOfTheSameValues) {
    std::vector<CollectiveRecord> rows;
    rows.push_back({3, 17, CollectiveType::AllReduce, 1 << 20, 2, 1000, 25000, true, 4, {}, 0, ""});
    rows.push_back({0,
                    UINT64_MAX,
                    CollectiveType::AllToAll,
                    0,
                    0,
                    7,
                    0,
                    false,
                    1,
                    {5, 0, UINT64_MAX},
                    0,
                    "Ring/Simple x24"});
    rows.push_back({1,
                    2,
                    CollectiveType::ReduceScatter,
                    3,
                    4,
                    5,
                    6,
                    true,
                    0,
                    {1},
                    0,
                    std::string("quote\" back\\ tab\t nl\n ctl\x01 \xc3\xa9", 29)});
    const auto reference = [](const std::vector<CollectiveRecord>& records) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const CollectiveRecord& c : records) {
            const nlohmann::ordered_json null;
            out.push_back({{"rank", c.rank},
                           {"node", c.nodeId},
                           {"type", std::string(toString(c.type))},
                           {"size_bytes", c.sizeBytes},
                           {"communicator", c.group},
                           {"chunks", c.chunks},
                           {"start_ns", c.startNs},
                           {"end_ns", c.finished ? nlohmann::ordered_json(c.endNs) : null},
                           {"duration_ns", c.finished ? nlohmann::ordered_json(c.endNs - c.startNs) : null},
                           {"bytes_sent_per_dim", c.bytesSentPerDim}});
            if (!c.nccl.empty()) {
                out.back()["nccl"] = c.nccl;
            }
        }
        return out;
    };
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, rows.size()}) {
        const std::vector<CollectiveRecord> some(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(n));
        nlohmann::ordered_json report, expected;
        report["completed"] = true;
        report["collectives"] = collectivesPlaceholder();
        report["nested"] = {{"collectives", collectivesPlaceholder()}};  // only the first is replaced
        report["after"] = {1, 2};
        expected["completed"] = true;
        expected["collectives"] = reference(some);
        expected["nested"] = {{"collectives", collectivesPlaceholder()}};
        expected["after"] = {1, 2};
        EXPECT_EQ(dumpReport(report, some), expected.dump(1)) << n;
        // One level deeper, as a report nested in another would have it.
        nlohmann::ordered_json outer, outerExpected;
        outer["run"] = {{"collectives", collectivesPlaceholder()}};
        outerExpected["run"] = {{"collectives", reference(some)}};
        EXPECT_EQ(dumpReport(outer, some), outerExpected.dump(1)) << n;
    }
}

}  // namespace
}  // namespace mlnet::test

// Tests of the microbenchmark generators and mlnet-tracegen. Files are read back with protobuf directly, so
// the checks do not depend on our own reader.
#include "trace-test-util.h"
#include "trace-writer-test-util.h"
#include "workload/microbenchmarks.h"
#include "workload/trace-writer.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlnet::test {
namespace {

namespace fs = std::filesystem;
using ChakraProtoMsg::Node;

TEST(Microbenchmarks, CollectiveIsOneNodePerRank) {
    for (CollectiveType type : {CollectiveType::AllReduce, CollectiveType::AllGather,
                                CollectiveType::ReduceScatter, CollectiveType::AllToAll}) {
        const std::vector<ParsedTrace> traces =
            writeAndParse(microbench::collective(type, 4, 1 << 20), "coll");
        ASSERT_EQ(traces.size(), 4u);
        for (int r = 0; r < 4; ++r) {
            expectWellFormed(traces[r], r);
            ASSERT_EQ(traces[r].nodes.size(), 1u);
            const Node& node = traces[r].nodes[0];
            EXPECT_EQ(node.type(), ChakraProtoMsg::COMM_COLL_NODE);
            EXPECT_EQ(node.name(), toString(type));
            EXPECT_EQ(int64Attr(node, "comm_type"), static_cast<int64_t>(type));
            EXPECT_EQ(int64Attr(node, "comm_size"), 1 << 20);
        }
        expectRunsToCompletion(traces);
    }
}

TEST(Microbenchmarks, ChainAlternatesComputeAndCollective) {
    const std::vector<ParsedTrace> traces = writeAndParse(
        microbench::computeCollectiveChain(3, CollectiveType::ReduceScatter, 4096, 25, 3), "chain");
    ASSERT_EQ(traces.size(), 3u);
    for (int r = 0; r < 3; ++r) {
        expectWellFormed(traces[r], r);
        ASSERT_EQ(traces[r].nodes.size(), 7u);
        for (uint64_t i = 0; i < 7; ++i) {
            const Node& node = traces[r].nodes[i];
            EXPECT_EQ(deps(node), i == 0 ? std::vector<uint64_t>{} : std::vector<uint64_t>{i - 1});
            if (i % 2 == 0) {
                EXPECT_EQ(node.type(), ChakraProtoMsg::COMP_NODE);
                EXPECT_EQ(node.duration_micros(), 25u);
            } else {
                EXPECT_EQ(node.type(), ChakraProtoMsg::COMM_COLL_NODE);
                EXPECT_EQ(int64Attr(node, "comm_type"), ChakraProtoMsg::REDUCE_SCATTER);
                EXPECT_EQ(int64Attr(node, "comm_size"), 4096);
            }
        }
    }
    expectRunsToCompletion(traces);
}

TEST(Microbenchmarks, RingPairsEverySendWithARecv) {
    const std::vector<ParsedTrace> traces = writeAndParse(microbench::p2pRing(4, 512, 3), "ring");
    ASSERT_EQ(traces.size(), 4u);
    for (int r = 0; r < 4; ++r) {
        expectWellFormed(traces[r], r);
        const auto counts = countTypes(traces[r]);
        EXPECT_EQ(counts.at(ChakraProtoMsg::COMM_SEND_NODE), 3);
        EXPECT_EQ(counts.at(ChakraProtoMsg::COMM_RECV_NODE), 3);
        EXPECT_EQ(traces[r].nodes.size(), 6u);
        std::map<int64_t, const Node*> sendByTag;
        std::map<int64_t, const Node*> recvByTag;
        for (const Node& node : traces[r].nodes) {
            const bool send = node.type() == ChakraProtoMsg::COMM_SEND_NODE;
            (send ? sendByTag : recvByTag)[int64Attr(node, "comm_tag")] = &node;
            EXPECT_EQ(send ? int64Attr(node, "comm_dst") : int64Attr(node, "comm_src"),
                      send ? (r + 1) % 4 : (r + 3) % 4);
        }
        for (int64_t round = 1; round < 3; ++round) {
            EXPECT_EQ(deps(*sendByTag.at(round)), std::vector<uint64_t>{recvByTag.at(round - 1)->id()});
        }
        EXPECT_TRUE(deps(*sendByTag.at(0)).empty());
    }
    expectSendsMatchRecvs(traces);
    expectRunsToCompletion(traces);
}

TEST(Microbenchmarks, PipelineRunsForwardsThenBackwards) {
    const uint32_t stages = 3;
    const uint32_t microbatches = 4;
    const std::vector<ParsedTrace> traces =
        writeAndParse(microbench::pipeline(stages, microbatches, 1000, 50), "pipeline");
    ASSERT_EQ(traces.size(), stages);
    for (uint32_t s = 0; s < stages; ++s) {
        expectWellFormed(traces[s], s);
        const int neighbours = (s > 0 ? 1 : 0) + (s < stages - 1 ? 1 : 0);
        const auto counts = countTypes(traces[s]);
        EXPECT_EQ(counts.at(ChakraProtoMsg::COMP_NODE), static_cast<int>(2 * microbatches));
        EXPECT_EQ(counts.at(ChakraProtoMsg::COMM_SEND_NODE), neighbours * static_cast<int>(microbatches));
        EXPECT_EQ(counts.at(ChakraProtoMsg::COMM_RECV_NODE), neighbours * static_cast<int>(microbatches));

        std::vector<std::string> computeOrder;
        std::optional<uint64_t> previousCompute;
        for (const Node& node : traces[s].nodes) {
            if (node.type() == ChakraProtoMsg::COMP_NODE) {
                computeOrder.push_back(node.name());
                EXPECT_EQ(node.duration_micros(), 50u);
                if (previousCompute) {
                    const std::vector<uint64_t> d = deps(node);
                    EXPECT_NE(std::find(d.begin(), d.end(), *previousCompute), d.end()) << node.name();
                }
                previousCompute = node.id();
            } else {
                // Even tags carry activations up the pipeline, odd tags gradients down.
                const bool send = node.type() == ChakraProtoMsg::COMM_SEND_NODE;
                const int64_t peer = int64Attr(node, send ? "comm_dst" : "comm_src");
                const bool forward = int64Attr(node, "comm_tag") % 2 == 0;
                EXPECT_EQ(peer, static_cast<int64_t>(s) + ((send == forward) ? 1 : -1)) << node.name();
                EXPECT_EQ(int64Attr(node, "comm_size"), 1000);
            }
        }
        EXPECT_EQ(computeOrder, (std::vector<std::string>{"fwd_0", "fwd_1", "fwd_2", "fwd_3", "bwd_3",
                                                          "bwd_2", "bwd_1", "bwd_0"}));
    }
    expectSendsMatchRecvs(traces);
    expectRunsToCompletion(traces);
}

TEST(Microbenchmarks, DataParallelOverlapsAllReducesWithBackward) {
    const uint32_t layers = 3;
    const std::vector<ParsedTrace> traces =
        writeAndParse(microbench::dataParallelStep(2, layers, 8192, 10, 20), "dp");
    ASSERT_EQ(traces.size(), 2u);
    for (int r = 0; r < 2; ++r) {
        const ParsedTrace& trace = traces[r];
        expectWellFormed(trace, r);
        ASSERT_EQ(trace.nodes.size(), 3 * layers + 1);
        const auto counts = countTypes(trace);
        EXPECT_EQ(counts.at(ChakraProtoMsg::COMP_NODE), static_cast<int>(2 * layers + 1));
        EXPECT_EQ(counts.at(ChakraProtoMsg::COMM_COLL_NODE), static_cast<int>(layers));

        std::map<std::string, const Node*> byName;
        std::vector<uint64_t> allReduces;
        for (const Node& node : trace.nodes) {
            byName[node.name()] = &node;
            if (node.type() == ChakraProtoMsg::COMM_COLL_NODE) {
                allReduces.push_back(node.id());
                EXPECT_EQ(int64Attr(node, "comm_type"), ChakraProtoMsg::ALL_REDUCE);
                EXPECT_EQ(int64Attr(node, "comm_size"), 8192);
            }
        }
        EXPECT_EQ(byName.at("fwd_layer_0")->duration_micros(), 10u);
        EXPECT_EQ(deps(*byName.at("bwd_layer_2")), std::vector<uint64_t>{byName.at("fwd_layer_2")->id()});
        for (uint32_t layer = 0; layer < layers; ++layer) {
            const Node& backward = *byName.at("bwd_layer_" + std::to_string(layer));
            EXPECT_EQ(backward.duration_micros(), 20u);
            EXPECT_EQ(deps(*byName.at("allreduce_layer_" + std::to_string(layer))),
                      std::vector<uint64_t>{backward.id()});
            // The next backward waits only for this backward, not for its all-reduce.
            if (layer > 0) {
                EXPECT_EQ(deps(*byName.at("bwd_layer_" + std::to_string(layer - 1))),
                          std::vector<uint64_t>{backward.id()});
            }
        }
        std::vector<uint64_t> optimizerDeps = deps(*byName.at("optimizer"));
        std::sort(optimizerDeps.begin(), optimizerDeps.end());
        EXPECT_EQ(optimizerDeps, allReduces);
    }
    expectRunsToCompletion(traces);
}

TEST(Microbenchmarks, InvalidArgumentsThrow) {
    using microbench::collective;
    EXPECT_THROW(collective(CollectiveType::AllReduce, 0, 1), std::invalid_argument);
    EXPECT_THROW(collective(CollectiveType::AllReduce, 2, 0), std::invalid_argument);
    EXPECT_THROW(collective(CollectiveType::AllReduce, 2, kInt64Max + 1), std::invalid_argument);
    EXPECT_THROW(microbench::computeCollectiveChain(0, CollectiveType::AllReduce, 1, 1, 1),
                 std::invalid_argument);
    EXPECT_THROW(microbench::computeCollectiveChain(2, CollectiveType::AllReduce, 1, 1, 0),
                 std::invalid_argument);
    EXPECT_THROW(microbench::p2pRing(1, 1, 1), std::invalid_argument);
    EXPECT_THROW(microbench::p2pRing(2, 1, 0), std::invalid_argument);
    EXPECT_THROW(microbench::p2pRing(2, 0, 1), std::invalid_argument);
    EXPECT_THROW(microbench::pipeline(1, 1, 1, 1), std::invalid_argument);
    EXPECT_THROW(microbench::pipeline(2, 0, 1, 1), std::invalid_argument);
    EXPECT_THROW(microbench::pipeline(2, 1, 0, 1), std::invalid_argument);
    EXPECT_THROW(microbench::dataParallelStep(0, 1, 1, 1, 1), std::invalid_argument);
    EXPECT_THROW(microbench::dataParallelStep(1, 0, 1, 1, 1), std::invalid_argument);
    EXPECT_THROW(microbench::dataParallelStep(1, 1, 0, 1, 1), std::invalid_argument);
    EXPECT_THROW(TraceSetBuilder(0), std::invalid_argument);
    EXPECT_THROW(TraceSetBuilder(2).rank(2), std::out_of_range);
    try {
        microbench::pipeline(1, 4, 1, 1);
        FAIL() << "pipeline accepted one stage";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("stages"), std::string::npos) << e.what();
    }
}

// Runs mlnet-tracegen with output discarded; returns its exit status.
int runTracegen(const std::string& arguments) {
    const std::string command =
        std::string(MLNET_BIN_DIR) + "/mlnet-tracegen " + arguments + " >/dev/null 2>&1";
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(Tracegen, ExitStatusAndOutput) {
    if (!fs::exists(std::string(MLNET_BIN_DIR) + "/mlnet-tracegen")) {
        GTEST_SKIP() << "mlnet-tracegen is not built";
    }
    const std::string dir = makeTempDir("tracegen");
    EXPECT_EQ(runTracegen("--help"), 0);
    EXPECT_EQ(runTracegen("--pattern pipeline --npus 3 --size 100 --microbatches 2 --output " + dir + "/p"),
              0);
    const std::vector<ParsedTrace> traces = parseFiles({dir + "/p.0.et", dir + "/p.1.et", dir + "/p.2.et"});
    EXPECT_FALSE(fs::exists(dir + "/p.3.et"));
    EXPECT_EQ(traces[1].nodes.size(), 12u);
    expectSendsMatchRecvs(traces);
    EXPECT_EQ(runTracegen("--pattern all-gather --npus 2 --size 64 --gzip --output " + dir + "/g"), 0);
    EXPECT_EQ(readFileBytes(dir + "/g.1.et.gz").substr(0, 2), bytes({0x1f, 0x8b}));

    EXPECT_EQ(runTracegen("--pattern broadcast --npus 2 --size 64 --output " + dir + "/x"), 1);
    EXPECT_EQ(runTracegen("--pattern all-reduce --npus 2 --size -1 --output " + dir + "/x"), 1);
    EXPECT_EQ(runTracegen("--pattern all-reduce --npus 2 --size 1e6 --output " + dir + "/x"), 1);
    EXPECT_EQ(runTracegen("--pattern all-reduce --npus 0 --size 64 --output " + dir + "/x"), 1);
    EXPECT_EQ(runTracegen("--pattern all-reduce --npus 2 --output " + dir + "/x"), 1);
    EXPECT_EQ(runTracegen("--pattern all-reduce --npus 2 --size 64 --bogus --output " + dir + "/x"), 1);
    EXPECT_EQ(runTracegen("--pattern all-reduce --npus 2 --size 64 stray --output " + dir + "/x"), 1);
    EXPECT_FALSE(fs::exists(dir + "/x.0.et"));
    EXPECT_EQ(runTracegen("--pattern all-reduce --npus 2 --size 64 --output /proc/mlnet-no-such-dir/x"), 2);
}

// The DLRM-like and Transformer-like steps (mlnet-tracegen dlrm / hybrid-parallel): their structure, and that
// the trace checker accepts them and the analytical simulator runs them to the end on their communicators.
TEST(Tracegen, TrainingStepsValidateAndRun) {
    if (!fs::exists(std::string(MLNET_BIN_DIR) + "/mlnet-analytical")) {
        GTEST_SKIP() << "the tools are not built";
    }
    const std::string dir = makeTempDir("steps");
    ASSERT_EQ(
        runTracegen("--pattern dlrm --npus 4 --size 65536 --dense-size 262144 --compute-us 5 --output " +
                    dir + "/dlrm"),
        0);
    ASSERT_EQ(runTracegen("--pattern hybrid-parallel --npus 8 --tensor-parallel 4 --layers 2 "
                          "--activation-size 32768 --size 131072 --compute-us 5 --output " +
                          dir + "/hp"),
              0);
    const std::vector<ParsedTrace> dlrm = parseFiles({dir + "/dlrm.0.et", dir + "/dlrm.3.et"});
    const auto dlrmCounts = countTypes(dlrm[0]);
    EXPECT_EQ(dlrmCounts.at(ChakraProtoMsg::COMP_NODE), 5);
    EXPECT_EQ(dlrmCounts.at(ChakraProtoMsg::COMM_COLL_NODE), 3);
    // Per rank: the groups' METADATA node, 2 forward computes and 4 tensor-parallel all-reduces, 2 backward
    // computes and 4 tensor-parallel all-reduces, 2 data-parallel all-reduces, the optimizer.
    const std::vector<ParsedTrace> hybrid = parseFiles({dir + "/hp.0.et", dir + "/hp.5.et"});
    for (const ParsedTrace& trace : hybrid) {
        ASSERT_EQ(trace.nodes.size(), 1u + 2 + 4 + 2 + 4 + 2 + 1);
        const auto counts = countTypes(trace);
        EXPECT_EQ(counts.at(ChakraProtoMsg::COMM_COLL_NODE), 10);
    }
    // Rank 5: tensor-parallel group 2 (ranks 4..7), data-parallel group 1 + 2 + 1 = 4 (ranks 1 and 5).
    std::map<std::string, int64_t> groupOf;
    for (const Node& node : hybrid[1].nodes) {
        if (node.type() == ChakraProtoMsg::COMM_COLL_NODE) {
            for (const auto& a : node.attr()) {
                if (a.name() == "pg_name") {
                    groupOf[node.name()] = std::stoll(a.string_val());
                }
            }
        }
    }
    EXPECT_EQ(groupOf.at("tp_allreduce_mlp_bwd_1"), 2);
    EXPECT_EQ(groupOf.at("dp_allreduce_layer_0"), 4);
    const std::string system = std::string(MLNET_SOURCE_DIR) + "/scenarios/packet/system.json";
    for (const auto& [prefix, npus] : {std::pair<std::string, int>{dir + "/dlrm", 4}, {dir + "/hp", 8}}) {
        EXPECT_EQ(
            std::system((std::string(MLNET_BIN_DIR) + "/mlnet-check " + prefix + " > /dev/null").c_str()), 0)
            << prefix;
        const std::string network = dir + "/net.yml";
        writeFileBytes(network, "topology: [ Switch ]\nnpus_count: [ " + std::to_string(npus) +
                                    " ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n");
        const std::string run = std::string(MLNET_BIN_DIR) +
                                "/mlnet-analytical --workload-configuration=" + prefix +
                                " --system-configuration=" + system + " --network-configuration=" + network +
                                " > " + dir + "/out.txt 2>&1";
        EXPECT_EQ(std::system(run.c_str()), 0) << readFileBytes(dir + "/out.txt");
    }
}

}  // namespace
}  // namespace mlnet::test

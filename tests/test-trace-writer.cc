// Tests of the Chakra trace writer. Files are read back with protobuf directly, so the checks do not depend
// on our own reader (except the one round trip through it).
#include "trace-test-util.h"
#include "trace-writer-test-util.h"
#include "workload/microbenchmarks.h"
#include "workload/trace-set.h"
#include "workload/trace-writer.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlnet::test {
namespace {

namespace fs = std::filesystem;
using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

TEST(TraceWriter, SerializeMatchesHandDerivedBytes) {
    RankTraceBuilder builder(0);
    EXPECT_EQ(builder.addCollective("ALL_REDUCE", CollectiveType::AllReduce, 1048576), 0u);
    const std::string node = bytes({0x12, 0x0a}) + "ALL_REDUCE" +  // id 0 is the proto3 default: absent
                             bytes({0x18, 0x07}) +                 // type COMM_COLL_NODE
                             bytes({0x52, 0x0e, 0x0a, 0x09}) + "is_cpu_op" + bytes({0xd8, 0x01, 0x00}) +
                             bytes({0x52, 0x0d, 0x0a, 0x09}) + "comm_type" + bytes({0x48, 0x00}) +
                             bytes({0x52, 0x0f, 0x0a, 0x09}) + "comm_size" + bytes({0x48, 0x80, 0x80, 0x40});
    ASSERT_EQ(node.size(), 0x3eu);
    const std::string serialized = builder.serialize();
    EXPECT_EQ(serialized.substr(0, 8), bytes({0x07, 0x0a, 0x05}) + "1.0.0");
    EXPECT_EQ(serialized, bytes({0x07, 0x0a, 0x05}) + "1.0.0" + bytes({0x3e}) + node);

    Node parsed;
    ASSERT_TRUE(parsed.ParseFromString(serialized.substr(9)));
    EXPECT_EQ(parsed.id(), 0u);
    EXPECT_EQ(parsed.name(), "ALL_REDUCE");
    EXPECT_EQ(parsed.type(), ChakraProtoMsg::COMM_COLL_NODE);
    EXPECT_EQ(int64Attr(parsed, "comm_type"), ChakraProtoMsg::ALL_REDUCE);
    EXPECT_EQ(int64Attr(parsed, "comm_size"), 1048576);
    EXPECT_FALSE(hasAttr(parsed, "pg_name"));
}

TEST(TraceWriter, MultiByteLengthPrefixAndPackedDeps) {
    RankTraceBuilder builder(3, "");
    builder.addCompute(std::string(200, 'x'), 5);
    EXPECT_EQ(builder.addCompute("y", 7, {0}), 1u);
    const std::string serialized = builder.serialize();
    // Empty GlobalMetadata is the single byte 00; node 0 is 3 + 200 (name) + 2 (type) + 16 (is_cpu_op) + 2
    // (duration) = 223 bytes, whose varint needs two bytes.
    EXPECT_EQ(serialized.substr(0, 3), bytes({0x00, 0xdf, 0x01}));
    const std::string node1 = bytes({0x08, 0x01, 0x12, 0x01}) + "y" + bytes({0x18, 0x04}) +
                              bytes({0x2a, 0x01, 0x00}) +  // data_deps [0], packed
                              bytes({0x38, 0x07}) +        // duration_micros 7
                              bytes({0x52, 0x0e, 0x0a, 0x09}) + "is_cpu_op" + bytes({0xd8, 0x01, 0x00});
    EXPECT_EQ(serialized.substr(3 + 223), bytes({static_cast<int>(node1.size())}) + node1);
}

TEST(TraceWriter, AttributeEncodings) {
    RankTraceBuilder builder(2);
    builder.addSend("s", 5, 100, 9);
    builder.addRecv("r", 1, 200, 10);
    builder.addRooflineCompute("roof", 1000, 4096);
    builder.addMemory(NodeType::MemLoad, "load", std::numeric_limits<uint64_t>::max());
    builder.addMemory(NodeType::MemStore, "store", 64);
    builder.addCollective("ag", CollectiveType::AllGather, 300, {}, 3);
    const ParsedTrace trace = parseTrace(builder.serialize());
    ASSERT_EQ(trace.nodes.size(), 6u);
    expectWellFormed(trace, 2);

    EXPECT_EQ(messageOf(trace.nodes[0]), Message(2, 5, 9, 100));
    EXPECT_EQ(trace.nodes[0].type(), ChakraProtoMsg::COMM_SEND_NODE);
    EXPECT_EQ(messageOf(trace.nodes[1]), Message(1, 2, 10, 200));
    EXPECT_EQ(trace.nodes[1].type(), ChakraProtoMsg::COMM_RECV_NODE);

    const Node& roof = trace.nodes[2];
    EXPECT_EQ(roof.type(), ChakraProtoMsg::COMP_NODE);
    EXPECT_EQ(roof.duration_micros(), 0u);
    EXPECT_EQ(int64Attr(roof, "num_ops"), 1000);
    EXPECT_EQ(attr(roof, "tensor_size").value_case(), AttributeProto::kUint64Val);
    EXPECT_EQ(attr(roof, "tensor_size").uint64_val(), 4096u);

    EXPECT_EQ(trace.nodes[3].type(), ChakraProtoMsg::MEM_LOAD_NODE);
    EXPECT_EQ(attr(trace.nodes[3], "tensor_size").uint64_val(), std::numeric_limits<uint64_t>::max());
    EXPECT_EQ(trace.nodes[4].type(), ChakraProtoMsg::MEM_STORE_NODE);

    const Node& coll = trace.nodes[5];
    EXPECT_EQ(int64Attr(coll, "comm_type"), ChakraProtoMsg::ALL_GATHER);
    EXPECT_EQ(attr(coll, "pg_name").value_case(), AttributeProto::kStringVal);
    EXPECT_EQ(attr(coll, "pg_name").string_val(), "3");
}

TEST(TraceWriter, ProcessGroupsPayloadMatchesPyTorchConverter) {
    RankTraceBuilder builder(0);
    builder.addCompute("c", 1);
    EXPECT_EQ(builder.addProcessGroups({{1, {0, 1}, 0}}), 1u);
    EXPECT_EQ(builder.addProcessGroups({{4, {2, 3}, 0}, {5, {}, 0}}), 2u);
    const ParsedTrace trace = parseTrace(builder.serialize());
    const Node& single = trace.nodes[1];
    EXPECT_EQ(single.name(), "## process_group:init ##");
    EXPECT_EQ(single.type(), ChakraProtoMsg::METADATA_NODE);
    EXPECT_TRUE(single.attr().empty());
    EXPECT_EQ(single.inputs().values(),
              R"(['[{"pg_name": "1", "backend_id": 0, "backend_config": "cuda:nccl", "ranks": [0, 1], )"
              R"("group_size": 2, "group_count": 1}]'])");
    EXPECT_EQ(trace.nodes[2].inputs().values(),
              R"(['[{"pg_name": "4", "backend_id": 0, "backend_config": "cuda:nccl", "ranks": [2, 3], )"
              R"("group_size": 2, "group_count": 2}, {"pg_name": "5", "backend_id": 0, )"
              R"("backend_config": "cuda:nccl", "ranks": [], "group_count": 2}]'])");
    EXPECT_THROW(builder.addProcessGroups({{1, {0}, 0}, {1, {1}, 0}}), std::invalid_argument);
}

TEST(TraceWriter, RejectsValuesItCannotEncode) {
    RankTraceBuilder builder(0);
    EXPECT_THROW(builder.addCollective("big", CollectiveType::AllReduce, kInt64Max + 1),
                 std::invalid_argument);
    EXPECT_THROW(builder.addSend("s", 1, 8, kInt64Max + 1), std::invalid_argument);
    EXPECT_THROW(builder.addRecv("r", 1, kInt64Max + 1, 0), std::invalid_argument);
    EXPECT_THROW(builder.addRooflineCompute("c", kInt64Max + 1, 1), std::invalid_argument);
    EXPECT_THROW(builder.addCompute("c", 1, {0}), std::invalid_argument);  // no node 0 yet
    EXPECT_THROW(builder.addMemory(NodeType::Compute, "m", 1), std::invalid_argument);
    // Failed calls neither add a record nor use up an id.
    EXPECT_TRUE(builder.nodes().empty());
    EXPECT_EQ(builder.addCollective("max", CollectiveType::AllReduce, kInt64Max), 0u);
    EXPECT_THROW(builder.addCompute("c", 1, {1}), std::invalid_argument);
    EXPECT_EQ(builder.addCompute("c", 1, {0}), 1u);
    EXPECT_EQ(int64Attr(parseTrace(builder.serialize()).nodes[0], "comm_size"),
              static_cast<int64_t>(kInt64Max));
}

TEST(TraceWriter, RecordsCanBeEditedForTests) {
    RankTraceBuilder builder(0);
    builder.addCompute("a", 1);
    builder.addCompute("b", 1);
    builder.node(1).add_ctrl_deps(0);
    builder.node(1).add_data_deps(42);
    builder.metadata().set_version("0.0.4");
    EXPECT_THROW(builder.node(2), std::out_of_range);
    const ParsedTrace trace = parseTrace(builder.serialize());
    EXPECT_EQ(trace.metadata.version(), "0.0.4");
    ASSERT_EQ(trace.nodes[1].ctrl_deps_size(), 1);
    EXPECT_EQ(deps(trace.nodes[1]), std::vector<uint64_t>{42});
}

TEST(TraceWriter, GzipOutputDecompressesToSerializedBytes) {
    const TraceSetBuilder set = microbench::dataParallelStep(2, 3, 1 << 20, 10, 20);
    const std::vector<std::string> paths = set.write(makeTempDir("gzip") + "/dp", true);
    ASSERT_EQ(paths.size(), 2u);
    for (Rank r = 0; r < 2; ++r) {
        EXPECT_EQ(fs::path(paths[r]).filename(), "dp." + std::to_string(r) + ".et.gz");
        const std::string compressed = readFileBytes(paths[r]);
        ASSERT_GE(compressed.size(), 2u);
        EXPECT_EQ(compressed.substr(0, 2), bytes({0x1f, 0x8b}));

        z_stream stream{};
        ASSERT_EQ(inflateInit2(&stream, 15 + 16), Z_OK);
        std::string inflated(1 << 16, '\0');
        stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
        stream.avail_in = static_cast<uInt>(compressed.size());
        stream.next_out = reinterpret_cast<Bytef*>(inflated.data());
        stream.avail_out = static_cast<uInt>(inflated.size());
        EXPECT_EQ(inflate(&stream, Z_FINISH), Z_STREAM_END);
        inflated.resize(stream.total_out);
        inflateEnd(&stream);
        EXPECT_EQ(inflated, set.rank(r).serialize());
    }
}

TEST(TraceWriter, WriteIsAtomicAndOverwrites) {
    const std::string dir = makeTempDir("atomic");
    RankTraceBuilder builder(0);
    builder.addCompute("first", 1);
    builder.write(dir + "/t.0.et");
    builder.addCompute("second", 1, {0});
    builder.write(dir + "/t.0.et");
    EXPECT_EQ(readFileBytes(dir + "/t.0.et"), builder.serialize());
    std::vector<std::string> names;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
        names.push_back(entry.path().filename().string());
    }
    EXPECT_EQ(names, std::vector<std::string>{"t.0.et"});

    // The rename fails when the target is a directory; the temporary file must not be left behind.
    fs::create_directory(dir + "/blocked.et");
    EXPECT_THROW(builder.write(dir + "/blocked.et"), std::runtime_error);
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2);
}

TEST(TraceWriter, WriteFailureNamesThePath) {
    const std::string path = "/proc/mlnet-no-such-dir/t.0.et";
    try {
        RankTraceBuilder(0).write(path);
        FAIL() << "writing under /proc succeeded";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
    try {
        TraceSetBuilder(2).write("/proc/mlnet-no-such-dir/sub/t");
        FAIL() << "creating a directory under /proc succeeded";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("/proc/mlnet-no-such-dir/sub"), std::string::npos) << e.what();
    }
}

TEST(TraceWriter, TraceSetWritesEveryRankAndCreatesDirectories) {
    TraceSetBuilder set(3, "0.0.4");
    EXPECT_EQ(set.size(), 3u);
    for (Rank r = 0; r < 3; ++r) {
        EXPECT_EQ(set.rank(r).rank(), r);
        set.rank(r).addCompute("c" + std::to_string(r), r);
    }
    const std::string prefix = makeTempDir("set") + "/a/b/run";
    const std::vector<std::string> paths = set.write(prefix);
    ASSERT_EQ(paths.size(), 3u);
    for (Rank r = 0; r < 3; ++r) {
        EXPECT_EQ(paths[r], prefix + "." + std::to_string(r) + ".et");
        const ParsedTrace trace = parseTrace(readFileBytes(paths[r]));
        EXPECT_EQ(trace.metadata.version(), "0.0.4");
        ASSERT_EQ(trace.nodes.size(), 1u);
        EXPECT_EQ(trace.nodes[0].name(), "c" + std::to_string(r));
    }
}

// The one test through our own reader: every generated set must load without errors or warnings and decode to
// the values written.
TEST(TraceWriter, GeneratedSetsLoadCleanlyWithTheReader) {
    // As in PyTorch, every rank declares every group and uses those it belongs to.
    TraceSetBuilder grouped(4);
    for (Rank r = 0; r < 4; ++r) {
        RankTraceBuilder& trace = grouped.rank(r);
        const uint64_t groups = trace.addProcessGroups({{1, {0, 1}, 0}, {3, {2, 3}, 0}, {2, {}, 0}});
        trace.addCollective("pair_ar", CollectiveType::AllReduce, 4096, {groups}, r < 2 ? 1 : 3);
        trace.addCollective("world_ag", CollectiveType::AllGather, 512, {groups}, 2);
    }
    const std::vector<std::pair<std::string, TraceSetBuilder>> sets = {
        {"collective", microbench::collective(CollectiveType::AllToAll, 3, 100)},
        {"chain", microbench::computeCollectiveChain(2, CollectiveType::AllGather, 64, 5, 2)},
        {"ring", microbench::p2pRing(3, 256, 2)},
        {"pipeline", microbench::pipeline(4, 3, 1024, 7)},
        {"dp", microbench::dataParallelStep(4, 5, 1 << 20, 10, 20)},
        {"grouped", std::move(grouped)},
    };
    const std::string dir = makeTempDir("roundtrip");
    for (const auto& [name, set] : sets) {
        for (bool gzip : {false, true}) {
            SCOPED_TRACE(name + (gzip ? " (gzip)" : ""));
            const std::string prefix = dir + "/" + name + (gzip ? "-gz" : "");
            set.write(prefix, gzip);
            Diagnostics diag;
            const TraceSet loaded = loadTraceSet(prefix, TraceSetOptions{}, diag);
            EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
            EXPECT_EQ(diag.warningCount(), 0u) << diag.format(Severity::Warning);
            ASSERT_EQ(loaded.numRanks(), set.size());
            for (Rank r = 0; r < set.size(); ++r) {
                const RankTrace& trace = loaded.ranks[r];
                const std::vector<Node>& written = set.rank(r).nodes();
                EXPECT_EQ(trace.version, "1.0.0");
                ASSERT_EQ(trace.nodes.size(), written.size());
                for (std::size_t i = 0; i < written.size(); ++i) {
                    const TraceNode& node = trace.nodes[i];
                    EXPECT_EQ(node.id, written[i].id());
                    EXPECT_EQ(static_cast<int>(node.type), static_cast<int>(written[i].type()));
                    EXPECT_EQ(trace.name(node), written[i].name());
                    EXPECT_EQ(node.durationMicros, written[i].duration_micros());
                    EXPECT_EQ(trace.parentCount(static_cast<NodeIndex>(i)),
                              static_cast<std::size_t>(written[i].data_deps_size()));
                    if (node.type == NodeType::Send || node.type == NodeType::Recv) {
                        const Message m = messageOf(written[i]);
                        EXPECT_EQ(node.peer, node.type == NodeType::Send ? std::get<1>(m) : std::get<0>(m));
                        EXPECT_EQ(node.tag, static_cast<uint64_t>(std::get<2>(m)));
                        EXPECT_EQ(node.commSizeBytes, static_cast<uint64_t>(std::get<3>(m)));
                    } else if (node.type == NodeType::Collective) {
                        EXPECT_EQ(static_cast<int64_t>(node.collective), int64Attr(written[i], "comm_type"));
                        EXPECT_EQ(node.commSizeBytes,
                                  static_cast<uint64_t>(int64Attr(written[i], "comm_size")));
                    }
                }
            }
            if (name == "grouped") {
                ASSERT_NE(loaded.groups.members(3), nullptr);
                EXPECT_EQ(*loaded.groups.members(3), (std::vector<Rank>{2, 3}));
                EXPECT_EQ(loaded.groups.members(2)->size(), 4u);
                EXPECT_EQ(loaded.ranks[2].declaredGroups.size(), 3u);
                EXPECT_EQ(loaded.ranks[2].nodes[1].group, 3u);
            }
        }
    }
}

}  // namespace
}  // namespace mlnet::test

// Tests of the Chakra trace writer, the microbenchmark generators and mlnet-tracegen. Files are read back
// with protobuf directly, so the checks do not depend on our own reader.
#include "trace-test-util.h"
#include "workload/microbenchmarks.h"
#include "workload/trace-set.h"
#include "workload/trace-writer.h"

#include <google/protobuf/io/coded_stream.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

namespace mlnet {
namespace {

namespace fs = std::filesystem;
using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

constexpr uint64_t kInt64Max = std::numeric_limits<int64_t>::max();

std::string bytes(std::initializer_list<int> values) {
    std::string out;
    for (int v : values) {
        out.push_back(static_cast<char>(v));
    }
    return out;
}

struct ParsedTrace {
    ChakraProtoMsg::GlobalMetadata metadata;
    std::vector<Node> nodes;
};

// Splits records with protobuf's own varint reader, independent of the writer's encoder.
ParsedTrace parseTrace(const std::string& data) {
    ParsedTrace trace;
    std::size_t offset = 0;
    bool first = true;
    while (offset < data.size()) {
        google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(data.data()) + offset,
                                                  static_cast<int>(data.size() - offset));
        uint32_t length = 0;
        std::string record;
        if (!in.ReadVarint32(&length) || !in.ReadString(&record, static_cast<int>(length))) {
            throw std::runtime_error("truncated record at byte " + std::to_string(offset));
        }
        offset += static_cast<std::size_t>(in.CurrentPosition());
        const bool parsed = first ? trace.metadata.ParseFromString(record)
                                  : trace.nodes.emplace_back().ParseFromString(record);
        if (!parsed) {
            throw std::runtime_error("unparsable record ending at byte " + std::to_string(offset));
        }
        first = false;
    }
    if (first) {
        throw std::runtime_error("no GlobalMetadata record");
    }
    return trace;
}

std::vector<ParsedTrace> parseFiles(const std::vector<std::string>& paths) {
    std::vector<ParsedTrace> traces;
    for (const std::string& path : paths) {
        traces.push_back(parseTrace(readFileBytes(path)));
    }
    return traces;
}

std::vector<ParsedTrace> writeAndParse(const TraceSetBuilder& set, const std::string& tag) {
    const std::vector<std::string> paths = set.write(makeTempDir(tag) + "/trace");
    EXPECT_EQ(paths.size(), set.size());
    return parseFiles(paths);
}

const AttributeProto& attr(const Node& node, const std::string& name) {
    for (const AttributeProto& a : node.attr()) {
        if (a.name() == name) {
            return a;
        }
    }
    throw std::runtime_error("node " + std::to_string(node.id()) + " has no attribute " + name);
}

bool hasAttr(const Node& node, const std::string& name) {
    return std::any_of(node.attr().begin(), node.attr().end(),
                       [&](const AttributeProto& a) { return a.name() == name; });
}

int64_t int64Attr(const Node& node, const std::string& name) {
    const AttributeProto& a = attr(node, name);
    if (a.value_case() != AttributeProto::kInt64Val) {
        throw std::runtime_error(name + " of node " + std::to_string(node.id()) + " is not an int64_val");
    }
    return a.int64_val();
}

std::vector<uint64_t> deps(const Node& node) {
    return {node.data_deps().begin(), node.data_deps().end()};
}

std::map<ChakraProtoMsg::NodeType, int> countTypes(const ParsedTrace& trace) {
    std::map<ChakraProtoMsg::NodeType, int> counts;
    for (const Node& node : trace.nodes) {
        ++counts[node.type()];
    }
    return counts;
}

// What every builder-made file must satisfy: version 1.0.0, dense ids, dependencies only on earlier nodes,
// is_cpu_op false on every non-METADATA node, and the point-to-point endpoint that is the file's own rank.
void expectWellFormed(const ParsedTrace& trace, int64_t rank) {
    EXPECT_EQ(trace.metadata.version(), "1.0.0");
    for (std::size_t i = 0; i < trace.nodes.size(); ++i) {
        const Node& node = trace.nodes[i];
        EXPECT_EQ(node.id(), i);
        for (uint64_t dep : node.data_deps()) {
            EXPECT_LT(dep, node.id());
        }
        EXPECT_EQ(attr(node, "is_cpu_op").value_case(), AttributeProto::kBoolVal);
        EXPECT_FALSE(attr(node, "is_cpu_op").bool_val());
        if (node.type() == ChakraProtoMsg::COMM_SEND_NODE) {
            EXPECT_EQ(int64Attr(node, "comm_src"), rank);
        }
        if (node.type() == ChakraProtoMsg::COMM_RECV_NODE) {
            EXPECT_EQ(int64Attr(node, "comm_dst"), rank);
        }
    }
}

using Message = std::tuple<int64_t, int64_t, int64_t, int64_t>;  // src, dst, tag, size

Message messageOf(const Node& node) {
    return {int64Attr(node, "comm_src"), int64Attr(node, "comm_dst"), int64Attr(node, "comm_tag"),
            int64Attr(node, "comm_size")};
}

void expectSendsMatchRecvs(const std::vector<ParsedTrace>& traces) {
    std::multiset<Message> sends;
    std::multiset<Message> recvs;
    for (const ParsedTrace& trace : traces) {
        for (const Node& node : trace.nodes) {
            if (node.type() == ChakraProtoMsg::COMM_SEND_NODE) {
                sends.insert(messageOf(node));
            } else if (node.type() == ChakraProtoMsg::COMM_RECV_NODE) {
                recvs.insert(messageOf(node));
            }
        }
    }
    EXPECT_FALSE(sends.empty());
    EXPECT_EQ(sends, recvs);
    // A repeated (src, dst, tag) would let a receive match the wrong message.
    std::set<Message> distinct(sends.begin(), sends.end());
    EXPECT_EQ(distinct.size(), sends.size());
}

// Replays a set with unlimited resources: a node completes once its data deps have; a RECV also needs its
// SEND to have completed, and the k-th collective of every rank completes together once all of them are
// ready. Any node left over means the generated schedule can deadlock.
void expectRunsToCompletion(const std::vector<ParsedTrace>& traces) {
    const std::size_t n = traces.size();
    std::vector<std::vector<bool>> done(n);
    std::vector<std::vector<uint64_t>> collectives(n);
    std::vector<std::size_t> nextCollective(n, 0);
    for (std::size_t r = 0; r < n; ++r) {
        done[r].assign(traces[r].nodes.size(), false);
        for (const Node& node : traces[r].nodes) {
            if (node.type() == ChakraProtoMsg::COMM_COLL_NODE) {
                collectives[r].push_back(node.id());
            }
        }
    }
    auto ready = [&](std::size_t r, const Node& node) {
        return !done[r][node.id()] && std::all_of(node.data_deps().begin(), node.data_deps().end(),
                                                  [&](uint64_t dep) { return done[r][dep]; });
    };
    std::multiset<Message> delivered;
    for (bool progress = true; progress;) {
        progress = false;
        for (std::size_t r = 0; r < n; ++r) {
            for (const Node& node : traces[r].nodes) {
                if (!ready(r, node) || node.type() == ChakraProtoMsg::COMM_COLL_NODE) {
                    continue;
                }
                if (node.type() == ChakraProtoMsg::COMM_SEND_NODE) {
                    delivered.insert(messageOf(node));
                } else if (node.type() == ChakraProtoMsg::COMM_RECV_NODE) {
                    auto it = delivered.find(messageOf(node));
                    if (it == delivered.end()) {
                        continue;
                    }
                    delivered.erase(it);
                }
                done[r][node.id()] = progress = true;
            }
        }
        bool allReady = true;
        for (std::size_t r = 0; r < n; ++r) {
            allReady = allReady && nextCollective[r] < collectives[r].size() &&
                       ready(r, traces[r].nodes[collectives[r][nextCollective[r]]]);
        }
        if (allReady) {
            for (std::size_t r = 0; r < n; ++r) {
                done[r][collectives[r][nextCollective[r]++]] = progress = true;
            }
        }
    }
    for (std::size_t r = 0; r < n; ++r) {
        EXPECT_EQ(std::count(done[r].begin(), done[r].end(), false), 0) << "rank " << r << " stalls";
    }
}

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

}  // namespace
}  // namespace mlnet

// What the reader must accept (any integer encoding of an attribute, gzip, the 2023 schema and later) and how
// it decodes it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "raw-trace.h"
#include "trace-test-util.h"
#include "workload/trace-summary.h"

namespace mlnet::test {
namespace {

using ::testing::HasSubstr;

Parsed parseOk(const std::string& bytes, const TraceReadOptions& options = {}, Rank rank = 0,
               uint32_t numRanks = 0) {
    Parsed p = parse(bytes, options, rank, numRanks);
    EXPECT_FALSE(p.diag.hasErrors()) << p.diag.format(Severity::Error);
    return p;
}

TEST(TraceReader, DecodesTypedFieldsAndDependencies) {
    Node c = comp(10, 250, {});
    Node ar = coll(11, CollectiveType::ReduceScatter, 1 << 20, {10}, "0");
    attr(ar, "comm_priority")->set_int32_val(3);
    auto* dims = attr(ar, "involved_dim")->mutable_bool_list();
    dims->add_values(true);
    dims->add_values(false);
    dims->add_values(true);
    Parsed p = parseOk(file({c, ar, comp(12, 1, {11, 10})}));
    ASSERT_EQ(p.trace.nodes.size(), 3u);
    const TraceNode& n = p.trace.nodes[1];
    EXPECT_EQ(n.id, 11u);
    EXPECT_EQ(n.type, NodeType::Collective);
    EXPECT_EQ(n.collective, CollectiveType::ReduceScatter);
    EXPECT_EQ(n.commSizeBytes, 1u << 20);
    EXPECT_EQ(n.priority, 3u);
    EXPECT_EQ(n.group, kWorldGroup);
    EXPECT_EQ(n.involvedDims, 0b101u);
    EXPECT_EQ(p.trace.name(n), "node11");
    EXPECT_EQ(p.trace.nodes[0].durationMicros, 250u);
    EXPECT_EQ(p.trace.parentCount(0), 0u);
    ASSERT_EQ(p.trace.parentCount(1), 1u);
    EXPECT_EQ(*p.trace.parentsBegin(1), 0u);
    EXPECT_EQ(p.trace.parentCount(2), 2u);
    EXPECT_EQ(p.trace.find(12).value(), 2u);
    EXPECT_FALSE(p.trace.find(13).has_value());
    EXPECT_EQ(p.trace.version, "1.0.0");
}

// Every integral oneof case real producers use must decode to the same size.
class IntegralEncodings : public ::testing::TestWithParam<int> {};

TEST_P(IntegralEncodings, CommSizeInAnyIntegerWidth) {
    Node n = makeNode(1, NodeType::Collective);
    attr(n, "comm_type")->set_int64_val(0);
    AttributeProto* a = attr(n, "comm_size");
    const uint32_t v = 123456;
    switch (GetParam()) {
        case 0:
            a->set_int32_val(v);
            break;
        case 1:
            a->set_int64_val(v);
            break;
        case 2:
            a->set_uint32_val(v);
            break;
        case 3:
            a->set_uint64_val(v);
            break;
        case 4:
            a->set_sint32_val(v);
            break;
        case 5:
            a->set_sint64_val(v);
            break;
        case 6:
            a->set_fixed32_val(v);
            break;
        case 7:
            a->set_fixed64_val(v);
            break;
        case 8:
            a->set_sfixed32_val(v);
            break;
        case 9:
            a->set_sfixed64_val(v);
            break;
    }
    Parsed p = parseOk(file({n}));
    ASSERT_EQ(p.trace.nodes.size(), 1u);
    EXPECT_EQ(p.trace.nodes[0].commSizeBytes, v);
}

INSTANTIATE_TEST_SUITE_P(AllCases, IntegralEncodings, ::testing::Range(0, 10));

TEST(TraceReader, FullWidthUnsignedSize) {
    Node n = makeNode(1, NodeType::MemLoad);
    attr(n, "tensor_size")->set_uint64_val(std::numeric_limits<uint64_t>::max());
    EXPECT_EQ(parseOk(file({n})).trace.nodes[0].tensorSizeBytes, std::numeric_limits<uint64_t>::max());
}

TEST(TraceReader, IsCpuOpAsBoolOrInt) {
    Node a = comp(1, 1);
    a.mutable_attr(0)->set_int32_val(1);
    Node b = comp(2, 1);
    b.mutable_attr(0)->set_bool_val(true);
    Node c = comp(3, 1);
    c.mutable_attr(0)->set_int32_val(0);
    Parsed p = parseOk(file({a, b, c}));
    EXPECT_TRUE(p.trace.nodes[0].isCpuOp());
    EXPECT_TRUE(p.trace.nodes[1].isCpuOp());
    EXPECT_FALSE(p.trace.nodes[2].isCpuOp());
}

TEST(TraceReader, EmptyMetadataZeroLengthNodeAndInvalidNodeInChain) {
    // 00 = empty GlobalMetadata; a zero-length node record is INVALID_NODE id 0, usable as a dependency.
    std::string bytes = std::string(1, '\0') + frame("") + record(comp(1, 1, {0}));
    Parsed p = parseOk(bytes);
    ASSERT_EQ(p.trace.nodes.size(), 2u);
    EXPECT_EQ(p.trace.nodes[0].type, NodeType::Invalid);
    EXPECT_EQ(p.trace.nodes[0].id, 0u);
    EXPECT_EQ(p.trace.parentCount(1), 1u);
    EXPECT_EQ(p.trace.version, "");
}

TEST(TraceReader, MetadataOnlyFile) {
    Parsed p = parseOk(metadataRecord("0.0.4"));
    EXPECT_TRUE(p.trace.nodes.empty());
    EXPECT_EQ(p.diag.warningCount(), 0u);
}

TEST(TraceReader, UnknownVersionIsAWarning) {
    Parsed p = parseOk(file({comp(1, 1)}, "9.9"));
    ASSERT_EQ(p.diag.warningCount(), 1u);
    EXPECT_THAT(p.diag.kept()[0].text, HasSubstr("unknown GlobalMetadata.version '9.9'"));
}

TEST(TraceReader, ForwardReferencesUnknownFieldsAndAttributes) {
    Node child = comp(5, 1, {6});  // parent appears later in the file
    attr(child, "op_schema")->set_string_val("aten::mm");
    attr(child, "inputs");  // value-less, as STG writes
    child.mutable_inputs()->set_values("[[1], 6, 0, 'cpu']");
    child.set_start_time_micros(77);
    std::string payload =
        child.SerializeAsString() + std::string("\xa0\x06\x01", 3);  // unknown field 100 varint
    std::string bytes = metadataRecord() + frame(payload) + record(comp(6, 1));
    Parsed p = parseOk(bytes);
    ASSERT_EQ(p.trace.nodes.size(), 2u);
    EXPECT_EQ(p.trace.parentCount(0), 1u);
    EXPECT_EQ(*p.trace.parentsBegin(0), 1u);
}

TEST(TraceReader, UnpackedRepeatedDeps) {
    // data_deps 1 and 2 written unpacked: key 0x28 (field 5, varint) per entry.
    Node n = comp(3, 1);
    std::string payload = n.SerializeAsString() + std::string("\x28\x01\x28\x02", 4);
    Parsed p = parseOk(metadataRecord() + record(comp(1, 1)) + record(comp(2, 1)) + frame(payload));
    EXPECT_EQ(p.trace.parentCount(2), 2u);
}

TEST(TraceReader, LargestNodeId) {
    const uint64_t id = std::numeric_limits<uint64_t>::max();
    Parsed p = parseOk(file({comp(id, 1), comp(1, 1, {id})}));
    EXPECT_EQ(p.trace.nodes[0].id, id);
    EXPECT_EQ(p.trace.parentCount(1), 1u);
}

TEST(TraceReader, RepeatedParentsCountOnce) {
    Parsed p = parseOk(file({comp(1, 1), comp(2, 1, {1, 1, 1})}));
    EXPECT_EQ(p.trace.parentCount(1), 1u);
}

TEST(TraceReader, ValidCtrlDepsAreEnforced) {
    Node b = comp(2, 1);
    b.add_ctrl_deps(1);
    Parsed p = parseOk(file({comp(1, 1), b}));
    EXPECT_FALSE(p.trace.ctrlDepsIgnored);
    EXPECT_EQ(p.trace.parentCount(1), 1u);
}

TEST(TraceReader, SendAndRecvDefaultOwnRank) {
    // MSCCL-converted traces omit comm_src on SEND and comm_dst on RECV.
    Node s = makeNode(1, NodeType::Send);
    attr(s, "comm_dst")->set_int32_val(1);
    attr(s, "comm_size")->set_int64_val(64);
    attr(s, "comm_tag")->set_int32_val(0);
    attr(s, "comm_type")->set_int64_val(5);  // ignored on SEND
    Parsed p = parseOk(file({s}), {}, 0, 2);
    EXPECT_EQ(p.trace.nodes[0].peer, 1u);
    EXPECT_EQ(p.trace.nodes[0].tag, 0u);
}

TEST(TraceReader, CommGroupAliasIsOptIn) {
    Node n = coll(1, CollectiveType::AllReduce, 8);
    attr(n, "comm_group")->set_int32_val(4);
    Parsed plain = parseOk(file({n}));
    EXPECT_EQ(plain.trace.nodes[0].group, kWorldGroup);
    EXPECT_EQ(plain.diag.warningCount(), 1u);
    TraceReadOptions alias;
    alias.commGroupAlias = true;
    EXPECT_EQ(parseOk(file({n}), alias).trace.nodes[0].group, 4u);
}

TEST(TraceReader, ProcessGroupMetadataDeclaresGroups) {
    Node m = makeNode(1, NodeType::Metadata);
    m.set_name("## process_group:init ##");
    m.mutable_inputs()->set_values(
        "['[{\"pg_name\": \"0\", \"backend_id\": 82149104, \"backend_config\": \"cuda:nccl\", \"ranks\": [], "
        "\"group_size\": 4, \"group_count\": 2}, {\"pg_name\": \"2\", \"backend_id\": 1, \"backend_config\": "
        "\"cuda:nccl\", \"ranks\": [2, 3], \"group_size\": 2, \"group_count\": 2}]']");
    Parsed p = parseOk(file({m}));
    ASSERT_EQ(p.trace.declaredGroups.size(), 2u);
    EXPECT_EQ(p.trace.declaredGroups[0].id, 0u);
    EXPECT_TRUE(p.trace.declaredGroups[0].ranks.empty());
    EXPECT_EQ(p.trace.declaredGroups[1].id, 2u);
    EXPECT_EQ(p.trace.declaredGroups[1].ranks, (std::vector<Rank>{2, 3}));
}

TEST(TraceReader, NamesCanBeDropped) {
    TraceReadOptions options;
    options.keepNames = false;
    Parsed p = parseOk(file({comp(1, 1)}), options);
    EXPECT_TRUE(p.trace.names.empty());
    EXPECT_EQ(p.trace.name(p.trace.nodes[0]), "");
}

TEST(TraceSet, SubGroupCollectivesMatchAcrossMembersOnly) {
    std::string dir = makeTempDir("subgroups");
    // Ranks 0,1 form group 1 and ranks 2,3 group 2; their collectives differ between groups, which is fine.
    for (Rank r = 0; r < 4; ++r) {
        const bool first = r < 2;
        writeFileBytes(dir + "/g." + std::to_string(r) + ".et",
                       file({coll(1, first ? CollectiveType::AllReduce : CollectiveType::AllToAll,
                                  first ? 64 : 32, {}, first ? "1" : "2"),
                             coll(2, CollectiveType::AllGather, 16, {1})}));
    }
    writeFileBytes(dir + "/groups.json", "{\"1\": [1, 0], \"2\": [2, 3]}");
    TraceSetOptions options;
    options.commGroupFile = dir + "/groups.json";
    Diagnostics diag;
    TraceSet set = loadTraceSet(dir + "/g", options, diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    EXPECT_EQ(set.numRanks(), 4u);
    EXPECT_EQ(*set.groups.members(1), (std::vector<Rank>{0, 1}));
    TraceSummary s = summarize(set);
    EXPECT_EQ(s.collectives[static_cast<int>(CollectiveType::AllReduce)].count, 2u);
    EXPECT_EQ(s.collectives[static_cast<int>(CollectiveType::AllGather)].bytes, 64u);
    EXPECT_EQ(s.communicators, 3u);
}

TEST(TraceSet, MatchedPointToPointWithRepeatedChannel) {
    std::string dir = makeTempDir("p2p");
    writeFileBytes(dir + "/p.0.et",
                   file({send(1, 0, 1, 100, 7), send(2, 0, 1, 100, 7, {1}), recv(3, 1, 0, 5, 9)}));
    writeFileBytes(dir + "/p.1.et",
                   file({recv(1, 0, 1, 100, 7), recv(2, 0, 1, 100, 7), send(3, 1, 0, 5, 9)}));
    Diagnostics diag;
    TraceSet set = loadTraceSet(dir + "/p", {}, diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    TraceSummary s = summarize(set);
    EXPECT_EQ(s.pointToPoint.count, 3u);
    EXPECT_EQ(s.pointToPoint.bytes, 205u);
}

TEST(TraceSet, GzipFilesAreFoundAndRead) {
    std::string dir = makeTempDir("gzset");
    writeFileBytes(dir + "/z.0.et", file({coll(1, CollectiveType::AllReduce, 64)}));
    // Rank 1 only as .et.gz (the Chakra C++ writer's convention).
    std::string plain = file({coll(1, CollectiveType::AllReduce, 64)});
    writeFileBytes(dir + "/tmp.et", plain);
    ASSERT_EQ(std::system(("gzip -c " + dir + "/tmp.et > " + dir + "/z.1.et.gz").c_str()), 0);
    Diagnostics diag;
    TraceSet set = loadTraceSet(dir + "/z", {}, diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    ASSERT_EQ(set.numRanks(), 2u);
    EXPECT_THAT(set.ranks[1].path, HasSubstr("z.1.et.gz"));
    EXPECT_EQ(set.ranks[1].nodes.size(), 1u);
}

TEST(TraceSet, IssueOrderBreaksTiesByAscendingId) {
    Parsed p = parseOk(file({comp(30, 1), comp(10, 1), comp(20, 1, {30}), comp(5, 1, {20})}));
    std::vector<uint64_t> ids;
    for (NodeIndex i : issueOrder(p.trace)) {
        ids.push_back(p.trace.nodes[i].id);
    }
    EXPECT_EQ(ids, (std::vector<uint64_t>{10, 30, 20, 5}));
}

// Arbitrary corruption must end in a clean result or a located error: never a crash, a hang or an exception.
TEST(TraceReaderRobustness, RandomCorruptionNeverCrashes) {
    Node load = makeNode(4, NodeType::MemLoad);
    attr(load, "tensor_size")->set_uint64_val(4096);
    std::string base =
        file({comp(1, 5), coll(2, CollectiveType::AllReduce, 1024, {1}), send(3, 0, 1, 64, 2, {2}), load});
    ASSERT_FALSE(parse(base, {}, 0, 2).diag.hasErrors());
    std::mt19937_64 rng(20261130);
    std::size_t rejected = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        std::string bytes = base;
        const int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits; ++e) {
            const std::size_t pos = rng() % bytes.size();
            switch (rng() % 3) {
                case 0:
                    bytes[pos] = static_cast<char>(rng());
                    break;
                case 1:
                    bytes.erase(pos, 1 + rng() % 4);
                    break;
                case 2:
                    bytes.insert(pos, 1, static_cast<char>(rng()));
                    break;
            }
            if (bytes.empty()) {
                break;
            }
        }
        Parsed p = parse(bytes, {}, 0, 2);
        if (p.diag.hasErrors()) {
            ++rejected;
            EXPECT_THAT(p.diag.firstError(), HasSubstr("mem.0.et")) << "error without location";
        }
    }
    EXPECT_GT(rejected, 1000u);  // most corruptions must be caught, not silently accepted
}

}  // namespace
}  // namespace mlnet::test

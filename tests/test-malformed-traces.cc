// One test per class of malformed input (framing, records, nodes, graphs, cross-rank): each asserts the
// specific error, where it is reported (file, byte offset or node id, attribute) and that nothing is silently
// accepted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <zlib.h>

#include <fstream>

#include "raw-trace.h"
#include "trace-test-util.h"

namespace mlnet::test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string firstError(const std::string& bytes, const TraceReadOptions& options = {}, Rank rank = 0,
                       uint32_t numRanks = 0) {
    Parsed p = parse(bytes, options, rank, numRanks);
    EXPECT_TRUE(p.diag.hasErrors()) << "input was accepted";
    return p.diag.firstError();
}

std::string validFile() {
    return file({comp(1, 5), coll(2, CollectiveType::AllReduce, 1024, {1})});
}

// --- framing
// -----------------------------------------------------------------------------------------------------

TEST(MalformedFraming, EmptyFile) {
    EXPECT_THAT(firstError(""), AllOf(HasSubstr("mem.0.et: byte offset 0"), HasSubstr("empty trace file")));
}

TEST(MalformedFraming, EndsBeforeCompleteMetadata) {
    std::string meta = metadataRecord();
    EXPECT_THAT(
        firstError(meta.substr(0, meta.size() - 2)),
        AllOf(HasSubstr("byte offset 0"), HasSubstr("truncated record: length 7 but only 5 bytes remain")));
}

TEST(MalformedFraming, TruncatedVarint) {
    std::string bytes = metadataRecord() + "\x80";
    EXPECT_THAT(firstError(bytes), AllOf(HasSubstr("byte offset 8"), HasSubstr("truncated record length")));
}

TEST(MalformedFraming, VarintLongerThanFiveBytes) {
    std::string bytes = validFile() + std::string("\xff\xff\xff\xff\xff\x01", 6);
    EXPECT_THAT(firstError(bytes), HasSubstr("varint longer than 5 bytes"));
}

TEST(MalformedFraming, LengthAbove32Bits) {
    std::string bytes = validFile() + std::string("\xff\xff\xff\xff\x1f", 5);
    EXPECT_THAT(firstError(bytes), HasSubstr("does not fit in 32 bits"));
}

TEST(MalformedFraming, OversizeLength) {
    // The classic crash input of other readers: ff ff ff ff 0f (2^32 - 1).
    std::string bytes = validFile() + std::string("\xff\xff\xff\xff\x0f", 5) + "xyz";
    EXPECT_THAT(firstError(bytes),
                HasSubstr("record length 4294967295 bytes exceeds the limit of 268435456 bytes"));
}

TEST(MalformedFraming, LengthPastEndOfFile) {
    std::string full = validFile();
    std::string bytes = full.substr(0, full.size() - 3);
    const std::size_t lastRecordOffset = metadataRecord().size() + record(comp(1, 5)).size();
    EXPECT_THAT(firstError(bytes), AllOf(HasSubstr("byte offset " + std::to_string(lastRecordOffset)),
                                         HasSubstr("truncated record")));
}

std::string gzipBytes(const std::string& plain) {
    std::string dir = makeTempDir("gz");
    std::string path = dir + "/x.gz";
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, plain.data(), static_cast<unsigned>(plain.size()));
    gzclose(f);
    return readFileBytes(path);
}

TEST(MalformedFraming, GzipWhenDisabled) {
    TraceReadOptions options;
    options.allowGzip = false;
    EXPECT_THAT(firstError(gzipBytes(validFile()), options),
                AllOf(HasSubstr("gzip-compressed trace (magic 1f 8b)"), HasSubstr("gzip input is disabled")));
}

TEST(MalformedFraming, TruncatedGzip) {
    std::string gz = gzipBytes(validFile());
    EXPECT_THAT(firstError(gz.substr(0, gz.size() - 12)), HasSubstr("gzip stream ends early"));
}

TEST(MalformedFraming, CorruptGzip) {
    std::string gz = gzipBytes(validFile());
    for (std::size_t i = 12; i < gz.size() - 8; ++i) {
        gz[i] = static_cast<char>(gz[i] ^ 0x5a);
    }
    EXPECT_THAT(firstError(gz), HasSubstr("corrupt gzip data"));
}

// --- record
// ------------------------------------------------------------------------------------------------------

TEST(MalformedRecord, InvalidWireType) {
    std::string bytes = metadataRecord() + frame(std::string("\x08\x01\x0e", 3));  // field 1, wire type 6
    EXPECT_THAT(firstError(bytes), AllOf(HasSubstr("byte offset 8"), HasSubstr("undecodable node record"),
                                         HasSubstr("invalid wire type 6")));
}

TEST(MalformedRecord, FieldNumberZero) {
    std::string bytes = metadataRecord() + frame(std::string("\x00\x01", 2));
    EXPECT_THAT(firstError(bytes), HasSubstr("field number 0 is not allowed"));
}

TEST(MalformedRecord, SubMessageOverrunsRecord) {
    // attr (field 10) claims 20 bytes, 3 follow.
    std::string bytes = metadataRecord() + frame(std::string("\x08\x01\x52\x14\x0a\x01x", 7));
    EXPECT_THAT(firstError(bytes), AllOf(HasSubstr("(in attr)"), HasSubstr("runs past the end")));
}

TEST(MalformedRecord, MalformedPackedDeps) {
    // data_deps (field 5) packed: 2 bytes, the second varint never ends.
    std::string bytes = metadataRecord() + frame(std::string("\x08\x01\x2a\x02\x01\x80", 6));
    EXPECT_THAT(firstError(bytes), AllOf(HasSubstr("data_deps"), HasSubstr("malformed packed varint")));
}

TEST(MalformedRecord, InvalidUtf8InName) {
    std::string bytes = metadataRecord() + frame(std::string("\x08\x01\x12\x02\xc3\x28", 6));
    EXPECT_THAT(firstError(bytes), AllOf(HasSubstr("name"), HasSubstr("not valid UTF-8")));
}

TEST(MalformedRecord, WireTypeMismatchOnKnownField) {
    std::string bytes = metadataRecord() + frame(std::string("\x0a\x01x", 3));  // id as length-delimited
    EXPECT_THAT(firstError(bytes),
                AllOf(HasSubstr("(in id)"), HasSubstr("wire type length-delimited, expected varint")));
}

TEST(MalformedRecord, UnknownNodeType) {
    Node n = comp(4, 1);
    n.set_type(static_cast<ChakraProtoMsg::NodeType>(9));
    EXPECT_THAT(firstError(file({n})),
                AllOf(HasSubstr("mem.0.et: node 4"), HasSubstr("unknown node type 9")));
}

TEST(MalformedRecord, UnknownNodeTypeSkippedOnRequest) {
    Node n = comp(4, 1);
    n.set_type(static_cast<ChakraProtoMsg::NodeType>(9));
    TraceReadOptions options;
    options.skipUnknownNodeTypes = true;
    Parsed p = parse(file({n, comp(5, 1, {4})}), options);
    EXPECT_FALSE(p.diag.hasErrors()) << p.diag.firstError();
    ASSERT_EQ(p.trace.nodes.size(), 2u);
    EXPECT_EQ(p.trace.nodes[0].type, NodeType::Invalid);
    EXPECT_EQ(p.diag.warningCount(), 1u);
}

TEST(MalformedRecord, LegacySchemaNodeField11) {
    Node n = comp(1, 1);
    std::string payload =
        n.SerializeAsString() + std::string("\x5a\x02\x0a\x00", 4);  // field 11, length-delimited
    EXPECT_THAT(firstError(metadataRecord() + frame(payload)), HasSubstr("pre-2023 Chakra schema"));
}

TEST(MalformedRecord, LegacySchemaBinaryVersion) {
    // Old GlobalMetadata{1: attribute message}: field 1 carries a sub-message, read now as the version
    // string.
    std::string oldAttr = std::string("\x0a\x04name\x10\x01", 8);
    std::string meta = frame(std::string("\x0a") + static_cast<char>(oldAttr.size()) + oldAttr);
    EXPECT_THAT(firstError(meta + record(comp(1, 1))), HasSubstr("pre-2023 Chakra schema"));
}

// --- graph
// -------------------------------------------------------------------------------------------------------

TEST(MalformedGraph, DuplicateNodeId) {
    std::string bytes = file({comp(7, 1), comp(7, 2)});
    EXPECT_THAT(firstError(bytes),
                AllOf(HasSubstr("node 7: duplicate node id"), HasSubstr("records at byte offsets 8 and")));
}

TEST(MalformedGraph, ZeroLengthRecordCollidesWithNodeZero) {
    std::string bytes = file({comp(0, 1)}) + frame("");
    EXPECT_THAT(firstError(bytes), HasSubstr("node 0: duplicate node id"));
}

TEST(MalformedGraph, DanglingDataDep) {
    EXPECT_THAT(firstError(file({comp(1, 1), comp(2, 1, {1, 99})})),
                AllOf(HasSubstr("node 2"), HasSubstr("data_deps names node 99, which is not in the file")));
}

TEST(MalformedGraph, SelfDataDep) {
    EXPECT_THAT(firstError(file({comp(3, 1, {3})})),
                AllOf(HasSubstr("node 3"), HasSubstr("lists the node itself")));
}

TEST(MalformedGraph, CycleNamesItsMembers) {
    // 1 -> 2 -> 3 -> 1, plus a free node 4 so that the start is not empty.
    std::string bytes = file({comp(4, 1), comp(1, 1, {3}), comp(2, 1, {1}), comp(3, 1, {2})});
    std::string error = firstError(bytes);
    EXPECT_THAT(error, HasSubstr("data_deps form a cycle"));
    EXPECT_THAT(error, AnyOf(HasSubstr("1 -> 2 -> 3 -> 1"), HasSubstr("2 -> 3 -> 1 -> 2"),
                             HasSubstr("3 -> 1 -> 2 -> 3")));
}

TEST(MalformedGraph, DanglingCtrlDepIsWarningByDefaultAndErrorInStrictMode) {
    Node n = comp(2, 1, {1});
    n.add_ctrl_deps(42);
    std::string bytes = file({comp(1, 1), n});
    Parsed lenient = parse(bytes);
    EXPECT_FALSE(lenient.diag.hasErrors());
    ASSERT_EQ(lenient.diag.warningCount(), 1u);
    EXPECT_THAT(lenient.diag.kept()[0].text, HasSubstr("node 2: ctrl_deps names node 42"));
    EXPECT_EQ(lenient.trace.danglingCtrlDeps, 1u);
    TraceReadOptions strict;
    strict.strict = true;
    EXPECT_THAT(firstError(bytes, strict),
                AllOf(HasSubstr("ctrl_deps names node 42"), HasSubstr("strict mode")));
}

TEST(MalformedGraph, CtrlDepCycleDropsCtrlDepsByDefault) {
    Node a = comp(1, 1);
    a.add_ctrl_deps(2);
    Node b = comp(2, 1, {1});
    Parsed p = parse(file({a, b}));
    EXPECT_FALSE(p.diag.hasErrors());
    EXPECT_TRUE(p.trace.ctrlDepsIgnored);
    EXPECT_EQ(p.trace.parentCount(0), 0u);
    EXPECT_EQ(p.trace.parentCount(1), 1u);
    TraceReadOptions strict;
    strict.strict = true;
    EXPECT_THAT(firstError(file({a, b}), strict), HasSubstr("ctrl_deps close a dependency cycle"));
}

// --- attributes
// --------------------------------------------------------------------------------------------------

TEST(MalformedAttribute, MissingCommSize) {
    Node n = makeNode(5, NodeType::Collective);
    attr(n, "comm_type")->set_int64_val(0);
    EXPECT_THAT(firstError(file({n})),
                HasSubstr("node 5: attribute 'comm_size': missing; COMM_COLL_NODE requires it"));
}

TEST(MalformedAttribute, MissingCommType) {
    Node n = makeNode(5, NodeType::Collective);
    attr(n, "comm_size")->set_int64_val(8);
    EXPECT_THAT(firstError(file({n})), HasSubstr("attribute 'comm_type': missing"));
}

TEST(MalformedAttribute, MissingTensorSizeOnMemoryNode) {
    EXPECT_THAT(firstError(file({makeNode(3, NodeType::MemLoad)})),
                HasSubstr("node 3: attribute 'tensor_size': missing; MEM_LOAD_NODE requires it"));
}

TEST(MalformedAttribute, SendWithoutDestinationOrTag) {
    Node n = makeNode(3, NodeType::Send);
    attr(n, "comm_size")->set_int64_val(8);
    std::string error = firstError(file({n}), {}, 0, 2);
    EXPECT_THAT(error, HasSubstr("attribute 'comm_dst': missing; COMM_SEND_NODE requires it"));
}

TEST(MalformedAttribute, RecvWithoutSource) {
    Node n = makeNode(3, NodeType::Recv);
    attr(n, "comm_size")->set_int64_val(8);
    attr(n, "comm_tag")->set_int64_val(1);
    EXPECT_THAT(firstError(file({n}), {}, 0, 2),
                HasSubstr("attribute 'comm_src': missing; COMM_RECV_NODE requires it"));
}

TEST(MalformedAttribute, FloatingPointSize) {
    Node n = makeNode(5, NodeType::Collective);
    attr(n, "comm_type")->set_int64_val(0);
    attr(n, "comm_size")->set_double_val(1024.0);
    EXPECT_THAT(firstError(file({n})),
                HasSubstr("attribute 'comm_size': expected an integer, found double_val"));
}

TEST(MalformedAttribute, StringSize) {
    Node n = makeNode(5, NodeType::MemStore);
    attr(n, "tensor_size")->set_string_val("1024");
    EXPECT_THAT(firstError(file({n})),
                HasSubstr("attribute 'tensor_size': expected an integer, found string_val"));
}

TEST(MalformedAttribute, ListSize) {
    Node n = makeNode(5, NodeType::MemStore);
    attr(n, "tensor_size")->mutable_int64_list()->add_values(4);
    EXPECT_THAT(firstError(file({n})), HasSubstr("expected an integer, found int64_list"));
}

TEST(MalformedAttribute, ValuelessRequiredAttribute) {
    Node n = makeNode(5, NodeType::MemStore);
    attr(n, "tensor_size");
    EXPECT_THAT(firstError(file({n})), HasSubstr("expected an integer, found no value"));
}

TEST(MalformedAttribute, NegativeSize) {
    EXPECT_THAT(firstError(file({coll(5, CollectiveType::AllReduce, -1)})),
                HasSubstr("attribute 'comm_size': negative value -1"));
}

TEST(MalformedAttribute, CommTypeOutOfRange) {
    Node n = makeNode(5, NodeType::Collective);
    attr(n, "comm_type")->set_int64_val(12);
    attr(n, "comm_size")->set_int64_val(8);
    EXPECT_THAT(firstError(file({n})),
                HasSubstr("attribute 'comm_type': value 12 out of range; expected 0..9"));
}

TEST(MalformedAttribute, RankWiderThan32Bits) {
    Node n = send(5, 0, 1, 8, 1);
    n.mutable_attr(2)->set_int64_val(int64_t{5} << 32);  // comm_dst
    EXPECT_THAT(firstError(file({n})), HasSubstr("attribute 'comm_dst': value 21474836480 out of range"));
}

TEST(MalformedAttribute, InvolvedDimNotBoolList) {
    Node n = coll(5, CollectiveType::AllReduce, 8);
    attr(n, "involved_dim")->set_int32_val(1);
    EXPECT_THAT(firstError(file({n})),
                HasSubstr("attribute 'involved_dim': expected bool_list, found int32_val"));
}

TEST(MalformedAttribute, PgNameNotString) {
    Node n = coll(5, CollectiveType::AllReduce, 8);
    attr(n, "pg_name")->set_int32_val(1);
    EXPECT_THAT(firstError(file({n})), HasSubstr("attribute 'pg_name': expected string_val"));
}

TEST(MalformedAttribute, PgNameNotDecimal) {
    EXPECT_THAT(firstError(file({coll(5, CollectiveType::AllReduce, 8, {}, "tp0")})),
                HasSubstr("attribute 'pg_name': 'tp0' is not a decimal communicator id"));
}

TEST(MalformedAttribute, IsCpuOpNotZeroOrOne) {
    Node n = comp(5, 1);
    n.mutable_attr(0)->set_int32_val(2);
    EXPECT_THAT(firstError(file({n})),
                HasSubstr("attribute 'is_cpu_op': value 2; expected bool_val or an integer 0/1"));
}

TEST(MalformedAttribute, SendFromAnotherRank) {
    EXPECT_THAT(
        firstError(file({send(5, 1, 2, 8, 1)}), {}, 0, 4),
        HasSubstr(
            "attribute 'comm_src': is 1 but this file is rank 0 (a SEND must be issued by its source)"));
}

TEST(MalformedAttribute, RecvOnAnotherRank) {
    EXPECT_THAT(firstError(file({recv(5, 1, 2, 8, 1)}), {}, 0, 4),
                HasSubstr("attribute 'comm_dst': is 2 but this file is rank 0"));
}

TEST(MalformedAttribute, PeerRankOutOfRange) {
    EXPECT_THAT(firstError(file({send(5, 0, 4, 8, 1)}), {}, 0, 4),
                HasSubstr("attribute 'comm_dst': rank 4 does not exist; expected 0..3"));
}

TEST(MalformedAttribute, CpuSideCommNodeIsErrorInStrictMode) {
    Node n = makeNode(5, NodeType::Collective);
    n.mutable_attr(0)->set_bool_val(true);
    Parsed lenient = parse(file({n}));
    EXPECT_FALSE(lenient.diag.hasErrors());
    EXPECT_TRUE(lenient.trace.nodes[0].isCpuSideComm());
    TraceReadOptions strict;
    strict.strict = true;
    EXPECT_THAT(firstError(file({n}), strict), HasSubstr("node 5: COMM_COLL_NODE with is_cpu_op true"));
}

TEST(MalformedAttribute, CollectiveAstraSimCannotSimulateIsErrorInStrictMode) {
    TraceReadOptions strict;
    strict.strict = true;
    EXPECT_THAT(firstError(file({coll(5, CollectiveType::Barrier, 0)}), strict),
                HasSubstr("BARRIER is not supported by ASTRA-sim (strict mode)"));
    EXPECT_FALSE(parse(file({coll(5, CollectiveType::Barrier, 0)})).diag.hasErrors());
}

TEST(MalformedAttribute, ProcessGroupPayloadNotJson) {
    Node n = makeNode(1, NodeType::Metadata);
    n.mutable_inputs()->set_values("['[{\"pg_name\": \"1\", \"ranks\": [0, 1]']");
    EXPECT_THAT(firstError(file({n})), HasSubstr("node 1: process-group payload (inputs.values)"));
}

// --- cross-rank
// --------------------------------------------------------------------------------------------------

class CrossRank : public ::testing::Test {
protected:
    void SetUp() override { m_dir = makeTempDir("crossrank"); }
    std::string writeSet(const std::vector<std::string>& ranks) {
        for (std::size_t r = 0; r < ranks.size(); ++r) {
            writeFileBytes(m_dir + "/t." + std::to_string(r) + ".et", ranks[r]);
        }
        return m_dir + "/t";
    }
    std::string load(const std::string& prefix, TraceSetOptions options = {}) {
        Diagnostics diag;
        loadTraceSet(prefix, options, diag);
        EXPECT_TRUE(diag.hasErrors()) << "set was accepted";
        return diag.firstError();
    }
    std::string m_dir;
};

TEST_F(CrossRank, MissingRankFile) {
    std::string prefix = writeSet({file({comp(1, 1)}), file({comp(1, 1)})});
    TraceSetOptions options;
    options.numRanks = 3;
    EXPECT_THAT(load(prefix, options), HasSubstr("t.2.et: missing trace file for rank 2 of 3"));
}

TEST_F(CrossRank, NoRankZero) {
    EXPECT_THAT(load(m_dir + "/absent"), HasSubstr("absent.0.et: no trace file for rank 0"));
}

TEST_F(CrossRank, CollectiveTypeMismatch) {
    std::string prefix = writeSet(
        {file({coll(1, CollectiveType::AllReduce, 64)}), file({coll(9, CollectiveType::AllGather, 64)})});
    EXPECT_THAT(load(prefix), AllOf(HasSubstr("communicator 0: rank 1"),
                                    HasSubstr("collective #1 is ALL_GATHER of 64 B (node 9), but rank 0's is "
                                              "ALL_REDUCE of 64 B (node 1)")));
}

TEST_F(CrossRank, CollectiveSizeMismatch) {
    std::string prefix = writeSet(
        {file({coll(1, CollectiveType::AllReduce, 64)}), file({coll(1, CollectiveType::AllReduce, 128)})});
    EXPECT_THAT(load(prefix), HasSubstr("ALL_REDUCE of 128 B (node 1), but rank 0's is ALL_REDUCE of 64 B"));
}

TEST_F(CrossRank, CollectiveCountMismatch) {
    std::string prefix =
        writeSet({file({coll(1, CollectiveType::AllReduce, 64), coll(2, CollectiveType::AllReduce, 64, {1})}),
                  file({coll(1, CollectiveType::AllReduce, 64)})});
    EXPECT_THAT(load(prefix),
                HasSubstr("rank 1 (" + m_dir + "/t.1.et): issues 1 collectives, but rank 0 issues 2"));
}

TEST_F(CrossRank, UnmatchedSend) {
    std::string prefix = writeSet({file({send(1, 0, 1, 100, 7)}), file({comp(1, 1)})});
    EXPECT_THAT(load(prefix), AllOf(HasSubstr("t.0.et: node 1: SEND 0->1 tag 7 of 100 B"),
                                    HasSubstr("has no matching RECV on rank 1")));
}

TEST_F(CrossRank, UnmatchedRecv) {
    std::string prefix = writeSet({file({comp(1, 1)}), file({recv(1, 0, 1, 100, 7)})});
    EXPECT_THAT(load(prefix), HasSubstr("RECV 0->1 tag 7 of 100 B has no matching SEND on rank 0"));
}

TEST_F(CrossRank, SendRecvSizeMismatch) {
    std::string prefix = writeSet({file({send(1, 0, 1, 100, 7)}), file({recv(1, 0, 1, 96, 7)})});
    EXPECT_THAT(load(prefix),
                AllOf(HasSubstr("SEND 0->1 tag 7 of 100 B does not match"),
                      HasSubstr("RECV 0->1 tag 7 of 96 B: size mismatch on the same (src, dst, tag)")));
}

TEST_F(CrossRank, GroupNotDefined) {
    std::string prefix = writeSet({file({coll(1, CollectiveType::AllReduce, 64, {}, "3")}),
                                   file({coll(1, CollectiveType::AllReduce, 64, {}, "3")})});
    EXPECT_THAT(load(prefix), HasSubstr("attribute 'pg_name': communicator group 3 not found"));
}

TEST_F(CrossRank, RankNotMemberOfGroup) {
    std::string prefix = writeSet({file({coll(1, CollectiveType::AllReduce, 64, {}, "1")}),
                                   file({coll(1, CollectiveType::AllReduce, 64, {}, "1")})});
    writeFileBytes(m_dir + "/groups.json", "{\"1\": [0]}");
    TraceSetOptions options;
    options.commGroupFile = m_dir + "/groups.json";
    EXPECT_THAT(
        load(prefix, options),
        HasSubstr(
            "t.1.et: node 1: attribute 'pg_name': rank 1 issues a collective on communicator 1, which it "
            "is not a member of"));
}

TEST_F(CrossRank, CommGroupFileErrors) {
    std::string prefix = writeSet({file({comp(1, 1)}), file({comp(1, 1)})});
    struct Case {
        const char* json;
        const char* expected;
    } cases[] = {
        {"{\"1\": [0, 1]", "line 1: malformed JSON"},
        {"{\"1\": [0],\n\"1\": [1]}", "line 2: key '1' appears more than once"},
        {"[0, 1]", "expected a JSON object"},
        {"{\"x\": [0]}", "group \"x\": key is not a decimal group id"},
        {"{\"0\": [0]}", "id 0 is reserved for the world group"},
        {"{\"1\": [0, 2]}", "group \"1\": member rank 2 does not exist; expected 0..1"},
        {"{\"1\": [1, 1]}", "rank 1 is listed twice"},
        {"{\"1\": [-1]}", "member -1 is not a non-negative integer rank"},
        {"{\"1\": 3}", "expected an array of ranks"},
        {"{\"1\": []}", "empty member list"},
    };
    for (const Case& c : cases) {
        writeFileBytes(m_dir + "/groups.json", c.json);
        TraceSetOptions options;
        options.commGroupFile = m_dir + "/groups.json";
        EXPECT_THAT(load(prefix, options), AllOf(HasSubstr("groups.json"), HasSubstr(c.expected))) << c.json;
    }
}

}  // namespace
}  // namespace mlnet::test

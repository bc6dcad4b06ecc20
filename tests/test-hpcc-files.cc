// Tests of the HPCC value syntax, topology and flow files, the fct.txt/pfc.txt writers and the standalone-FCT
// arithmetic. Expected values are worked out by hand in the comments.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "util/hpcc-address.h"

#include <filesystem>
#include <limits>
#include <set>
#include <string>

#include "flow-file.h"
#include "hpcc-config-test-util.h"
#include "hpcc-config.h"
#include "network/hpcc-topology.h"
#include "network/topology-builders.h"
#include "result-writers.h"
#include "trace-test-util.h"

namespace mlnet::roce {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;

// --- value syntax
// -------------------------------------------------------------------------------------------------

TEST(ValueSyntax, DataRates) {
    uint64_t bps = 0;
    EXPECT_EQ(parseDataRateBps("20Mb/s", bps), NumberStatus::Ok);
    EXPECT_EQ(bps, 20'000'000u);
    EXPECT_EQ(parseDataRateBps("100Gbps", bps), NumberStatus::Ok);
    EXPECT_EQ(bps, 100'000'000'000u);
    EXPECT_EQ(parseDataRateBps("1000Mb/s", bps), NumberStatus::Ok);
    EXPECT_EQ(bps, 1'000'000'000u);
    EXPECT_EQ(parseDataRateBps("12.5Gbps", bps), NumberStatus::Ok);
    EXPECT_EQ(bps, 12'500'000'000u);
    EXPECT_EQ(parseDataRateBps("1.6Tbps", bps), NumberStatus::Ok);
    EXPECT_EQ(bps, 1'600'000'000'000u);
    EXPECT_EQ(parseDataRateBps("1.5KiB/s", bps), NumberStatus::Ok);  // 1.5 * 1024 * 8
    EXPECT_EQ(bps, 12'288u);
    EXPECT_EQ(parseDataRateBps("2MBps", bps), NumberStatus::Ok);
    EXPECT_EQ(bps, 16'000'000u);
    EXPECT_EQ(parseDataRateBps("100000000000", bps), NumberStatus::NoUnit);    // a unit is required
    EXPECT_EQ(parseDataRateBps("100000000000", bps, true), NumberStatus::Ok);  // unless bare means b/s
    EXPECT_EQ(bps, 100'000'000'000u);
    EXPECT_EQ(parseDataRateBps("100Gbx", bps), NumberStatus::BadUnit);
    EXPECT_EQ(parseDataRateBps("-5Gbps", bps), NumberStatus::Negative);
    EXPECT_EQ(parseDataRateBps("Gbps", bps), NumberStatus::NotANumber);
    EXPECT_EQ(parseDataRateBps("1.5", bps), NumberStatus::NotANumber);  // a bare rate is integer b/s
    EXPECT_EQ(parseDataRateBps("0.3bps", bps), NumberStatus::NotWhole);
    EXPECT_EQ(parseDataRateBps("99999999999Tbps", bps), NumberStatus::TooLarge);
}

TEST(ValueSyntax, TimesAndExactDecimals) {
    uint64_t v = 0;
    EXPECT_EQ(parseTimeNs("1000ns", v), NumberStatus::Ok);
    EXPECT_EQ(v, 1000u);
    EXPECT_EQ(parseTimeNs("0.001ms", v), NumberStatus::Ok);
    EXPECT_EQ(v, 1000u);
    EXPECT_EQ(parseTimeNs("1us", v), NumberStatus::Ok);
    EXPECT_EQ(v, 1000u);
    EXPECT_EQ(parseTimeNs("2s", v), NumberStatus::Ok);
    EXPECT_EQ(v, 2'000'000'000u);
    EXPECT_EQ(parseTimeNs("1500ps", v), NumberStatus::NotWhole);
    EXPECT_EQ(parseTimeNs("1000", v), NumberStatus::BadUnit);

    EXPECT_EQ(parseScaledDecimal("2.000000001", 9, false, v), NumberStatus::Ok);
    EXPECT_EQ(v, 2'000'000'001u);  // through a double this would be 2000000000.9999998
    EXPECT_EQ(parseScaledDecimal("2.0000000015", 9, true, v), NumberStatus::Rounded);
    EXPECT_EQ(v, 2'000'000'002u);
    EXPECT_EQ(parseScaledDecimal("2.0000000015", 9, false, v), NumberStatus::NotWhole);
    EXPECT_EQ(parseScaledDecimal("1e-3", 9, false, v), NumberStatus::Ok);
    EXPECT_EQ(v, 1'000'000u);
    EXPECT_EQ(parseScaledDecimal("+0.25E2", 0, false, v), NumberStatus::Ok);
    EXPECT_EQ(v, 25u);
    EXPECT_EQ(parseScaledDecimal("18446744073.709551615", 9, false, v), NumberStatus::Ok);
    EXPECT_EQ(v, std::numeric_limits<uint64_t>::max());
    EXPECT_EQ(parseScaledDecimal("18446744073.709551616", 9, false, v), NumberStatus::TooLarge);
    EXPECT_EQ(parseScaledDecimal("1e400", 0, false, v), NumberStatus::TooLarge);
    EXPECT_EQ(parseScaledDecimal("1e-400", 0, true, v), NumberStatus::Rounded);
    EXPECT_EQ(v, 0u);
    EXPECT_EQ(parseScaledDecimal("-0", 0, false, v), NumberStatus::Ok);
    EXPECT_EQ(parseScaledDecimal("1.2.3", 0, false, v), NumberStatus::NotANumber);
    EXPECT_EQ(parseScaledDecimal("", 0, false, v), NumberStatus::NotANumber);
    EXPECT_EQ(parseScaledDecimal("1e", 0, false, v), NumberStatus::NotANumber);
}

// --- topology and flow files
// --------------------------------------------------------------------------------------

using TopologyFile = Files;

TEST_F(TopologyFile, ConfigAgainstTopology) {
    Diagnostics diag;
    const TopologySpec k4 = *loadHpccTopologyFile(test::hpccBenchDir() + "k4_topo.txt", diag);
    const HpccConfig bench = loadHpccConfig(test::hpccBenchDir() + "config-dcqcn.txt", diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    checkConfigAgainstTopology(bench, k4, diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);

    Diagnostics missing;
    const HpccConfig only400 = config(
        "KMAX_MAP 1 400000000000 6400\nKMIN_MAP 1 400000000000 7000\nPMAX_MAP 1 400000000000 0.2\nLINK_DOWN "
        "10 0 1\n",
        missing);
    ASSERT_FALSE(missing.hasErrors()) << missing.format(Severity::Error);
    checkConfigAgainstTopology(only400, k4, missing);
    const std::string errors = missing.format(Severity::Error);
    EXPECT_THAT(errors,
                AllOf(HasSubstr("cfg.txt: line 1: key 'KMAX_MAP': no entry for the switch link rate "
                                "100000000000 b/s (" +
                                test::hpccBenchDir() + "k4_topo.txt: line 3)"),
                      HasSubstr("line 2: key 'KMIN_MAP': no entry"), HasSubstr("line 3: key 'PMAX_MAP'"),
                      HasSubstr("Kmin 7000000 B exceeds Kmax 6400000 B"),
                      HasSubstr("line 4: key 'LINK_DOWN': nodes 0 and 1 are not linked")));

    Diagnostics noEcn;
    checkConfigAgainstTopology(config("ENABLE_QCN 0\n", noEcn), k4, noEcn);
    EXPECT_FALSE(noEcn.hasErrors()) << noEcn.format(Severity::Error);
}

using FlowFile = Files;

TEST_F(FlowFile, BenchFlowsLoadWithExactCounts) {
    Diagnostics diag;
    const TopologySpec k4 = *loadHpccTopologyFile(test::hpccBenchDir() + "k4_topo.txt", diag);
    const TopologySpec k8 = *loadHpccTopologyFile(test::hpccBenchDir() + "k8_topo.txt", diag);
    ASSERT_FALSE(diag.hasErrors());
    const std::vector<FlowSpec> a2a = loadFlowFile(test::hpccBenchDir() + "k4_a2a_4MB.txt", k4, diag);
    const std::vector<FlowSpec> incast = loadFlowFile(test::hpccBenchDir() + "k8_incast_1MB.txt", k8, diag);
    const std::vector<FlowSpec> incast10 =
        loadFlowFile(test::hpccBenchDir() + "k4_incast_10MB.txt", k4, diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    EXPECT_EQ(diag.warningCount(), 0u) << warnings(diag);
    ASSERT_EQ(a2a.size(), 240u);  // 16 x 15
    std::set<std::pair<uint32_t, uint32_t>> pairs;
    for (const FlowSpec& f : a2a) {
        EXPECT_EQ(f.sizeBytes, 4'000'000u);
        EXPECT_EQ(f.startNs, 2'000'000'000u);
        EXPECT_EQ(f.priority, 3);
        EXPECT_EQ(f.dport, 100);
        pairs.emplace(f.srcNode, f.dstNode);
    }
    EXPECT_EQ(pairs.size(), 240u);
    EXPECT_EQ(a2a.front().srcNode, 0u);
    EXPECT_EQ(a2a.front().dstNode, 1u);
    EXPECT_EQ(a2a.back().srcNode, 15u);
    EXPECT_EQ(a2a.back().dstNode, 14u);
    ASSERT_EQ(incast.size(), 127u);
    for (std::size_t i = 0; i < incast.size(); ++i) {
        EXPECT_EQ(incast[i].srcNode, i + 1);
        EXPECT_EQ(incast[i].dstNode, 0u);
        EXPECT_EQ(incast[i].sizeBytes, 1'000'000u);
    }
    EXPECT_EQ(incast10.size(), 15u);
    EXPECT_EQ(loadFlowFile(test::hpccBenchDir() + "k8_a2a_64KB.txt", k8, diag).size(), 16'256u);  // 128 x 127
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
}

// Every prefix of a valid file is a plausible truncated input: each must load or fail with messages, never
// crash or hang.
TEST_F(FlowFile, EveryTruncationOfTheBenchFilesIsHandled) {
    const std::string config = readFileBytes(test::hpccBenchDir() + "config-dcqcn.txt");
    const std::string topology = readFileBytes(test::hpccBenchDir() + "k4_topo.txt");
    const std::string flows = readFileBytes(test::hpccBenchDir() + "k4_incast_10MB.txt");
    Diagnostics k4Diag;
    const TopologySpec k4 = *loadHpccTopologyFile(test::hpccBenchDir() + "k4_topo.txt", k4Diag);
    for (std::size_t n = 0; n < config.size(); ++n) {
        Diagnostics diag;
        loadHpccConfig(write("cfg.txt", config.substr(0, n)), diag);
    }
    for (std::size_t n = 0; n < topology.size(); ++n) {
        Diagnostics diag;
        const auto t = loadHpccTopologyFile(write("topo.txt", topology.substr(0, n)), diag);
        EXPECT_EQ(diag.hasErrors(), !t.has_value()) << "prefix of " << n << " bytes";
    }
    for (std::size_t n = 0; n < flows.size(); ++n) {
        Diagnostics diag;
        const auto loaded = loadFlowFile(write("flows.txt", flows.substr(0, n)), k4, diag);
        EXPECT_TRUE(diag.hasErrors() || loaded.size() == 15u) << "prefix of " << n << " bytes";
    }
}

TEST_F(FlowFile, ErrorsAndWarnings) {
    // Nodes 0-2 are hosts, 3 is a switch.
    const TopologySpec star = buildStar(3, LinkSettings{});
    auto load = [&](const std::string& text, Diagnostics& diag) {
        return loadFlowFile(write("flows.txt", text), star, diag);
    };
    auto error = [&](const std::string& text) {
        Diagnostics diag;
        EXPECT_TRUE(load(text, diag).empty());
        return diag.format(Severity::Error);
    };
    EXPECT_THAT(error("1\n0 3 3 100 1000 2.0\n"), HasSubstr("flows.txt: line 2: destination 3 is a switch"));
    EXPECT_THAT(error("1\n9 1 3 100 1000 2.0\n"),
                HasSubstr("source '9' is not a node id of the topology (0..3)"));
    EXPECT_THAT(error("1\n1 1 3 100 1000 2.0\n"), HasSubstr("source and destination are both host 1"));
    EXPECT_THAT(error("2\n0 1 3 100 1000 2.5\n1 2 3 100 1000 2.000000001\n"),
                HasSubstr("line 3: start 2.000000001 s is earlier than the previous flow's (line 2)"));
    EXPECT_THAT(error("3\n0 1 3 100 1000 2.0\n"),
                HasSubstr("announces 3 flows but only 1 flow lines follow"));
    EXPECT_THAT(error("1\n0 1 8 100 1000 2.0\n"), HasSubstr("priority group '8' is not in 0..7"));
    EXPECT_THAT(error("1\n0 1 3 70000 1000 2.0\n"), HasSubstr("destination port '70000' is not in 0..65535"));
    EXPECT_THAT(error("1\n0 1 3 100 0 2.0\n"), HasSubstr("size '0' is not an integer > 0"));
    EXPECT_THAT(error("1\n0 1 3 100 18446744073709551616 2.0\n"), HasSubstr("does not fit in 64 bits"));
    EXPECT_THAT(error("1\n0 1 3 100 1000 -2\n"), HasSubstr("start time '-2' is negative"));
    EXPECT_THAT(error("1\n0 1 3 100 1000\n"), HasSubstr("found 5 fields"));
    EXPECT_THAT(error("x\n"), HasSubstr("line 1: expected the flow count"));

    Diagnostics extra;
    const auto flows = load(
        "2\n0 1 3 100 18446744073709551615 2.000000001\n1 2 0 200 7 2.0000000015\n2 0 3 100 5 "
        "9\n",
        extra);
    EXPECT_FALSE(extra.hasErrors()) << extra.format(Severity::Error);
    ASSERT_EQ(flows.size(), 2u);
    EXPECT_EQ(flows[0].sizeBytes, std::numeric_limits<uint64_t>::max());
    EXPECT_EQ(flows[0].startNs, 2'000'000'001u);
    EXPECT_EQ(flows[1].startNs, 2'000'000'002u);
    EXPECT_EQ(flows[1].priority, 0);
    EXPECT_EQ(flows[1].dport, 200);
    EXPECT_THAT(warnings(extra), AllOf(HasSubstr("line 4: 1 line(s) after the 2 announced flows are ignored"),
                                       HasSubstr("line 3: start times finer than 1 ns were rounded")));
}

// --- writers
// ------------------------------------------------------------------------------------------------------

using Writers = Files;

template <typename Record>
std::string lineOf(std::size_t (*write)(const Record&, char*), const Record& r) {
    char line[kMaxLineBytes];
    return std::string(line, write(r, line));
}

TEST(WriterFormats, FctAndPfcLinesMatchTheReference) {
    EXPECT_EQ(hpccIpv4(0), 0x0b000001u);
    EXPECT_EQ(hpccIpv4(1), 0x0b000101u);
    EXPECT_EQ(hpccIpv4(257), 0x0b010101u);
    EXPECT_EQ(
        lineOf<FctRecord>(writeFctLine, {1, 257, 10000, 100, 4'000'000, 2'000'000'000, 345'678, 331'234}),
        "0b000101 0b010101 10000 100 4000000 2000000000 345678 331234\n");
    EXPECT_EQ(lineOf<FctRecord>(writeFctLine, {0, 15, 65535, 200, 5'368'709'120, 2'000'000'001, 1, 0}),
              "0b000001 0b000f01 65535 200 5368709120 2000000001 1 0\n");
    EXPECT_EQ(lineOf<PfcRecord>(writePfcLine, {2'000'012'345, 17, 1, 3, true}), "2000012345 17 1 3 1\n");
    EXPECT_EQ(lineOf<PfcRecord>(writePfcLine, {2'000'015'000, 4, 0, 1, false}), "2000015000 4 0 1 0\n");
    EXPECT_EQ(lineOf<QueueSampleRecord>(writeQueueSampleLine, {0, 4294967295u, 65535, UINT64_MAX}),
              "0 4294967295 65535 18446744073709551615\n");
}

std::set<std::string> listDir(const std::string& dir) {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) {
        names.insert(entry.path().filename().string());
    }
    return names;
}

TEST_F(Writers, AtomicWritesLeaveNoTemporaryFile) {
    Diagnostics diag;
    FctStream fct(m_dir + "/fct.txt", diag);
    fct.add({0, 1, 10000, 100, 1000, 2'000'000'000, 5'000, 4'500});
    fct.add({2, 1, 10000, 100, 2000, 2'000'000'000, 7'000, 6'000});
    PfcStream pfc(m_dir + "/pfc.txt", diag);
    pfc.add({2'000'001'000, 16, 1, 2, true});
    EXPECT_EQ(listDir(m_dir).size(), 2u) << "only the two temporaries before commit";
    ASSERT_TRUE(fct.commit()) << diag.format(Severity::Error);
    ASSERT_TRUE(pfc.commit()) << diag.format(Severity::Error);
    ASSERT_TRUE(writeJsonAtomically(m_dir + "/summary.json", R"({"flows": 2})", diag));
    EXPECT_EQ(listDir(m_dir), (std::set<std::string>{"fct.txt", "pfc.txt", "summary.json"}));
    EXPECT_EQ(readFileBytes(m_dir + "/fct.txt"),
              "0b000001 0b000101 10000 100 1000 2000000000 5000 4500\n"
              "0b000201 0b000101 10000 100 2000 2000000000 7000 6000\n");
    EXPECT_EQ(readFileBytes(m_dir + "/pfc.txt"), "2000001000 16 1 2 1\n");
    EXPECT_EQ(readFileBytes(m_dir + "/summary.json"), "{\"flows\": 2}\n");

    // Replacing an existing file is atomic too.
    ASSERT_TRUE(writeFileAtomically(m_dir + "/fct.txt", "new\n", diag));
    EXPECT_EQ(readFileBytes(m_dir + "/fct.txt"), "new\n");
    EXPECT_EQ(listDir(m_dir).size(), 3u);
}

TEST_F(Writers, FailuresAreReportedAndLeaveNothingBehind) {
    Diagnostics diag;
    EXPECT_FALSE(FctStream(m_dir + "/missing/fct.txt", diag).commit());
    EXPECT_THAT(diag.firstError(), AllOf(HasSubstr("missing/fct.txt: cannot create the temporary file"),
                                         HasSubstr("No such file or directory")));
    Diagnostics json;
    EXPECT_FALSE(writeJsonAtomically(m_dir + "/bad.json", "{\"flows\": ", json));
    EXPECT_THAT(json.firstError(), HasSubstr("bad.json: the summary to write is not valid JSON"));
    EXPECT_TRUE(listDir(m_dir).empty());
}

TEST(IdealFct, StandaloneFlowCompletionTime) {
    // Two 100 Gb/s hops of 1000 ns; a 1000 B payload with 48 B of overhead is a 1048 B frame.
    const std::vector<PathHop> path{{100'000'000'000, 1000}, {100'000'000'000, 1000}};
    // Propagation 2 x 2 x 1000 = 4000; serialization per hop 1048 x 8 / 100 = 83.84 -> 83; 4000 + 166.
    const uint64_t rtt = baseRttNs(path, 1048);
    EXPECT_EQ(rtt, 4166u);
    EXPECT_EQ(bottleneckRateBps(path), 100'000'000'000u);
    EXPECT_EQ(bottleneckRateBps({}), 0u);
    // 4,000,000 B = 4000 packets: (4,000,000 + 4000 x 48) x 8 / 100 = 335,360 ns.
    EXPECT_EQ(idealFctNs(4'000'000, rtt, 100'000'000'000, 1000, 48), 4166u + 335'360u);
    // A partial last packet still pays the overhead: 1001 B = 2 packets, (1001 + 96) x 8 / 100 = 87.76 -> 87.
    EXPECT_EQ(idealFctNs(1001, 0, 100'000'000'000, 1000, 48), 87u);
    // 5 GiB, past the reference's 32-bit byte count: 5,368,709,120 B = 5,368,710 packets;
    // (5,368,709,120 + 257,698,080) x 8 / 100 = 450,112,576 ns.
    EXPECT_EQ(idealFctNs(5'368'709'120, 0, 100'000'000'000, 1000, 48), 450'112'576u);
    // The slowest hop limits; saturation instead of overflow or division by zero.
    EXPECT_EQ(bottleneckRateBps({{400'000'000'000, 500}, {25'000'000'000, 500}}), 25'000'000'000u);
    EXPECT_EQ(idealFctNs(1000, 0, 0, 1000, 48), std::numeric_limits<uint64_t>::max());
    EXPECT_EQ(idealFctNs(std::numeric_limits<uint64_t>::max(), 0, 1, 1000, 48),
              std::numeric_limits<uint64_t>::max());
    EXPECT_EQ(baseRttNs({{0, 1000}}, 1048), std::numeric_limits<uint64_t>::max());
}

}  // namespace
}  // namespace mlnet::roce

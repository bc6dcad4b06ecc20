// Tests of the HPCC file formats: config.txt and its JSON form, topology and flow files, the fct.txt/pfc.txt
// writers and the standalone-FCT arithmetic. Expected values are worked out by hand in the comments.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <set>
#include <sstream>

#include "flow-file.h"
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
using ::testing::Not;

const std::string kShared = MLNET_SHARED_DIR;
const std::string kBench = kShared + "/workloads/hpcc-bench/";

#define SKIP_WITHOUT_SHARED()                                      \
    if (!fs::exists(kBench)) {                                     \
        GTEST_SKIP() << "reference files not found at " << kBench; \
    }

// Files written by one test live in its own temporary directory.
class Files : public ::testing::Test {
protected:
    void SetUp() override { m_dir = makeTempDir("hpcc-config"); }
    void TearDown() override { fs::remove_all(m_dir); }

    std::string write(const std::string& name, const std::string& text) {
        const std::string path = m_dir + "/" + name;
        writeFileBytes(path, text);
        return path;
    }
    HpccConfig config(const std::string& text, Diagnostics& diag) {
        return loadHpccConfig(write("cfg.txt", text), diag);
    }
    HpccConfig json(const std::string& text, Diagnostics& diag) {
        return loadJsonConfig(write("cfg.json", text), diag);
    }
    // The first error of a config.txt holding `text`.
    std::string configError(const std::string& text) {
        Diagnostics diag;
        config(text, diag);
        EXPECT_TRUE(diag.hasErrors()) << "accepted: " << text;
        return diag.firstError();
    }
    std::string warnings(const Diagnostics& diag) { return diag.format(Severity::Warning); }

    std::string m_dir;
};

// --- bench configurations
// ---------------------------------------------------------------------------------------

using BenchConfigs = Files;

TEST_F(BenchConfigs, EveryConfigLoadsWithOnlyTheTraceKeysIgnored) {
    SKIP_WITHOUT_SHARED();
    for (const char* cc : {"dcqcn", "hp", "dctcp", "timely"}) {
        Diagnostics diag;
        const HpccConfig c = loadHpccConfig(kBench + "config-" + cc + ".txt", diag);
        EXPECT_FALSE(diag.hasErrors()) << cc << ": " << diag.format(Severity::Error);
        // TRACE_FILE and TRACE_OUTPUT_FILE are ignored on purpose; ENABLE_TRACE 0 and
        // USE_DYNAMIC_PFC_THRESHOLD 1 ask for what we do anyway, so they are silent.
        EXPECT_EQ(diag.warningCount(), 2u) << cc << ": " << warnings(diag);
        EXPECT_THAT(warnings(diag),
                    AllOf(HasSubstr("line 6: key 'TRACE_FILE' ignored"),
                          HasSubstr("line 7: key 'TRACE_OUTPUT_FILE' ignored: the binary mix.tr")));
        EXPECT_EQ(c.topologyFile, "TOPO");
        EXPECT_EQ(c.flowFile, "FLOW");
        EXPECT_EQ(c.givenKeys.size(), 47u);
    }
}

TEST_F(BenchConfigs, DcqcnValuesAreExact) {
    SKIP_WITHOUT_SHARED();
    Diagnostics diag;
    const HpccConfig c = loadHpccConfig(kBench + "config-dcqcn.txt", diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    EXPECT_EQ(c.ccMode, kCcModeDcqcn);
    EXPECT_EQ(c.ccValue("RATE_AI"), 20'000'000u);      // 20Mb/s
    EXPECT_EQ(c.ccValue("RATE_HAI"), 200'000'000u);    // 200Mb/s
    EXPECT_EQ(c.ccValue("MIN_RATE"), 1'000'000'000u);  // 1000Mb/s
    EXPECT_EQ(c.ccValue("DCTCP_RATE_AI"), 1'000'000'000u);
    EXPECT_EQ(c.ccValue("EWMA_GAIN"), 0.00390625);           // 1/256, exact in binary
    EXPECT_EQ(c.ccValue("ALPHA_RESUME_INTERVAL"), 1'000u);   // 1 µs
    EXPECT_EQ(c.ccValue("RATE_DECREASE_INTERVAL"), 4'000u);  // 4 µs
    EXPECT_EQ(c.ccValue("RP_TIMER"), 300'000u);              // 300 µs
    EXPECT_EQ(c.ccValue("FAST_RECOVERY_TIMES"), 1u);
    EXPECT_EQ(c.ccValue("CLAMP_TARGET_RATE"), 0);
    EXPECT_EQ(c.bufferBytes, 33'554'432u);  // 32 MiB
    EXPECT_EQ(c.stopTimeNs, 4'000'000'000u);
    EXPECT_EQ(c.payloadBytes, 1000u);
    EXPECT_EQ(c.l2ChunkBytes, 4000u);
    EXPECT_EQ(c.l2AckIntervalBytes, 1u);
    EXPECT_FALSE(c.l2BackToZero);
    EXPECT_TRUE(c.ackHighPriority);
    EXPECT_TRUE(c.ecnEnabled);
    EXPECT_FALSE(c.hasWindow);
    EXPECT_TRUE(c.globalT);
    EXPECT_FALSE(c.varWindow);
    EXPECT_EQ(c.ccValue("FAST_REACT"), 0);
    EXPECT_EQ(c.ccValue("MULTI_RATE"), 0);
    EXPECT_TRUE(c.rateBound);
    EXPECT_EQ(c.ccValue("U_TARGET"), 0.95);
    EXPECT_EQ(c.ccValue("MI_THRESH"), 0u);
    EXPECT_EQ(c.intMulti, 1u);
    EXPECT_EQ(c.pintLogBase, 1.01);
    EXPECT_EQ(c.pintProb, 1.0);
    EXPECT_EQ(c.errorRatePerLink, 0.0);
    EXPECT_FALSE(c.linkDown.has_value());  // LINK_DOWN 0 0 0
    // KMAX_MAP 2 100000000000 1600 400000000000 6400 (KB of 1000 B).
    const std::map<uint64_t, uint64_t> kmax{{100'000'000'000, 1'600'000}, {400'000'000'000, 6'400'000}};
    const std::map<uint64_t, uint64_t> kmin{{100'000'000'000, 400'000}, {400'000'000'000, 1'600'000}};
    const std::map<uint64_t, double> pmax{{100'000'000'000, 0.2}, {400'000'000'000, 0.2}};
    EXPECT_EQ(c.kmaxBytesByRateBps, kmax);
    EXPECT_EQ(c.kminBytesByRateBps, kmin);
    EXPECT_EQ(c.pmaxByRateBps, pmax);
    const auto ecn = c.ecnFor(100'000'000'000);
    ASSERT_TRUE(ecn.has_value());
    EXPECT_EQ(ecn->kminBytes, 400'000u);
    EXPECT_EQ(ecn->kmaxBytes, 1'600'000u);
    EXPECT_EQ(ecn->pmax, 0.2);
    EXPECT_FALSE(c.ecnFor(25'000'000'000).has_value());
    EXPECT_EQ(c.fctOutputFile, "fct.txt");
    EXPECT_EQ(c.pfcOutputFile, "pfc.txt");
    EXPECT_EQ(c.qlenMonFile, "qlen.txt");
    EXPECT_EQ(c.qlenMonStartNs, 2'000'000'000u);
    EXPECT_EQ(c.qlenMonEndNs, 2'000'000'000u);
}

TEST_F(BenchConfigs, OtherControlsDifferWhereTheFilesDo) {
    SKIP_WITHOUT_SHARED();
    Diagnostics diag;
    const HpccConfig hp = loadHpccConfig(kBench + "config-hp.txt", diag);
    const HpccConfig dctcp = loadHpccConfig(kBench + "config-dctcp.txt", diag);
    const HpccConfig timely = loadHpccConfig(kBench + "config-timely.txt", diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    EXPECT_EQ(hp.ccMode, kCcModeHpcc);
    EXPECT_EQ(hp.ccValue("RATE_AI"), 40'000'000u);
    EXPECT_EQ(hp.intMulti, 4u);
    EXPECT_TRUE(hp.hasWindow && hp.varWindow);
    EXPECT_EQ(hp.ccValue("FAST_REACT"), 1);
    EXPECT_FALSE(hp.ackHighPriority);
    EXPECT_EQ(dctcp.ccMode, kCcModeDctcp);
    EXPECT_EQ(dctcp.ccValue("DCTCP_RATE_AI"), 615'000'000u);
    EXPECT_EQ(dctcp.ccValue("EWMA_GAIN"), 0.0625);
    EXPECT_EQ(dctcp.kmaxBytesByRateBps.at(100'000'000'000), 300'000u);
    EXPECT_EQ(dctcp.kminBytesByRateBps.at(400'000'000'000), 1'200'000u);
    EXPECT_EQ(dctcp.pmaxByRateBps.at(100'000'000'000), 1.0);
    EXPECT_EQ(timely.ccMode, kCcModeTimely);
    EXPECT_EQ(timely.ccValue("RATE_AI"), 100'000'000u);
    EXPECT_EQ(timely.ccValue("RATE_HAI"), 500'000'000u);
}

// --- defaults and accepted variants
// -------------------------------------------------------------------------------

using ConfigText = Files;

TEST_F(ConfigText, AbsentKeysGetDocumentedDefaultsAndWarnings) {
    Diagnostics diag;
    const HpccConfig c = config("", diag);
    EXPECT_FALSE(diag.hasErrors());
    // The reference driver's broken defaults are replaced by the RdmaHw attribute defaults.
    EXPECT_EQ(c.ccValue("EWMA_GAIN"), 1.0 / 16);
    EXPECT_EQ(c.ccValue("RP_TIMER"), 1'500'000u);
    EXPECT_EQ(c.ccValue("RATE_AI"), 5'000'000u);
    EXPECT_EQ(c.ccValue("RATE_HAI"), 50'000'000u);
    EXPECT_EQ(c.l2AckIntervalBytes, 1u);
    // The reference driver's own defaults.
    EXPECT_EQ(c.ccMode, kCcModeDcqcn);
    EXPECT_EQ(c.ccValue("ALPHA_RESUME_INTERVAL"), 55'000u);
    EXPECT_EQ(c.ccValue("RATE_DECREASE_INTERVAL"), 4'000u);
    EXPECT_EQ(c.ccValue("FAST_RECOVERY_TIMES"), 5u);
    EXPECT_EQ(c.ccValue("MIN_RATE"), 100'000'000u);
    EXPECT_EQ(c.stopTimeNs, 3'010'000'000u);
    EXPECT_EQ(c.bufferBytes, 16u << 20);
    EXPECT_EQ(c.ccValue("MI_THRESH"), 5u);
    EXPECT_EQ(c.pintLogBase, 1.05);
    EXPECT_TRUE(c.hasWindow && c.globalT && c.rateBound && c.ecnEnabled);
    EXPECT_EQ(c.ccValue("FAST_REACT"), 1);
    EXPECT_EQ(c.ccValue("MULTI_RATE"), 1);
    EXPECT_TRUE(c.topologyFile.empty() && c.flowFile.empty() && c.qlenMonFile.empty());
    EXPECT_EQ(c.fctOutputFile, "fct.txt");
    EXPECT_THAT(warnings(diag),
                AllOf(HasSubstr("key 'RATE_AI' absent"), HasSubstr("key 'RATE_HAI' absent"),
                      HasSubstr("key 'RP_TIMER' absent; using the RdmaHw attribute default 1500"),
                      HasSubstr("key 'EWMA_GAIN' absent"), HasSubstr("key 'L2_ACK_INTERVAL' absent")));
    Diagnostics required;
    requireFlowInputs(c, required);
    EXPECT_EQ(required.errorCount(), 2u);
    EXPECT_THAT(required.firstError(), HasSubstr("missing key 'TOPOLOGY_FILE'"));
}

TEST_F(ConfigText, CommentsBlankLinesAndCrlfAreAccepted) {
    Diagnostics diag;
    const HpccConfig c = config("# HPCC run\r\n\r\nCC_MODE 3\r\n   RATE_AI   40Mb/s  \r\n", diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    EXPECT_EQ(c.ccMode, kCcModeHpcc);
    EXPECT_EQ(c.ccValue("RATE_AI"), 40'000'000u);
    EXPECT_EQ(c.givenKeys.at("RATE_AI"), 4);
}

TEST_F(ConfigText, LinkDownIsTwoSecondsPlusMicroseconds) {
    Diagnostics diag;
    const HpccConfig c = config("LINK_DOWN 100 3 16\n", diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    ASSERT_TRUE(c.linkDown.has_value());
    EXPECT_EQ(c.linkDown->timeNs, 2'000'100'000u);
    EXPECT_EQ(c.linkDown->nodeA, 3u);
    EXPECT_EQ(c.linkDown->nodeB, 16u);

    Diagnostics none;
    EXPECT_FALSE(config("LINK_DOWN 0 5 6\n", none).linkDown.has_value());
    EXPECT_THAT(warnings(none), HasSubstr("time 0 means no link failure; nodes 5 and 6 are ignored"));
}

TEST_F(ConfigText, IgnoredKeysWarnOnlyWhenTheyAskForSomethingWeDoNotDo) {
    Diagnostics diag;
    config("USE_DYNAMIC_PFC_THRESHOLD 0\nENABLE_TRACE 1\nDATA_RATE 100Gbps\nBW_MON_FILE bw.txt\n", diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    EXPECT_THAT(
        warnings(diag),
        AllOf(HasSubstr("line 1: key 'USE_DYNAMIC_PFC_THRESHOLD' ignored: it has no effect in the reference "
                        "either; our PFC threshold is always dynamic"),
              HasSubstr("line 2: key 'ENABLE_TRACE' ignored: the binary mix.tr trace is not produced"),
              HasSubstr("line 3: key 'DATA_RATE' ignored"), HasSubstr("line 4: key 'BW_MON_FILE' ignored")));
    Diagnostics quiet;
    config("USE_DYNAMIC_PFC_THRESHOLD 1\nENABLE_TRACE 0\n", quiet);
    EXPECT_THAT(warnings(quiet), Not(HasSubstr("ignored")));
}

TEST_F(ConfigText, ResolveAgainstRewritesOnlyRelativePaths) {
    Diagnostics diag;
    HpccConfig c =
        config("TOPOLOGY_FILE topo.txt\nFLOW_FILE /abs/flow.txt\nFCT_OUTPUT_FILE out/fct.txt\n", diag);
    ASSERT_FALSE(diag.hasErrors());
    c.resolveAgainst("/runs/a");
    EXPECT_EQ(c.topologyFile, "/runs/a/topo.txt");
    EXPECT_EQ(c.flowFile, "/abs/flow.txt");
    EXPECT_EQ(c.fctOutputFile, "/runs/a/out/fct.txt");
    EXPECT_EQ(c.pfcOutputFile, "/runs/a/pfc.txt");
    EXPECT_EQ(c.qlenMonFile, "");
    EXPECT_EQ(resolvePath("x.txt", "dir"), "dir/x.txt");
}

TEST(CcMode, Describe) {
    EXPECT_EQ(describeCcMode(1), "DCQCN");
    EXPECT_EQ(describeCcMode(3), "HPCC");
    EXPECT_EQ(describeCcMode(7), "TIMELY");
    EXPECT_EQ(describeCcMode(8), "DCTCP");
    EXPECT_EQ(describeCcMode(10), "HPCC-PINT");
    EXPECT_EQ(describeCcMode(12), "none (line rate + window)");
}

// --- one test per error class
// -------------------------------------------------------------------------------------

using ConfigErrors = Files;

TEST_F(ConfigErrors, UnknownKeyNamesFileLineAndKey) {
    EXPECT_THAT(configError("CC_MODE 1\nFOO_BAR 3\n"),
                AllOf(HasSubstr("cfg.txt: line 2: unknown key 'FOO_BAR'"),
                      HasSubstr("one key and its values per line")));
    EXPECT_THAT(configError("RATE_A1 5Mb/s\n"), HasSubstr("unknown key 'RATE_A1' (did you mean 'RATE_AI'?)"));
    // A map continued on the next line, which the reference's token reader would have accepted.
    EXPECT_THAT(configError("KMAX_MAP 1\n100000000000 1600\n"), HasSubstr("line 1: key 'KMAX_MAP'"));
}

TEST_F(ConfigErrors, BadRateString) {
    EXPECT_THAT(configError("RATE_AI 20Mbx\n"),
                AllOf(HasSubstr("line 1: key 'RATE_AI': value '20Mbx' has a missing or unknown unit"),
                      HasSubstr("expected a rate > 0 such as 20Mb/s")));
    EXPECT_THAT(configError("MIN_RATE fast\n"), HasSubstr("value 'fast' is not a number"));
    EXPECT_THAT(configError("RATE_HAI 0Mb/s\n"), HasSubstr("value '0Mb/s' is zero"));
    EXPECT_THAT(configError("DCTCP_RATE_AI 1.0000001bps\n"), HasSubstr("is not a whole number of the unit"));
}

TEST_F(ConfigErrors, MapCountMismatch) {
    EXPECT_THAT(configError("KMAX_MAP 2 100000000000 1600 400000000000\n"),
                AllOf(HasSubstr("line 1: key 'KMAX_MAP': the count 2 announces 4 values after it, found 3"),
                      HasSubstr("expected 'n rate1 kmax1 ... raten kmaxn'")));
    EXPECT_THAT(configError("PMAX_MAP 0\n"), HasSubstr("value '0' is out of range"));
    EXPECT_THAT(configError("PMAX_MAP 1 100000000000 1.5\n"),
                HasSubstr("value 3 '1.5' is out of range; expected a marking probability in 0..1"));
    EXPECT_THAT(configError("KMIN_MAP 2 100000000000 400 100Gbps 500\n"),
                HasSubstr("value 4 '100Gbps' repeats a rate"));
    EXPECT_THAT(configError("KMIN_MAP 1 100000000000 0.0004\n"), HasSubstr("is finer than 1 byte"));
}

TEST_F(ConfigErrors, MissingAndExtraValues) {
    EXPECT_THAT(configError("RP_TIMER\n"),
                HasSubstr("line 1: key 'RP_TIMER': missing value; expected one value (µs)"));
    EXPECT_THAT(configError("CC_MODE 1 3\n"), HasSubstr("key 'CC_MODE': expected one value"));
    EXPECT_THAT(configError("LINK_DOWN 100 3\n"), HasSubstr("found 2 values"));
    EXPECT_THAT(configError("TRACE_FILE\n"), HasSubstr("key 'TRACE_FILE': missing value"));
}

TEST_F(ConfigErrors, BadAndNegativeNumbers) {
    EXPECT_THAT(configError("BUFFER_SIZE -4\n"), HasSubstr("key 'BUFFER_SIZE': value '-4' is negative"));
    EXPECT_THAT(configError("EWMA_GAIN -0.5\n"), HasSubstr("value '-0.5' is negative"));
    EXPECT_THAT(configError("RP_TIMER -300\n"), HasSubstr("is negative"));
    EXPECT_THAT(configError("PACKET_PAYLOAD_SIZE 1.5k\n"), HasSubstr("value '1.5k' is not a number"));
    EXPECT_THAT(configError("U_TARGET nan\n"), HasSubstr("is not a number"));
    EXPECT_THAT(configError("HAS_WIN 2\n"), HasSubstr("value '2' is out of range; expected 0 or 1"));
    EXPECT_THAT(configError("CC_MODE 99999999999999999999\n"), HasSubstr("does not fit in 64 bits"));
    EXPECT_THAT(configError("SIMULATOR_STOP_TIME 1.0000000001\n"), HasSubstr("is finer than 1 ns"));
}

TEST_F(ConfigErrors, KnownBadValuesAreRejectedWithTheReason) {
    EXPECT_THAT(configError("RP_TIMER 0\n"), HasSubstr("value '0' is zero"));
    EXPECT_THAT(configError("EWMA_GAIN 0\n"), HasSubstr("0 would freeze alpha"));
    EXPECT_THAT(configError("L2_ACK_INTERVAL 0\n"), HasSubstr("flows never complete"));
    EXPECT_THAT(configError("PAUSE_TIME 0\n"), HasSubstr("is zero"));
    EXPECT_THAT(configError("NIC_TOTAL_PAUSE_TIME 10\n"),
                HasSubstr("NIC-generated PFC pauses are not modelled"));
}

TEST_F(ConfigErrors, RepeatedKeyAndInconsistentMonitorWindow) {
    EXPECT_THAT(configError("CC_MODE 1\nCC_MODE 3\n"),
                HasSubstr("line 2: key 'CC_MODE': appears more than once (first at line 1)"));
    EXPECT_THAT(configError("QLEN_MON_START 2000\nQLEN_MON_END 1000\n"),
                HasSubstr("line 2: key 'QLEN_MON_END': 1000 ns is before QLEN_MON_START 2000 ns"));
    EXPECT_THAT(configError("LINK_DOWN 5 7 7\n"), HasSubstr("nodes a and b are both 7"));
}

TEST_F(ConfigErrors, MissingFile) {
    Diagnostics diag;
    loadHpccConfig(m_dir + "/absent.txt", diag);
    EXPECT_THAT(diag.firstError(), HasSubstr("absent.txt: cannot open HPCC configuration"));
}

// --- JSON form
// ----------------------------------------------------------------------------------------------------

using JsonConfig = Files;

TEST_F(JsonConfig, SameKeysAsTextWithJsonValues) {
    Diagnostics diag;
    const HpccConfig c = json(R"({
  "CC_MODE": 3,
  "RATE_AI": "40Mb/s",
  "MIN_RATE": 1e9,
  "HAS_WIN": true,
  "VAR_WIN": false,
  "EWMA_GAIN": 0.00390625,
  "KMAX_MAP": {"100000000000": 1600, "400000000000": 6400},
  "KMIN_MAP": "1 100000000000 400",
  "PMAX_MAP": [1, "100Gbps", 0.2],
  "LINK_DOWN": [100, 0, 16],
  "TOPOLOGY_FILE": "my topo.txt",
  "SIMULATOR_STOP_TIME": 4.00
})",
                              diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    EXPECT_EQ(c.ccMode, kCcModeHpcc);
    EXPECT_EQ(c.ccValue("RATE_AI"), 40'000'000u);
    EXPECT_EQ(c.ccValue("MIN_RATE"), 1'000'000'000u);
    EXPECT_TRUE(c.hasWindow);
    EXPECT_FALSE(c.varWindow);
    EXPECT_EQ(c.ccValue("EWMA_GAIN"), 0.00390625);
    EXPECT_EQ(c.kmaxBytesByRateBps.at(400'000'000'000), 6'400'000u);
    EXPECT_EQ(c.kminBytesByRateBps.at(100'000'000'000), 400'000u);
    EXPECT_EQ(c.pmaxByRateBps.at(100'000'000'000), 0.2);
    ASSERT_TRUE(c.linkDown.has_value());
    EXPECT_EQ(c.linkDown->timeNs, 2'000'100'000u);
    EXPECT_EQ(c.topologyFile, "my topo.txt");  // a path may hold spaces in JSON
    EXPECT_EQ(c.stopTimeNs, 4'000'000'000u);
    EXPECT_EQ(c.givenKeys.at("KMIN_MAP"), 9);
}

TEST_F(JsonConfig, BenchConfigConvertedLineByLineGivesTheSameValues) {
    SKIP_WITHOUT_SHARED();
    Diagnostics diag;
    const HpccConfig text = loadHpccConfig(kBench + "config-hp.txt", diag);
    std::istringstream lines(readFileBytes(kBench + "config-hp.txt"));
    std::string out = "{", line;
    while (std::getline(lines, line)) {
        const std::size_t space = line.find(' ');
        out += std::string(out.size() > 1 ? ",\n" : "\n") + "\"" + line.substr(0, space) + "\": \"" +
               line.substr(space + 1) + "\"";
    }
    const HpccConfig fromJson = json(out + "\n}\n", diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    EXPECT_EQ(fromJson.ccMode, text.ccMode);
    EXPECT_EQ(fromJson.ccValue("RATE_AI"), text.ccValue("RATE_AI"));
    EXPECT_EQ(fromJson.kmaxBytesByRateBps, text.kmaxBytesByRateBps);
    EXPECT_EQ(fromJson.pmaxByRateBps, text.pmaxByRateBps);
    EXPECT_EQ(fromJson.bufferBytes, text.bufferBytes);
    EXPECT_EQ(fromJson.intMulti, text.intMulti);
    EXPECT_EQ(fromJson.givenKeys.size(), text.givenKeys.size());
}

TEST_F(JsonConfig, Errors) {
    Diagnostics unknown;
    json("{\n  \"CC_MODE\": 1,\n  \"cc-mode\": 3\n}\n", unknown);
    EXPECT_THAT(unknown.firstError(),
                HasSubstr("cfg.json: line 3: unknown key 'cc-mode' (did you mean 'CC_MODE'?)"));

    Diagnostics repeated;
    json("{\"CC_MODE\": 1,\n\"CC_MODE\": 3}", repeated);
    EXPECT_THAT(repeated.firstError(), HasSubstr("key 'CC_MODE' appears more than once"));

    Diagnostics malformed;
    json("{\"CC_MODE\": 1,\n\"RATE_AI\" 5}", malformed);
    EXPECT_THAT(malformed.firstError(), HasSubstr("cfg.json: line 2: malformed JSON"));

    Diagnostics badValue;
    json("{\"RATE_AI\": null, \"LINK_DOWN\": {\"a\": 1}, \"BUFFER_SIZE\": -2}", badValue);
    EXPECT_THAT(
        badValue.format(Severity::Error),
        AllOf(HasSubstr("key 'RATE_AI': null"), HasSubstr("key 'LINK_DOWN': an object is only accepted"),
              HasSubstr("key 'BUFFER_SIZE': value '-2' is negative")));

    Diagnostics notObject;
    json("[1, 2]", notObject);
    EXPECT_THAT(notObject.firstError(), HasSubstr("expected a JSON object"));
}

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
    EXPECT_EQ(parseDataRateBps("100000000000", bps), NumberStatus::Ok);
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
    SKIP_WITHOUT_SHARED();
    Diagnostics diag;
    const TopologySpec k4 = *loadHpccTopologyFile(kBench + "k4_topo.txt", diag);
    const HpccConfig bench = loadHpccConfig(kBench + "config-dcqcn.txt", diag);
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
                                kBench + "k4_topo.txt: line 3)"),
                      HasSubstr("line 2: key 'KMIN_MAP': no entry"), HasSubstr("line 3: key 'PMAX_MAP'"),
                      HasSubstr("Kmin 7000000 B exceeds Kmax 6400000 B"),
                      HasSubstr("line 4: key 'LINK_DOWN': nodes 0 and 1 are not linked")));

    Diagnostics noEcn;
    checkConfigAgainstTopology(config("ENABLE_QCN 0\n", noEcn), k4, noEcn);
    EXPECT_FALSE(noEcn.hasErrors()) << noEcn.format(Severity::Error);
}

using FlowFile = Files;

TEST_F(FlowFile, BenchFlowsLoadWithExactCounts) {
    SKIP_WITHOUT_SHARED();
    Diagnostics diag;
    const TopologySpec k4 = *loadHpccTopologyFile(kBench + "k4_topo.txt", diag);
    const TopologySpec k8 = *loadHpccTopologyFile(kBench + "k8_topo.txt", diag);
    ASSERT_FALSE(diag.hasErrors());
    const std::vector<FlowSpec> a2a = loadFlowFile(kBench + "k4_a2a_4MB.txt", k4, diag);
    const std::vector<FlowSpec> incast = loadFlowFile(kBench + "k8_incast_1MB.txt", k8, diag);
    const std::vector<FlowSpec> incast10 = loadFlowFile(kBench + "k4_incast_10MB.txt", k4, diag);
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
    EXPECT_EQ(loadFlowFile(kBench + "k8_a2a_64KB.txt", k8, diag).size(), 16'256u);  // 128 x 127
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
}

// Every prefix of a valid file is a plausible truncated input: each must load or fail with messages, never
// crash or hang.
TEST_F(FlowFile, EveryTruncationOfTheBenchFilesIsHandled) {
    SKIP_WITHOUT_SHARED();
    const std::string config = readFileBytes(kBench + "config-dcqcn.txt");
    const std::string topology = readFileBytes(kBench + "k4_topo.txt");
    const std::string flows = readFileBytes(kBench + "k4_incast_10MB.txt");
    Diagnostics k4Diag;
    const TopologySpec k4 = *loadHpccTopologyFile(kBench + "k4_topo.txt", k4Diag);
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

TEST(WriterFormats, FctAndPfcLinesMatchTheReference) {
    EXPECT_EQ(hpccHostIp(0), 0x0b000001u);
    EXPECT_EQ(hpccHostIp(1), 0x0b000101u);
    EXPECT_EQ(hpccHostIp(257), 0x0b010101u);
    EXPECT_EQ(formatFctLine({1, 257, 10000, 100, 4'000'000, 2'000'000'000, 345'678, 331'234}),
              "0b000101 0b010101 10000 100 4000000 2000000000 345678 331234\n");
    EXPECT_EQ(formatFctLine({0, 15, 65535, 200, 5'368'709'120, 2'000'000'001, 1, 0}),
              "0b000001 0b000f01 65535 200 5368709120 2000000001 1 0\n");
    EXPECT_EQ(formatPfcLine({2'000'012'345, 17, 1, 3, true}), "2000012345 17 1 3 1\n");
    EXPECT_EQ(formatPfcLine({2'000'015'000, 4, 0, 1, false}), "2000015000 4 0 1 0\n");
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

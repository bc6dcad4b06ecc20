// Tests of the HPCC config.txt format and its JSON form: the bench configurations, defaults and accepted
// variants, one test per error class. Expected values are worked out by hand in the comments.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "hpcc-config-test-util.h"
#include "hpcc-config.h"

namespace mlnet::roce {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// --- bench configurations
// ---------------------------------------------------------------------------------------

using BenchConfigs = Files;

TEST_F(BenchConfigs, EveryConfigLoadsWithOnlyTheTraceKeysIgnored) {
    for (const char* cc : {"dcqcn", "hp", "dctcp", "timely"}) {
        Diagnostics diag;
        const HpccConfig c = loadHpccConfig(test::hpccBenchDir() + "config-" + cc + ".txt", diag);
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
    Diagnostics diag;
    const HpccConfig c = loadHpccConfig(test::hpccBenchDir() + "config-dcqcn.txt", diag);
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
    Diagnostics diag;
    const HpccConfig hp = loadHpccConfig(test::hpccBenchDir() + "config-hp.txt", diag);
    const HpccConfig dctcp = loadHpccConfig(test::hpccBenchDir() + "config-dctcp.txt", diag);
    const HpccConfig timely = loadHpccConfig(test::hpccBenchDir() + "config-timely.txt", diag);
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
                AllOf(HasSubstr("line 1: key 'RATE_AI': value '20Mbx' has an unknown unit"),
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
    Diagnostics diag;
    const HpccConfig text = loadHpccConfig(test::hpccBenchDir() + "config-hp.txt", diag);
    std::istringstream lines(readFileBytes(test::hpccBenchDir() + "config-hp.txt"));
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

    // true/false only where config.txt takes 0/1; a path must be a string.
    Diagnostics booleans;
    const HpccConfig flags = json(R"({"ENABLE_QCN": false, "BUFFER_SIZE": true, "FCT_OUTPUT_FILE": true,
                                     "PFC_OUTPUT_FILE": 5})",
                                  booleans);
    EXPECT_FALSE(flags.ecnEnabled);
    EXPECT_THAT(booleans.format(Severity::Error),
                AllOf(HasSubstr("key 'BUFFER_SIZE': JSON true/false is accepted only for 0/1 keys"),
                      HasSubstr("key 'FCT_OUTPUT_FILE': JSON true/false is accepted only for 0/1 keys"),
                      HasSubstr("key 'PFC_OUTPUT_FILE': a JSON number is not a file path")));
    EXPECT_THAT(booleans.format(Severity::Error), ::testing::Not(HasSubstr("ENABLE_QCN")));
}

}  // namespace
}  // namespace mlnet::roce

// mlnet-flows end to end: HPCC-format inputs in, fct.txt / pfc.txt in the reference's columns out, exit
// status.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <sstream>

#include "trace-test-util.h"

namespace mlnet {
namespace {

using ::testing::HasSubstr;

struct FlowsRun {
    int status;
    std::string out, err;
};

class MlnetFlows : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = makeTempDir("flows");
        // Hosts 0..4 on switch 5, 100 Gb/s, 1 us.
        writeFileBytes(m_dir + "/topo.txt",
                       "6 1 5\n5\n0 5 100Gbps 1000ns 0\n1 5 100Gbps 1000ns 0\n2 5 100Gbps 1000ns 0\n"
                       "3 5 100Gbps 1000ns 0\n4 5 100Gbps 1000ns 0\n");
        writeFileBytes(
            m_dir + "/flows.txt",
            "4\n1 0 3 100 2000000 0.000001\n2 0 3 100 2000000 0.000001\n3 0 3 100 2000000 0.000001\n"
            "4 0 3 100 2000000 0.000001\n");
        writeConfig("");
    }
    // HAS_WIN 0: without a window the senders run at line rate and the 1 MiB buffer fills.
    void writeConfig(const std::string& extra, const std::string& stopSeconds = "1") {
        writeFileBytes(
            m_dir + "/config.txt",
            "TOPOLOGY_FILE " + m_dir + "/topo.txt\nFLOW_FILE " + m_dir + "/flows.txt\nFCT_OUTPUT_FILE " +
                m_dir + "/fct.txt\nPFC_OUTPUT_FILE " + m_dir + "/pfc.txt\nCC_MODE 0\n" +
                "PACKET_PAYLOAD_SIZE 1000\nBUFFER_SIZE 1\nENABLE_QCN 1\nKMAX_MAP 1 100000000000 400\n"
                "KMIN_MAP 1 100000000000 100\nPMAX_MAP 1 100000000000 0.2\nHAS_WIN 0\nL2_ACK_INTERVAL 1\n" +
                "SIMULATOR_STOP_TIME " + stopSeconds + "\n" + extra);
    }
    FlowsRun run(const std::string& args) {
        const std::string cmd = std::string(MLNET_BIN_DIR) + "/mlnet-flows " + args + " > " + m_dir +
                                "/out.txt 2> " + m_dir + "/err.txt";
        const int raw = std::system(cmd.c_str());
        return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, readFileBytes(m_dir + "/out.txt"),
                readFileBytes(m_dir + "/err.txt")};
    }
    std::string m_dir;
};

TEST_F(MlnetFlows, ParameterListInTheDocsIsTheToolsOwn) {
    FlowsRun r = run("--cc-parameters");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("| DCQCN | `G` | 0.00390625 |"));
    EXPECT_THAT(r.out, HasSubstr("| `EWMA_GAIN` | number | 0.0625 | `G` | `G` | - | - |"));
    const std::string docs = readFileBytes(std::string(MLNET_SOURCE_DIR) + "/docs/cc-parameters.md");
    ASSERT_GE(docs.size(), r.out.size());
    EXPECT_EQ(docs.substr(docs.size() - r.out.size()), r.out)
        << "docs/cc-parameters.md is stale: regenerate its tables with build/bin/mlnet-flows --cc-parameters";
}

TEST_F(MlnetFlows, WritesFctAndPfcInTheReferenceColumns) {
    FlowsRun r = run(m_dir + "/config.txt --report=" + m_dir + "/report.json");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("flows: 4 of 4 finished; drops 0"));
    std::istringstream fct(readFileBytes(m_dir + "/fct.txt"));
    std::string sip, dip;
    uint64_t sport, dport, size, start, duration, ideal;
    int lines = 0;
    while (fct >> sip >> dip >> sport >> dport >> size >> start >> duration >> ideal) {
        ++lines;
        EXPECT_EQ(dip, "0b000001");  // host 0 is 11.0.0.1
        EXPECT_EQ(size, 2000000u);
        EXPECT_EQ(start, 1000u);
        EXPECT_EQ(dport, 100u);
        EXPECT_GE(sport, 10000u);
        EXPECT_GT(duration, ideal);  // four flows share host 0's link
    }
    EXPECT_EQ(lines, 4);
    // A 1 MiB buffer makes the switch pause the senders: pfc.txt lines "time node type ifindex 1|0".
    std::istringstream pfc(readFileBytes(m_dir + "/pfc.txt"));
    uint64_t time, node, type, ifindex, pause;
    int pauses = 0;
    while (pfc >> time >> node >> type >> ifindex >> pause) {
        EXPECT_EQ(type, 0u) << "pauses land at the sending hosts";
        EXPECT_GE(node, 1u);
        EXPECT_LE(node, 4u);
        pauses += pause == 1;
    }
    EXPECT_GT(pauses, 0);
    auto report = nlohmann::json::parse(readFileBytes(m_dir + "/report.json"));
    EXPECT_EQ(report["finished"], 4);
    EXPECT_EQ(report["drops"], 0);
    EXPECT_EQ(report["switches"][0]["ports"].size(), 5u);
}

TEST_F(MlnetFlows, SameSeedSameResults) {
    // ECN marking draws random numbers; with a fixed seed two runs must agree to the picosecond.
    writeConfig("", "1");
    ASSERT_EQ(run(m_dir + "/config.txt --cc=dcqcn --seed=3").status, 0);
    const std::string first = readFileBytes(m_dir + "/fct.txt");
    ASSERT_EQ(run(m_dir + "/config.txt --cc=dcqcn --seed=3").status, 0);
    EXPECT_EQ(readFileBytes(m_dir + "/fct.txt"), first);
    EXPECT_FALSE(first.empty());
}

TEST_F(MlnetFlows, LossyRunWithoutPfcStillDeliversEverything) {
    FlowsRun r = run(m_dir + "/config.txt --pfc=0 --rto-us=100 --report=" + m_dir + "/report.json");
    ASSERT_EQ(r.status, 0) << r.err;
    auto report = nlohmann::json::parse(readFileBytes(m_dir + "/report.json"));
    EXPECT_EQ(report["finished"], 4);
    EXPECT_GT(report["drops"].get<uint64_t>(), 0u);
    EXPECT_GT(report["retransmitted_bytes"].get<uint64_t>(), 0u);
}

TEST_F(MlnetFlows, WithoutTimeoutsALostTailPacketStallsTheFlowUntilTheHangCheck) {
    // One 100 kB flow over lossy cables: with seed 1 its last packet is lost, which no NAK can report
    // (nothing follows it). The timeout recovers it; under --retransmit=hpcc (the reference: no timeout) the
    // flow stalls one packet short and the hang check ends the run, naming it.
    writeFileBytes(m_dir + "/flows.txt", "1\n1 0 3 100 100000 0.000001\n");
    writeConfig("ERROR_RATE_PER_LINK 0.02\n");
    FlowsRun timeout = run(m_dir + "/config.txt --pfc=0 --seed=1 --report=" + m_dir + "/report.json");
    ASSERT_EQ(timeout.status, 0) << timeout.err;
    auto report = nlohmann::json::parse(readFileBytes(m_dir + "/report.json"));
    EXPECT_EQ(report["finished"], 1);
    ASSERT_GE(report["timeouts"].get<uint64_t>(), 1u)
        << "seed 1 no longer loses the tail packet: pick a seed whose run needs a timeout";
    FlowsRun none =
        run(m_dir + "/config.txt --pfc=0 --seed=1 --retransmit=hpcc --report=" + m_dir + "/report.json");
    EXPECT_EQ(none.status, 3);
    EXPECT_THAT(none.err, HasSubstr("no progress for 10 ms"));
    EXPECT_THAT(none.err, HasSubstr("99000 of 100000 B acknowledged, next byte 100000"));
    report = nlohmann::json::parse(readFileBytes(m_dir + "/report.json"));
    EXPECT_EQ(report["finished"], 0);
    EXPECT_EQ(report["timeouts"], 0);
}

TEST_F(MlnetFlows, UnknownKeyIsAnErrorWithItsLine) {
    writeConfig("RATE_AIX 5Mb/s\n");
    FlowsRun r = run(m_dir + "/config.txt");
    EXPECT_EQ(r.status, 2);
    EXPECT_THAT(r.err, HasSubstr("config.txt: line 15"));
    EXPECT_THAT(r.err, HasSubstr("RATE_AIX"));
}

TEST_F(MlnetFlows, FlowToASwitchIsAnError) {
    writeFileBytes(m_dir + "/flows.txt", "1\n1 5 3 100 1000 0\n");
    FlowsRun r = run(m_dir + "/config.txt");
    EXPECT_EQ(r.status, 2);
    EXPECT_THAT(r.err, HasSubstr("flows.txt"));
}

TEST_F(MlnetFlows, TimeLimitStopsWithAReport) {
    writeConfig("", "0.0001");
    FlowsRun r = run(m_dir + "/config.txt");
    EXPECT_EQ(r.status, 3);
    EXPECT_THAT(r.err, HasSubstr("stopped at the time limit"));
    EXPECT_THAT(r.err, HasSubstr("-> host 0"));
}

TEST_F(MlnetFlows, FlowStartingAfterTheStopTimeIsNamed) {
    writeFileBytes(m_dir + "/flows.txt", "2\n1 0 3 100 1000 0.000001\n2 0 3 100 1000 0.5\n");
    writeConfig("", "0.1");
    FlowsRun r = run(m_dir + "/config.txt");
    EXPECT_EQ(r.status, 3);
    EXPECT_THAT(r.err,
                HasSubstr("flows.txt: line 3: this flow and 0 after it never started: it starts at 0.5 s, "
                          "after SIMULATOR_STOP_TIME (0.1 s)"));
}

TEST_F(MlnetFlows, DirectoryAsConfigurationSaysSo) {
    FlowsRun r = run(m_dir);
    EXPECT_EQ(r.status, 2);
    EXPECT_THAT(r.err,
                HasSubstr(m_dir + ": is a directory; the HPCC configuration (config.txt) must be a file"));
    EXPECT_THAT(r.err, ::testing::Not(HasSubstr("missing key")));  // one cause, one message
}

TEST_F(MlnetFlows, ByteOrderMarkIsSkipped) {
    const std::string config = readFileBytes(m_dir + "/config.txt");
    writeFileBytes(m_dir + "/config.txt", "\xEF\xBB\xBF" + config);
    EXPECT_EQ(run(m_dir + "/config.txt").status, 0);
}

// Relative inputs: the working directory first (the reference's rule), then the configuration's folder; a
// file in neither is named with both folders.
TEST_F(MlnetFlows, RelativeInputsAreFoundBesideTheConfiguration) {
    std::string config = readFileBytes(m_dir + "/config.txt");
    for (const std::string name : {"/topo.txt", "/flows.txt"}) {
        config.replace(config.find(m_dir + name), m_dir.size() + name.size(), name.substr(1));
    }
    writeFileBytes(m_dir + "/config.txt", config);
    FlowsRun r = run(m_dir + "/config.txt");  // the tests' working directory has no topo.txt
    EXPECT_EQ(r.status, 0) << r.err;
    config.replace(config.find("flows.txt"), 9, "absent.txt");
    writeFileBytes(m_dir + "/config.txt", config);
    r = run(m_dir + "/config.txt");
    EXPECT_EQ(r.status, 2);
    EXPECT_THAT(r.err,
                HasSubstr("config.txt: line 2: key 'FLOW_FILE': 'absent.txt' exists neither in the working "
                          "directory ("));
    EXPECT_THAT(r.err, HasSubstr("nor beside the configuration (" + m_dir + ")"));
}

// The reference's framing changes what frames are charged, not what a capture holds: real RoCEv2 frames.
TEST_F(MlnetFlows, CompatibleModeChargesReferenceSizesAndCapturesRealFrames) {
    FlowsRun r = run(m_dir + "/config.txt --compat=hpcc --pcap=" + m_dir + "/run.pcap");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(
        r.out,
        HasSubstr("model rules: framing hpcc, HPCC queue point, flow starts reference, ECMP hpcc, "
                  "HPCC rate change shift, NIC arbitration hpcc, INT fields hpcc, ECN draws hpcc, MMU hpcc, "
                  "PFC pause hpcc, ACK class hpcc, retransmit hpcc"));
    const std::string pcap = readFileBytes(m_dir + "/run.pcap");
    ASSERT_GT(pcap.size(), 24u + 16u);
    // First record: a data frame of 1000 B payload keeps its real length, 1062 B less the 4-byte FCS.
    const auto u32 = [&](std::size_t at) {
        return uint32_t(uint8_t(pcap[at])) | uint32_t(uint8_t(pcap[at + 1])) << 8 |
               uint32_t(uint8_t(pcap[at + 2])) << 16 | uint32_t(uint8_t(pcap[at + 3])) << 24;
    };
    EXPECT_EQ(u32(24 + 12), 1058u);
    // 4 flows of 2 MB at 100 Gb/s into one port: 8 MB x 1048/1000 framed bytes, no preamble or gap, at 83 ns
    // per frame (the reference's whole ns) take at least 664 us; real frames (1082) would take 692 us.
    std::istringstream fct(readFileBytes(m_dir + "/fct.txt"));
    std::string sip, dip;
    uint64_t sport, dport, size, start, ns, ideal, last = 0;
    while (fct >> sip >> dip >> sport >> dport >> size >> start >> ns >> ideal) {
        last = std::max(last, start + ns);
        EXPECT_EQ(sport, 10000u);  // per (source, destination) pair, as the reference numbers them
    }
    EXPECT_GT(last - 1000, 664'000u);
    EXPECT_LT(last - 1000, 692'000u);
}

TEST_F(MlnetFlows, UnknownCompatModeIsAUsageError) {
    FlowsRun r = run(m_dir + "/config.txt --compat=ns3");
    EXPECT_EQ(r.status, 1);
    EXPECT_THAT(r.err, HasSubstr("--compat must be none, hpcc or astra-ns3, not 'ns3'"));
}

// Lossless means lossless for every class. Hosts 1 and 2 fill host 0's port in priority 3 until their ingress
// ports are paused for it; 60 us later they start priority 4 on the same ports, which are then paused for it
// too while priority 3 still holds its headroom. Each priority needs the whole headroom (a headroom shared by
// a port's priorities dropped 395 frames here).
TEST_F(MlnetFlows, TwoLosslessClassesPausedOnOnePortDropNothing) {
    writeFileBytes(m_dir + "/flows.txt",
                   "4\n1 0 3 100 4000000 0.000001\n2 0 3 100 4000000 0.000001\n1 0 4 100 4000000 0.000060\n"
                   "2 0 4 100 4000000 0.000060\n");
    FlowsRun r = run(m_dir + "/config.txt");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("flows: 4 of 4 finished; drops 0;"));
    EXPECT_THAT(r.out, ::testing::Not(HasSubstr("PFC pause frames received 0\n")));
}

}  // namespace
}  // namespace mlnet

// The second hostile-input campaign, kept as regression tests: descriptions, command lines and outputs that
// made the tools hang, crash or silently run something else. Each must now be refused before anything runs,
// with the file, key or flag and what was expected, or (spaces in paths, stale outputs) work as asked.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "trace-test-util.h"
#include "workload/trace-writer.h"

namespace mlnet {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

const char* const kSystem = R"({"scheduling-policy": "LIFO", "endpoint-delay": 10,
    "active-chunks-per-dimension": 1, "preferred-dataset-splits": 4, "all-reduce-implementation": ["ring"],
    "all-gather-implementation": ["ring"], "reduce-scatter-implementation": ["ring"],
    "all-to-all-implementation": ["direct"], "collective-optimization": "localBWAware", "local-mem-bw": 1600})";

const char* const kTopology =
    R"("topology": {"builder": "fat-tree", "k": 4, "rate": "100Gbps", "delay": "1us"})";

struct ToolRun {
    int status;
    std::string out, err;
};

// One argument for sh: single-quoted, so paths with spaces and quotes reach the tool as one argument.
std::string quoted(const std::string& arg) {
    std::string q = "'";
    for (char c : arg) {
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return q + "'";
}

class HostileInputs : public ::testing::Test {
protected:
    void SetUp() override {
        TraceSetBuilder traces(4);
        for (Rank r = 0; r < 4; ++r) {
            traces.rank(r).addCollective("ar", CollectiveType::AllReduce, 64 << 10);
        }
        traces.write(m_dir + "/ar");
    }
    std::string write(const std::string& name, const std::string& text) {
        const std::string path = m_dir + "/" + name;
        writeFileBytes(path, text);
        return path;
    }
    // A description: the fat-tree plus `sections` (JSON members, without braces).
    std::string description(const std::string& name, const std::string& sections = "") {
        return write(name, std::string("{") + kTopology + (sections.empty() ? "" : ", " + sections) + "}");
    }
    ToolRun run(const std::string& tool, const std::vector<std::string>& args,
                const std::string& prefix = "") {
        std::string cmd = prefix + std::string(MLNET_BIN_DIR) + "/" + tool;
        for (const std::string& a : args) {
            cmd += " " + quoted(a);
        }
        cmd += " > " + quoted(m_dir + "/out.txt") + " 2> " + quoted(m_dir + "/err.txt");
        const int raw = std::system(cmd.c_str());
        return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, readFileBytes(m_dir + "/out.txt"),
                readFileBytes(m_dir + "/err.txt")};
    }
    ToolRun ns3(const std::string& network, std::vector<std::string> extra = {},
                const std::string& out = "") {
        std::vector<std::string> args = {"--workload-configuration=" + m_dir + "/ar",
                                         "--system-configuration=" + m_systemPath,
                                         "--network-configuration=" + network, "--quiet",
                                         "--output-dir=" + (out.empty() ? m_dir + "/out" : out)};
        args.insert(args.end(), extra.begin(), extra.end());
        return run("mlnet-ns3", args);
    }
    // Refused as invalid input (exit 2), with every piece of `message` in the error.
    void expectRefused(const ToolRun& r, const std::vector<std::string>& message) {
        EXPECT_EQ(r.status, 2) << r.err;
        for (const std::string& m : message) {
            EXPECT_THAT(r.err, HasSubstr(m));
        }
        EXPECT_THAT(r.err, Not(HasSubstr("terminate called")));
    }

    std::string m_dir = makeTempDir("mlnet-hostile");
    std::string m_systemPath = write("system.json", kSystem);
};

TEST_F(HostileInputs, BackgroundHostsAreDistinctWholeIndicesAndItsFramesMustFitTheNic) {
    const std::string cdf = write("web.cdf", "1000 0\n100000 50\n1000000 100\n");
    const std::string tiny = write("tiny.cdf", "1 0\n1 100\n");
    auto background = [&](const std::string& name, const std::string& cdfPath, const std::string& rest) {
        return description(name, R"("background": {"flow-size-cdf": ")" + cdfPath + "\", " + rest + "}");
    };
    // [0, 0] spun forever looking for a destination other than the source.
    expectRefused(ns3(background("dup.json", cdf, R"("load": 0.3, "hosts": [0, 0])")),
                  {"dup.json", "key 'background.hosts'", "host 0 is listed twice"});
    // A 33-bit index wrapped onto host 1.
    expectRefused(ns3(background("big.json", cdf, R"("load": 0.3, "hosts": [0, 4294967297])")),
                  {"key 'background.hosts'", "4294967297 is not a host index"});
    expectRefused(ns3(background("one.json", cdf, R"("load": 0.3, "hosts": [3])")),
                  {"key 'background.hosts'", "at least two"});
    // Host 4 of a reducing server is its NVSwitch's reduction engine, which carries in-network reductions
    // only.
    expectRefused(ns3(write("engine.json", R"({"topology": {"builder": "rail-optimised", "servers": 1,
        "nics-per-server": 4, "spines": 1, "rate": "100Gbps", "delay": "1us",
        "scale-up": {"npus-per-server": 4, "rate": "1600Gbps", "nvls": true}},
        "background": {"flow-size-cdf": ")" + cdf +
                                               R"(", "load": 0.3, "hosts": [0, 4]}})")),
                  {"engine.json", "key 'background.hosts'", "host index 4 is a switch's reduction engine"});
    // 1-byte flows at load 1 scheduled arrivals until memory ran out: with headers they are 83x the NIC rate.
    expectRefused(ns3(background("tiny.json", tiny, R"("load": 1.0)")),
                  {"tiny.json", "key 'background.load'", "times each NIC's rate", "at most 0.012"});
    // A missing key is reported alone, not with false "unknown key" errors for the others.
    const ToolRun missing =
        ns3(description("noload.json", R"("background": {"flow-size-cdf": "x", "hosts": [0, 1]})"));
    expectRefused(missing, {"key 'background.load'", "needs flow-size-cdf and load"});
    EXPECT_THAT(missing.err, Not(HasSubstr("unknown key")));
}

TEST_F(HostileInputs, JsonIsBoundedInDepthAndEveryKeyAppearsOnce) {
    // 100,000 levels overflowed the stack while the error was formatted, in mlnet-ns3 and mlnet-topology.
    const std::string deep =
        write("deep.json", std::string(R"({"topology": {"builder": "fat-tree", "k": )") +
                               std::string(100000, '[') + std::string(100000, ']') + "}}");
    expectRefused(ns3(deep), {"deep.json", "nested more than 64 levels deep"});
    expectRefused(run("mlnet-topology", {deep}), {"nested more than 64 levels deep"});
    // nlohmann keeps the last of repeated keys; nested repeats went unnoticed.
    expectRefused(ns3(write("dup.json", R"({"topology": {"builder": "fat-tree", "k": 4, "k": 6}})")),
                  {"dup.json", "key 'topology.k' appears more than once"});
    expectRefused(ns3(description("dup2.json", R"("nic": {"payload": "4KB", "payload": "1KB"})")),
                  {"key 'nic.payload' appears more than once"});
    // A huge wrongly typed value is shown cut, not in full.
    std::string many = "1";
    for (int i = 0; i < 100000; ++i) {
        many += ", 1";
    }
    const ToolRun wide = ns3(description("wide.json", R"("nic": {"payload": [)" + many + "]}"));
    EXPECT_EQ(wide.status, 2);
    EXPECT_LT(wide.err.size(), 2000u);
    const ToolRun digits =
        ns3(description("digits.json", R"("nic": {"payload": )" + std::string(200000, '7') + "}"));
    EXPECT_EQ(digits.status, 2);
    EXPECT_LT(digits.err.size(), 2000u);
}

TEST_F(HostileInputs, NumbersAreBoundedBeforeTheirCastAndNeedTheirUnits) {
    // The command line's --seed was bounded; the description's aborted inside ns-3's RNG.
    expectRefused(ns3(description("seed.json", R"("run": {"seed": 4294967087})")),
                  {"key 'run.seed'", "4294967087 is outside 1..4294967086"});
    // Cast to 32 bits, this ran with 1-byte payloads.
    expectRefused(ns3(description("payload.json", R"("nic": {"payload": "4294967297B"})")),
                  {"key 'nic.payload'", "4294967297 B; expected 1 B .. 9000 B"});
    expectRefused(ns3(description("buffer.json", R"("switch": {"buffer": "33554432"})")),
                  {"key 'switch.buffer'", "has no unit"});
    expectRefused(
        ns3(write("rate.json", R"({"topology": {"builder": "fat-tree", "k": 4, "rate": "100000000000",
                                              "delay": "1us"}})")),
        {"key 'topology.rate'", "has no unit"});
    // mlnet-trafficgen --rate=100 was 100 b/s and wrote 0 flows.
    const ToolRun rate = run("mlnet-trafficgen", {"--hosts=4", "--rate=100", "--pattern=permutation",
                                                  "--size=1MB", "--output=" + m_dir + "/flows.txt"});
    EXPECT_EQ(rate.status, 1);
    EXPECT_THAT(rate.err, HasSubstr("--rate=100: has no unit"));
}

TEST_F(HostileInputs, SwitchBuffersQueuesAndThresholdsMustMakeSense) {
    expectRefused(ns3(description("zero.json", R"("switch": {"buffer": "0B"})")), {"key 'switch.buffer'"});
    expectRefused(ns3(description("reserve.json", R"("switch": {"buffer": "1MB", "reserve": "2MB"})")),
                  {"key 'switch.reserve'", "does not fit a 1000000 B buffer"});
    // Too small for the reserves and PFC headroom the switch sets aside: no shared pool at all.
    expectRefused(ns3(description("small.json", R"("switch": {"buffer": "64KB"})")),
                  {"switch 16 (tier 'edge', 4 ports)", "sets aside for reserves"});
    expectRefused(ns3(description("ecn.json", R"("switch": {"buffer": "1MB", "ecn-per-25gbps":
                                                  {"kmin": "2MB", "kmax": "3MB", "pmax": 0.2}})")),
                  {"ECN kmin of 8000000 B", "no packet could ever be marked"});
    expectRefused(ns3(description("window.json", R"("outputs": {"queue-start": "2ms", "queue-end": "1ms"})")),
                  {"key 'outputs.queue-end'", "expected queue-start before queue-end"});
    expectRefused(ns3(description("interval.json", R"("outputs": {"queue-interval": "0us"})")),
                  {"key 'outputs.queue-interval'", "is 0"});
}

// The descriptions the repository ships (scenarios/) stay valid as the rules tighten.
TEST_F(HostileInputs, ShippedDescriptionsAreAccepted) {
    for (const char* path :
         {"scenarios/roce-cc-training/clos-128.json", "scenarios/packet/fat-tree-k4.json"}) {
        const ToolRun r = ns3(std::string(MLNET_SOURCE_DIR) + "/" + path);
        EXPECT_EQ(r.status, 0) << path << ": " << r.err;
    }
}

TEST_F(HostileInputs, SectionsAreHonouredOrRefusedNeverIgnored) {
    expectRefused(
        ns3(description("params.json", R"("congestion-control": {"algorithm": "dcqcn",
                                                     "preset": "paper", "parameters": {"RATE_AI": "20Mb/s"}})")),
        {"key 'congestion-control.parameters'", "'RATE_AI' applies only with the \"config\" preset"});
    // HAS_WIN is read under every preset (whether PFC-only flows keep a window): accepted.
    const ToolRun hasWin = ns3(description("haswin.json", R"("congestion-control": {"algorithm": "none",
                                                     "preset": "paper", "parameters": {"HAS_WIN": 0}})"));
    EXPECT_EQ(hasWin.status, 0) << hasWin.err;
    expectRefused(ns3(description("tier.json", R"("switch": {"tiers": {"spine": {"buffer": "64MB"}}})")),
                  {"key 'switch.tiers'", "no tier 'spine'", "'edge', 'aggregation', 'core'"});
    // Errors name the file and key, not the command line's flags.
    expectRefused(ns3(description("algo.json", R"("congestion-control": {"algorithm": "bogus"})")),
                  {"algo.json", "key 'congestion-control.algorithm'", "expected none, dcqcn"});
    expectRefused(ns3(description("preset.json", R"("congestion-control": {"preset": "bogus"})")),
                  {"key 'congestion-control.preset'", "expected config, paper"});
    // Packet sections without a topology: not ASTRA-sim config errors.
    expectRefused(ns3(write("notopo.json", R"({"switch": {"buffer": "32MB"}})")),
                  {"notopo.json", "key 'topology' is missing"});
    // model-rules is a section of every description: the topology tool takes it as mlnet-ns3 does.
    const std::string rules = description("rules.json", R"("model-rules": {"compat": "hpcc"})");
    EXPECT_EQ(run("mlnet-topology", {rules}).status, 0);
    // mlnet-flows would ignore the switch section (CONFIG sets the switches): refused; model-rules honoured.
    const std::string config = write("config.txt", "FLOW_FILE flows.txt\nCC_MODE 1\nENABLE_QCN 0\n");
    write("flows.txt", "1\n0 1 3 100 1000 2.0\n");
    const ToolRun flows =
        run("mlnet-flows", {config, "--topology=" + description("sw.json", R"("switch": {"buffer": "1MB"})"),
                            "--fct=" + m_dir + "/fct.txt"});
    EXPECT_EQ(flows.status, 2) << flows.err;
    EXPECT_THAT(flows.err, HasSubstr("section 'switch' is not used by mlnet-flows"));
    const ToolRun honoured =
        run("mlnet-flows", {config, "--topology=" + rules, "--fct=" + m_dir + "/fct.txt"});
    EXPECT_EQ(honoured.status, 0) << honoured.err;
    EXPECT_THAT(honoured.out, HasSubstr("model rules: framing hpcc, HPCC queue point"));
}

TEST_F(HostileInputs, CongestionControlModesAndFlagsTakeOnlyTheirValues) {
    write("topo.txt", "2 0 1\n\n0 1 100Gbps 1000ns 0\n");
    const std::string mode99 = write("config99.txt", "TOPOLOGY_FILE topo.txt\nCC_MODE 99\n");
    expectRefused(ns3(mode99), {"config99.txt: line 2: key 'CC_MODE'", "99 is no congestion-control mode"});
    // ASTRA-sim's config.json: a JSON boolean is a flag, never a mode (it ran DCQCN).
    const std::string boolMode =
        write("astra.json", R"({"files": {"topology_file": ")" + m_dir +
                                R"(/topo.txt"}, "congestion_control": {"cc_mode": true}})");
    expectRefused(ns3(boolMode), {"key 'CC_MODE'", "JSON true/false is accepted only for 0/1 keys"});
}

TEST_F(HostileInputs, MemoryIsEstimatedBeforeTheFabricIsBuilt) {
    // k=128 for 4 ranks died of bad_alloc; k=64 takes 1.7 GB.
    const std::string k64 =
        write("k64.json", R"({"topology": {"builder": "fat-tree", "k": 64, "rate": "100Gbps",
                                               "delay": "1us"}})");
    expectRefused(ns3(k64, {"--max-memory=1GB"}),
                  {"k64.json: the packet fabric (65536 hosts, 393216 ports) needs about 1.8 GB",
                   "above the memory limit of 1.0 GB (--max-memory"});
    // The default limit is what the process may have: here its address space.
    const std::string k48 =
        write("k48.json", R"({"topology": {"builder": "fat-tree", "k": 48, "rate": "100Gbps",
                                               "delay": "1us"}})");
    const ToolRun limited =
        run("mlnet-ns3",
            {"--workload-configuration=" + m_dir + "/ar", "--system-configuration=" + m_systemPath,
             "--network-configuration=" + k48, "--quiet", "--output-dir=" + m_dir + "/o48"},
            "ulimit -v 600000; ");
    expectRefused(limited, {"needs about 766 MB", "above the memory limit of 614 MB"});
}

TEST_F(HostileInputs, TheHangCheckTellsASlowNetworkFromADeadlock) {
    // A 1 b/s link and a 1 us hang check ended with "no progress" and a stall report, like a deadlock.
    const ToolRun slow =
        ns3(write("slow.json", R"({"topology": {"builder": "fat-tree", "k": 4, "rate": "1bps",
                                                  "delay": "1us"}})"));
    EXPECT_EQ(slow.status, 3);
    EXPECT_THAT(slow.err,
                AllOf(HasSubstr("frames are still moving: the network is too slow for the hang check"),
                      HasSubstr("(1 b/s, 1 us cable) and arrives in 3")));
    const ToolRun often = ns3(description("often.json", R"("run": {"hang-check": "1us"})"));
    EXPECT_EQ(often.status, 3);
    EXPECT_THAT(often.err, HasSubstr("too slow for the hang check"));
    EXPECT_THAT(often.err, HasSubstr("(100 Gb/s, 1 us cable)"));
}

TEST_F(HostileInputs, PathsAreTakenWholeAndOutputsNeverOverwriteInputsOrEachOther) {
    const std::string network = description("net.json");
    // ns-3's CommandLine cut "my out" at the space and wrote into ./my.
    const std::string spaced = m_dir + "/my out";
    ASSERT_EQ(ns3(network, {}, spaced).status, 0);
    EXPECT_TRUE(fs::exists(spaced + "/summary.json"));
    EXPECT_FALSE(fs::exists(m_dir + "/my"));
    // --pcap over the run's own fct.txt, or over an input, replaced it.
    const std::string out = m_dir + "/pc";
    expectRefused(ns3(network, {"--pcap=" + out + "/fct.txt"}, out),
                  {"the pcap (--pcap) would be the same file as the FCT output"});
    const std::string system = readFileBytes(m_systemPath);
    expectRefused(ns3(network, {"--pcap=" + m_systemPath}), {"would overwrite the system configuration"});
    EXPECT_EQ(readFileBytes(m_systemPath), system);
    // A path is a path: only "empty" itself means no groups (a missing nonempty-groups.json was ignored).
    const ToolRun groups = ns3(network, {"--comm-group-configuration=" + m_dir + "/nonempty-groups.json"});
    EXPECT_EQ(groups.status, 2);
    EXPECT_THAT(groups.err, HasSubstr("nonempty-groups.json"));
    // An earlier run's queue samples do not stay beside a new run's summary.
    const std::string samples = description("samples.json", R"("outputs": {"queue-interval": "1us"})");
    const std::string folder = m_dir + "/again";
    ASSERT_EQ(ns3(samples, {}, folder).status, 0);
    ASSERT_TRUE(fs::exists(folder + "/qlen.txt"));
    ASSERT_EQ(ns3(network, {}, folder).status, 0);
    EXPECT_FALSE(fs::exists(folder + "/qlen.txt"));
    EXPECT_TRUE(fs::exists(folder + "/summary.json"));
}

}  // namespace
}  // namespace mlnet

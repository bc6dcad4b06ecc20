// Flow-file generation: the CDF's closed forms, Poisson arrivals at the offered load, incast, permutation and
// all-to-all patterns (hpcc-bench's files byte for byte, with its fat-trees from mlnet-topology), exact round
// trips through the flow-file reader, determinism per seed, and mlnet-trafficgen's answers to bad options.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "flow-file.h"
#include "flow-generator.h"
#include "flow-size-cdf.h"
#include "hpcc-bench-inputs.h"
#include "network/topology-builders.h"
#include "trace-test-util.h"

namespace mlnet::roce {
namespace {

using ::testing::HasSubstr;

class TrafficGeneration : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = makeTempDir("trafficgen");
        // Sizes uniform in [0, 1000] for half the mass and in [1000, 3000] for the rest: mean 250 + 1000.
        writeFileBytes(m_dir + "/cdf.txt", "0 0\n1000 50\n3000 100\n");
    }
    FlowSizeCdf cdf() {
        Diagnostics diag;
        std::optional<FlowSizeCdf> c = FlowSizeCdf::Load(m_dir + "/cdf.txt", diag);
        EXPECT_TRUE(c.has_value()) << diag.format(Severity::Error);
        return *c;
    }
    static std::vector<FlowHost> hosts(uint32_t n, uint64_t rateBps = 100'000'000'000ull) {
        std::vector<FlowHost> h;
        for (uint32_t i = 0; i < n; ++i) {
            h.push_back({i, rateBps});
        }
        return h;
    }
    struct Run {
        int status;
        std::string out, err;
    };
    Run trafficgen(const std::string& args) {
        const std::string cmd = std::string(MLNET_BIN_DIR) + "/mlnet-trafficgen " + args + " > " + m_dir +
                                "/out.txt 2> " + m_dir + "/err.txt";
        const int raw = std::system(cmd.c_str());
        return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, readFileBytes(m_dir + "/out.txt"),
                readFileBytes(m_dir + "/err.txt")};
    }
    std::string m_dir;
};

TEST_F(TrafficGeneration, CdfInterpolatesLinearlyAndKnowsItsMean) {
    const FlowSizeCdf c = cdf();
    EXPECT_EQ(c.SizeAt(0.25), 500u);
    EXPECT_EQ(c.SizeAt(0.5), 1000u);
    EXPECT_EQ(c.SizeAt(0.75), 2000u);
    EXPECT_EQ(c.SizeAt(0.0), 1u);  // never a zero-byte flow
    EXPECT_DOUBLE_EQ(c.MeanBytes(), 0.5 * 500 + 0.5 * 2000);

    Diagnostics diag;
    writeFileBytes(m_dir + "/bad.txt", "0 0\n1000 60\n900 100\n");
    EXPECT_FALSE(FlowSizeCdf::Load(m_dir + "/bad.txt", diag));
    EXPECT_THAT(diag.firstError(), HasSubstr("bad.txt: line 3: sizes and percentages must not decrease"));
}

TEST_F(TrafficGeneration, PoissonArrivalsOfferTheLoadAndRoundTripThroughTheReader) {
    const FlowDefaults defaults;
    const uint64_t durationNs =
        20'000'000;  // 20 ms at 100 Gb/s, mean 1250 B: ~60,000 flows per host at load 0.3
    const std::vector<FlowSpec> flows = poissonFlows(hosts(16), cdf(), 0.3, durationNs, defaults);
    uint64_t bytes = 0;
    std::map<uint32_t, uint64_t> perSource;
    for (std::size_t i = 0; i < flows.size(); ++i) {
        const FlowSpec& f = flows[i];
        ASSERT_NE(f.srcNode, f.dstNode);
        ASSERT_LT(f.dstNode, 16u);
        ASSERT_GE(f.startNs, defaults.startNs);
        ASSERT_LE(f.startNs, defaults.startNs + durationNs);
        if (i > 0) {
            ASSERT_GE(f.startNs, flows[i - 1].startNs);
        }
        bytes += f.sizeBytes;
        perSource[f.srcNode] += f.sizeBytes;
    }
    const double capacityBytes = 16 * 100e9 / 8 * 0.02;
    EXPECT_NEAR(static_cast<double>(bytes) / capacityBytes, 0.3, 0.3 * 0.03);
    EXPECT_EQ(perSource.size(), 16u);
    for (const auto& [src, b] : perSource) {
        EXPECT_NEAR(static_cast<double>(b) / (capacityBytes / 16), 0.3, 0.3 * 0.1) << "host " << src;
    }
    // The reader gets back exactly what was generated.
    writeFileBytes(m_dir + "/flows.txt", formatFlowFile(flows));
    Diagnostics diag;
    std::vector<FlowSpec> read = loadFlowFile(m_dir + "/flows.txt", buildStar(16, LinkSettings{}), diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    ASSERT_EQ(read.size(), flows.size());
    for (std::size_t i = 0; i < flows.size(); ++i) {
        ASSERT_EQ(read[i].startNs, flows[i].startNs);
        ASSERT_EQ(read[i].sizeBytes, flows[i].sizeBytes);
        ASSERT_EQ(read[i].srcNode, flows[i].srcNode);
        ASSERT_EQ(read[i].dstNode, flows[i].dstNode);
    }
    // A seed gives one file; another seed another.
    EXPECT_EQ(formatFlowFile(poissonFlows(hosts(16), cdf(), 0.3, durationNs, defaults)),
              formatFlowFile(flows));
    FlowDefaults other = defaults;
    other.seed = 2;
    EXPECT_NE(formatFlowFile(poissonFlows(hosts(16), cdf(), 0.3, durationNs, other)), formatFlowFile(flows));
}

TEST_F(TrafficGeneration, IncastRoundsAndPermutations) {
    FlowDefaults defaults;
    const std::vector<FlowSpec> incast = incastFlows(hosts(10), 3, 4, 1'000'000, 5, 50'000, defaults);
    ASSERT_EQ(incast.size(), 20u);
    for (uint32_t r = 0; r < 5; ++r) {
        std::set<uint32_t> senders;
        for (uint32_t i = 0; i < 4; ++i) {
            const FlowSpec& f = incast[r * 4 + i];
            EXPECT_EQ(f.dstNode, 3u);
            EXPECT_NE(f.srcNode, 3u);
            EXPECT_EQ(f.startNs, defaults.startNs + r * 50'000u);
            senders.insert(f.srcNode);
        }
        EXPECT_EQ(senders.size(), 4u) << "round " << r;
    }
    const std::vector<FlowSpec> perm = permutationFlows(hosts(9), 4096, defaults);
    std::set<uint32_t> sources, destinations;
    for (const FlowSpec& f : perm) {
        EXPECT_NE(f.srcNode, f.dstNode);
        sources.insert(f.srcNode);
        destinations.insert(f.dstNode);
    }
    EXPECT_EQ(sources.size(), 9u);
    EXPECT_EQ(destinations.size(), 9u);
}

TEST_F(TrafficGeneration, AllToAllIsEveryOrderedPairBySourceThenDestination) {
    FlowDefaults defaults;
    defaults.startNs = 2'000'000'000;
    std::vector<FlowHost> three = {{7, 100'000'000'000ull}, {2, 100'000'000'000ull}, {5, 100'000'000'000ull}};
    EXPECT_EQ(formatFlowFile(allToAllFlows(three, 4096, defaults)),
              "6\n7 2 3 100 4096 2.000000000\n7 5 3 100 4096 2.000000000\n2 7 3 100 4096 2.000000000\n"
              "2 5 3 100 4096 2.000000000\n5 7 3 100 4096 2.000000000\n5 2 3 100 4096 2.000000000\n");
    EXPECT_THROW(allToAllFlows(hosts(1), 4096, defaults), std::invalid_argument);

    const std::string bench = test::hpccBenchDir();
    Run r = trafficgen("--topology=" + bench +
                       "k8_topo.txt --pattern=all-to-all --size=64000 --output=" + m_dir + "/a2a.txt");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("16256 flows, 1040384000 bytes, 128 hosts"));
}

// The tools write hpcc-bench's fat-trees and flow files byte for byte: the SHA-256 of each published file
// (workloads/hpcc-bench of the HPCC benchmark inputs) against the one made here (hpcc-bench-inputs.h).
TEST_F(TrafficGeneration, ToolsWriteTheBenchFilesByteForByte) {
    const std::pair<const char*, const char*> published[] = {
        {"k4_topo.txt", "1ed18d06810fb5bfbed8f0b4db2b71c183fb63286f4f5c71c71de25ee9b65bfe"},
        {"k8_topo.txt", "a53eb15e239c8b4a742d2f46e0fef47879c7bb6d2d08ad87c923af46683e0973"},
        {"k4_a2a_4MB.txt", "99a4c2c7a7a7e78341f9f080899143e99bc04a561bb62f644160c10499da59c6"},
        {"k4_incast_10MB.txt", "661852405efb3707122df518eb614396937f569f6fa542be619d9237edbe8d0a"},
        {"k8_incast_1MB.txt", "77e05fab1a8c121c8fe322d66a32c78dfc821bf363e4fe1a16c1c3b9eafff483"},
        {"k8_a2a_64KB.txt", "0ed113ae49fd9f72451db6a28680efaccad83cd8ed55e422e445322866736475"},
        {"config-dcqcn.txt", "1f139106479e209444b8dd305fd641a53a65f9d848628d7bc0b1c4b9dd382e80"},
        {"config-dctcp.txt", "9db5f0046409c7ce7bd7270861920f20ce628ee362799f572e854926adc491e7"},
        {"config-hp.txt", "0211a9697e989979a53897d81e36a9b332a83929225df6ce77bfec620fcdf833"},
        {"config-timely.txt", "89dc5afee6742d9762f46dcf11a68e0769b503a33e59fd8d8714f4aafdeed127"},
    };
    for (const auto& [name, sha256] : published) {
        const std::string path = test::hpccBenchDir() + name;
        ASSERT_EQ(std::system(("sha256sum " + path + " > " + m_dir + "/sum.txt").c_str()), 0) << path;
        EXPECT_EQ(readFileBytes(m_dir + "/sum.txt").substr(0, 64), sha256) << name;
    }
}

TEST_F(TrafficGeneration, ToolWritesTheFileAndRejectsBadOptions) {
    const std::string out = m_dir + "/gen.txt";
    Run ok = trafficgen("--hosts=8 --cdf=" + m_dir + "/cdf.txt --load=0.5 --duration=1ms --output=" + out);
    ASSERT_EQ(ok.status, 0) << ok.err;
    EXPECT_THAT(ok.out, HasSubstr("8 hosts, offered load 0."));
    Diagnostics diag;
    EXPECT_FALSE(loadFlowFile(out, buildStar(8, LinkSettings{}), diag).empty());

    const std::pair<std::string, std::string> bad[] = {
        {"--hosts=8x --pattern=permutation --size=1MB", "--hosts=8x: is not a number"},
        {"--hosts=8 --pattern=permutation --size=0", "--size=0: is zero"},
        {"--hosts=8 --cdf=c --load=0 --duration=1ms",
         "--load=0: is out of range; expected a number in (0, 1]"},
        {"--hosts=8 --cdf=c --load=0.3 --duration=5", "--duration=5"},
        {"--hosts=8 --pattern=incast --senders=8 --size=1MB", "--senders=8: is out of range"},
        {"--hosts=8 --pattern=ring --size=1MB",
         "--pattern=ring: expected poisson, incast, permutation or all-to-all"},
        {"--hosts=8 --pattern=permutation --size=1MB --priority=9", "--priority=9: is out of range"},
    };
    for (const auto& [args, message] : bad) {
        Run r = trafficgen(args + " --output=" + m_dir + "/never.txt");
        EXPECT_EQ(r.status, 1) << args;
        EXPECT_THAT(r.err, HasSubstr(message)) << args;
    }
    // Flows that would not fit in memory are refused before any is made, whatever the pattern.
    const std::pair<std::string, std::string> tooMany[] = {
        {"--hosts=4098 --pattern=all-to-all --size=1MB", "all-to-all: about 16789506 flows needs about"},
        {"--hosts=16 --pattern=incast --senders=8 --size=1MB --rounds=16777216",
         "incast: about 134217728 flows"},
        {"--hosts=64 --cdf=" + m_dir + "/cdf.txt --load=1 --duration=100000s", "poisson: about"},
        {"--hosts=16777216 --pattern=permutation --size=1MB", "permutation: about 16777216 flows"},
    };
    for (const auto& [args, message] : tooMany) {
        Run r = trafficgen(args + " --max-memory=100MB --output=" + m_dir + "/never.txt");
        EXPECT_EQ(r.status, 2) << args;
        EXPECT_THAT(r.err, HasSubstr(message)) << args;
        EXPECT_THAT(r.err, HasSubstr("above the memory limit of 100 MB (--max-memory")) << args;
    }
    EXPECT_FALSE(std::filesystem::exists(m_dir + "/never.txt"));
    Run missing =
        trafficgen("--hosts=8 --cdf=" + m_dir + "/none.txt --load=0.3 --duration=1ms --output=" + out);
    EXPECT_EQ(missing.status, 2);
    EXPECT_THAT(missing.err, HasSubstr("none.txt"));
}

}  // namespace
}  // namespace mlnet::roce

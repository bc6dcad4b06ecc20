// SimAI's network inputs (ns3-modules/roce/helper/simai-*): its topology files as a TopologySpec (GPUs as
// hosts, NVSwitches as the scale-up tier, access and pod switches by tier) with the routes SimAI takes,
// errors that name the line and field, and SimAI's reading of SimAI.conf.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hpcc-config.h"
#include "network/routing.h"
#include "simai-config.h"
#include "simai-test-files.h"
#include "simai-topology.h"
#include "trace-test-util.h"

namespace mlnet::test {
namespace {

using namespace mlnet::roce;
using ::testing::HasSubstr;

std::string write(const std::string& dir, const std::string& name, const std::string& text) {
    writeFileBytes(dir + "/" + name, text);
    return dir + "/" + name;
}

std::string topologyError(const std::string& text) {
    const std::string dir = makeTempDir("simai-topo-error");
    Diagnostics diag;
    EXPECT_FALSE(simai::loadSimaiTopology(write(dir, "topo", text), diag).has_value()) << text;
    return diag.hasErrors() ? diag.firstError() : std::string();
}

TEST(SimaiTopology, SpectrumXStyleFileBecomesHostsScaleUpAndTiers) {
    const std::string dir = makeTempDir("simai-topo");
    const std::string path = write(dir, "Spectrum-X_16g_8gps_100Gbps_A100", spectrumXTopology());
    EXPECT_TRUE(simai::isSimaiTopologyFile(path));
    Diagnostics diag;
    simai::SimaiTopologyInfo info;
    std::optional<TopologySpec> spec = simai::loadSimaiTopology(path, diag, &info);
    ASSERT_TRUE(spec) << diag.format(Severity::Error);
    EXPECT_EQ(info.gpus, 16u);
    EXPECT_EQ(info.gpusPerServer, 8u);
    EXPECT_EQ(info.gpuType, "A100");
    EXPECT_EQ(spec->numHosts(), 16u);
    EXPECT_EQ(spec->numSwitches(), 2u + 8 + 4);
    EXPECT_EQ(spec->cables.size(), 64u);
    std::map<std::string, uint32_t> perTier;
    for (uint32_t v = spec->numHosts(); v < spec->numVertices(); ++v) {
        ++perTier[spec->tierName(v)];
    }
    EXPECT_EQ(perTier, (std::map<std::string, uint32_t>{{"asw", 8}, {"psw", 4}, {"scale-up", 2}}));
    // Hosts keep their ids: GPU r is host r, on NVSwitch 16 + r / 8.
    for (uint32_t h = 0; h < 16; ++h) {
        EXPECT_EQ(spec->vertices[h].originalId, h);
        EXPECT_EQ(spec->vertices[h].server, spec->vertices[h < 8 ? 0 : 15].server);
        EXPECT_EQ(spec->numPorts(h), 2u);
    }
    EXPECT_NE(spec->vertices[0].server, spec->vertices[8].server);
    // Routes as SimAI takes them: NVLink inside a server, the rail's access switch between servers on one
    // rail, access - pod - access across rails, over every pod switch.
    const std::unique_ptr<Routing> routing = Routing::build(*spec);
    auto through = [&](uint32_t src, uint32_t dst) {
        std::vector<uint32_t> cables;
        EXPECT_TRUE(routing->path(src, dst, FlowPortAllocator::kFirst, cables));
        std::vector<std::string> tiers;
        for (std::size_t i = 0; i + 1 < cables.size(); ++i) {
            const SpecCable& c = spec->cables[cables[i]];
            const SpecCable& n = spec->cables[cables[i + 1]];
            const uint32_t shared = (c.a == n.a || c.a == n.b) ? c.a : c.b;
            tiers.push_back(spec->tierName(shared));
        }
        return tiers;
    };
    EXPECT_EQ(through(0, 7), (std::vector<std::string>{"scale-up"}));
    EXPECT_EQ(through(0, 8), (std::vector<std::string>{"asw"}));
    EXPECT_EQ(through(0, 9), (std::vector<std::string>{"asw", "psw", "asw"}));
    EXPECT_EQ(routing->equalCostPaths(0, 9), 4u);
    EXPECT_EQ(routing->equalCostPaths(3, 5), 1u);
}

TEST(SimaiTopology, ErrorsNameTheLineAndField) {
    EXPECT_THAT(topologyError("30 8 2 12 64\n"),
                HasSubstr("line 1: header: 5 fields; expected '<nodes> <gpus per "
                          "server> <NVSwitches> <switches> <links> <GPU type>'"));
    EXPECT_THAT(topologyError("30 8x 2 12 64 A100\n"), HasSubstr("line 1: gpus per server: '8x'"));
    // Six header fields are SimAI's even with a bad number among them, so its reader names the field; HPCC's
    // three are not.
    const std::string dir = makeTempDir("simai-topo-kind");
    EXPECT_TRUE(simai::isSimaiTopologyFile(write(dir, "bad-number", "30 8 x 12 64 A100\n")));
    EXPECT_FALSE(simai::isSimaiTopologyFile(write(dir, "hpcc", "4 1 3\n3\n")));
    EXPECT_THAT(topologyError("14 8 2 12 64 A100\n"), HasSubstr("line 1: nodes: 14 nodes hold no GPU"));
    EXPECT_THAT(topologyError("30 7 2 12 64 A100\n"),
                HasSubstr("gpus per server: 7 does not divide the 16 GPUs"));
    std::string text = spectrumXTopology();
    EXPECT_THAT(topologyError(text.substr(0, text.find('\n') + 1) + "16 17 40\n"),
                HasSubstr("line 2: switch id: '40' is not a node id in 0..29"));
    // An NVSwitch cabled to an access switch, and a link line short of its fields.
    std::string bad = text;
    bad.replace(bad.find("\n0 16 "), 6, "\n18 16 ");
    EXPECT_THAT(topologyError(bad), HasSubstr("NVSwitch 16 is cabled to switch 18"));
    std::string shortLink = text;
    shortLink.replace(shortLink.find(" 0.000025ms 0\n"), 14, " 0.000025ms\n");
    EXPECT_THAT(topologyError(shortLink),
                HasSubstr("line 3: expected '<a> <b> <rate> <delay> <error rate>'"));
    EXPECT_THAT(topologyError(text.substr(0, text.rfind("\n", text.size() - 2) + 1)),
                HasSubstr("links: the header announces 64 link lines, found 63"));
}

TEST(SimaiConf, SimAiOverridesAreAppliedAndSaidOnce) {
    const std::string dir = makeTempDir("simai-conf");
    const std::string path = write(dir, "SimAI.conf", simaiConf(dir));
    Diagnostics diag;
    HpccConfig config = loadHpccConfig(path, diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    EXPECT_FALSE(config.globalT);
    EXPECT_FALSE(config.qlenMonFile.empty());
    simai::applySimaiSemantics(config, diag);
    EXPECT_TRUE(config.globalT);
    EXPECT_TRUE(config.qlenMonFile.empty());
    EXPECT_EQ(config.stopTimeNs, UINT64_MAX);
    const std::string warnings = diag.format(Severity::Warning);
    EXPECT_THAT(warnings, HasSubstr("SimAI.conf: line 25: key 'GLOBAL_T' 0 is read as 1"));
    EXPECT_THAT(warnings, HasSubstr("key 'QLEN_MON_FILE' ignored: SimAI never schedules its monitors"));
    EXPECT_THAT(warnings, HasSubstr("key 'FLOW_FILE' ignored: the workload gives the flows"));
    EXPECT_THAT(warnings, HasSubstr("key 'BW_MON_FILE' ignored: SimAI's monitor outputs are not produced"));
}

TEST(SimaiConf, NvswitchLinksNeedNoEcnThresholds) {
    const std::string dir = makeTempDir("simai-ecn");
    Diagnostics diag;
    const HpccConfig config = loadHpccConfig(write(dir, "SimAI.conf", simaiConf(dir)), diag);
    std::optional<TopologySpec> spec =
        simai::loadSimaiTopology(write(dir, "topo", spectrumXTopology()), diag);
    ASSERT_TRUE(spec) << diag.format(Severity::Error);
    // The maps have 100, 200 and 400 Gb/s; the NVLinks run at 2400 Gb/s into switches that do not mark.
    checkConfigAgainstTopology(config, *spec, diag, {simai::kScaleUpTier});
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    checkConfigAgainstTopology(config, *spec, diag);
    ASSERT_TRUE(diag.hasErrors());
    EXPECT_THAT(diag.firstError(), HasSubstr("KMAX_MAP': no entry for the switch link rate"));
}

}  // namespace
}  // namespace mlnet::test

// Tests of the topologies (coordinates, routes, links, fat trees, the HPCC k4 file) and of the network
// configuration loader (ASTRA-sim YAML, its JSON form, HPCC topology files).
#include "analytical-network-test-util.h"
#include "network/hpcc-topology.h"
#include "network/topology-description.h"
#include "trace-test-util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace mlnet::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// The vertices a route visits, starting at src.
std::vector<uint32_t> walk(const Topology& t, uint32_t src, const std::vector<uint32_t>& route) {
    std::vector<uint32_t> vertices{src};
    for (uint32_t id : route) {
        EXPECT_EQ(t.link(id).from, vertices.back()) << "route is not contiguous";
        vertices.push_back(t.link(id).to);
    }
    return vertices;
}

// ---------------------------------------------------------------- topology

TEST(Topology, BandwidthUsesBinaryGigabytes) {
    EXPECT_DOUBLE_EQ(kGbps50, 53.6870912);
}

TEST(Topology, CoordinatesPutDimensionZeroFastest) {
    const Topology t = Topology::multiDimensional({{DimensionKind::Ring, 2, 1, 1},
                                                   {DimensionKind::Switch, 4, 1, 1},
                                                   {DimensionKind::FullyConnected, 3, 1, 1}});
    EXPECT_EQ(t.numNpus(), 24u);
    EXPECT_EQ(t.coordinates(13), (std::vector<uint32_t>{1, 2, 1}));  // 13 = 1 + 2*2 + 8*1
    EXPECT_EQ(t.numVertices(), 24u + 6u);                            // one switch per group of dimension 1
    // Ring of 2: one link each way (2 per group, 12 groups); Switch: 8 per group, 6 groups; FC: 6 per group,
    // 8 groups.
    EXPECT_EQ(t.numLinks(), 12u * 2 + 6u * 8 + 8u * 6);
}

TEST(Topology, RingTakesTheShorterDirectionAndBreaksTiesForward) {
    const Topology t = oneDim(DimensionKind::Ring, 8);
    EXPECT_EQ(walk(t, 0, t.route(0, 5)), (std::vector<uint32_t>{0, 7, 6, 5}));
    EXPECT_EQ(walk(t, 0, t.route(0, 4)), (std::vector<uint32_t>{0, 1, 2, 3, 4}));
    EXPECT_EQ(walk(t, 6, t.route(6, 1)), (std::vector<uint32_t>{6, 7, 0, 1}));
    EXPECT_EQ(Topology::hops(DimensionKind::Ring, 8, 0, 5), 3u);
    EXPECT_EQ(t.numLinks(), 16u);
}

TEST(Topology, LinksAreUniqueAndMatchLinkLookup) {
    for (const Topology& t : {oneDim(DimensionKind::Ring, 2), oneDim(DimensionKind::Ring, 5),
                              oneDim(DimensionKind::FullyConnected, 4), oneDim(DimensionKind::Switch, 4),
                              Topology::fatTree(4, 50, 500)}) {
        const std::vector<Link>& links = t.links();
        ASSERT_EQ(links.size(), t.numLinks());
        std::set<std::pair<uint32_t, uint32_t>> ends;
        for (uint32_t id = 0; id < t.numLinks(); ++id) {
            EXPECT_EQ(t.link(id).from, links[id].from);
            EXPECT_EQ(t.link(id).to, links[id].to);
            EXPECT_NE(links[id].from, links[id].to);
            ends.insert({links[id].from, links[id].to});
        }
        EXPECT_EQ(ends.size(), links.size()) << "duplicate directed link";
    }
    EXPECT_EQ(oneDim(DimensionKind::Ring, 2).numLinks(), 2u);
    EXPECT_EQ(oneDim(DimensionKind::FullyConnected, 4).numLinks(), 12u);
}

TEST(Topology, FullyConnectedAndSwitchRoutes) {
    const Topology fc = oneDim(DimensionKind::FullyConnected, 4);
    EXPECT_EQ(walk(fc, 3, fc.route(3, 1)), (std::vector<uint32_t>{3, 1}));
    const Topology sw = oneDim(DimensionKind::Switch, 4);
    EXPECT_EQ(walk(sw, 0, sw.route(0, 3)), (std::vector<uint32_t>{0, 4, 3}));
    EXPECT_TRUE(sw.isSwitch(4));
    EXPECT_TRUE(sw.route(2, 2).empty());
}

TEST(Topology, MultiDimensionalRoutesInDimensionOrder) {
    const Topology t = Topology::multiDimensional(
        {{DimensionKind::Ring, 4, kGbps50, 500}, {DimensionKind::Switch, 2, kGbps50, 500}});
    // 0 = (0,0) to 6 = (2,1): ring 0->1->2, then through dimension 1's switch of group c0=2 (vertex 8 + 2).
    EXPECT_EQ(walk(t, 0, t.route(0, 6)), (std::vector<uint32_t>{0, 1, 2, 10, 6}));
    for (uint32_t src = 0; src < t.numNpus(); ++src) {
        for (uint32_t dst = 0; dst < t.numNpus(); ++dst) {
            const auto route = t.route(src, dst);
            const uint32_t expected = Topology::hops(DimensionKind::Ring, 4, src % 4, dst % 4) +
                                      Topology::hops(DimensionKind::Switch, 2, src / 4, dst / 4);
            EXPECT_EQ(route.size(), expected) << src << "->" << dst;
            EXPECT_EQ(walk(t, src, route).back(), dst);
        }
    }
}

TEST(Topology, FatTreeRouteLengthsAndEqualCostSpreading) {
    const Topology t = Topology::fatTree(4, 50, 500);
    EXPECT_EQ(t.numNpus(), 16u);
    EXPECT_EQ(t.numVertices(), 36u);
    EXPECT_EQ(t.numLinks(), 96u);
    EXPECT_EQ(t.route(0, 1).size(), 2u);   // same edge switch
    EXPECT_EQ(t.route(0, 2).size(), 4u);   // same pod
    EXPECT_EQ(t.route(0, 15).size(), 6u);  // across the core
    std::set<std::vector<uint32_t>> paths;
    for (uint64_t hash = 0; hash < 64; ++hash) {
        const auto route = t.route(0, 15, hash);
        EXPECT_EQ(walk(t, 0, route).back(), 15u);
        paths.insert(route);
    }
    EXPECT_EQ(paths.size(), 4u);  // (k/2)^2 shortest paths between pods
    EXPECT_EQ(t.route(0, 15, 7), t.route(0, 15, 7));
}

TEST(Topology, HostsNeverForwardInSwitchedNetworks) {
    // Hosts 0, 1, 2; switches 3..6. Host 1 is dual-homed on switches 3 and 4, which host 0 and host 2 hang
    // off: 0 - 3 - 1 - 4 - 2 would beat the switch path 0 - 3 - 5 - 6 - 4 - 2 if hosts forwarded.
    const Topology t = graphOf(3, 4, {{0, 3}, {1, 3}, {1, 4}, {2, 4}, {3, 5}, {5, 6}, {6, 4}});
    for (uint64_t port = 10000; port < 10016; ++port) {
        EXPECT_EQ(walk(t, 0, t.route(0, 2, port)), (std::vector<uint32_t>{0, 3, 5, 6, 4, 2}));
    }
    EXPECT_EQ(walk(t, 1, t.route(1, 2)), (std::vector<uint32_t>{1, 4, 2}));
    EXPECT_EQ(walk(t, 0, t.route(0, 1)), (std::vector<uint32_t>{0, 3, 1}));
}

TEST(Topology, HostsCabledToHostsForward) {
    // A switchless ring of four hosts (ASTRA-sim's ns-3 "ring" topology files): non-neighbours go through the
    // host between them, the shorter way round.
    const Topology t = graphOf(4, 0, {{0, 1}, {1, 2}, {2, 3}, {3, 0}});
    EXPECT_EQ(walk(t, 0, t.route(0, 1)), (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(walk(t, 0, t.route(0, 3)), (std::vector<uint32_t>{0, 3}));
    EXPECT_EQ(t.route(0, 2).size(), 2u);
    EXPECT_EQ(t.spec()->numHosts(), 4u);
    EXPECT_TRUE(t.spec()->hostsForward());
}

TEST(Topology, HpccK4FileIsAThreeTierFatTree) {
    const Topology t = loadK4();
    EXPECT_EQ(t.numNpus(), 16u);
    EXPECT_EQ(t.numVertices() - t.numNpus(), 20u);
    EXPECT_EQ(t.numLinks(), 96u);  // 48 cables, one link each way
    // Hosts 0 and 15 sit in different pods: host-ToR-agg-core-agg-ToR-host.
    const auto route = t.route(0, 15, 3);
    ASSERT_EQ(route.size(), 6u);
    const auto vertices = walk(t, 0, route);
    for (std::size_t i = 1; i + 1 < vertices.size(); ++i) {
        EXPECT_TRUE(t.isSwitch(vertices[i]));
    }
    // File ids 16..35 are the switches and map to vertices 16..35; the core is 32..35.
    EXPECT_GE(vertices[3], 32u);
    const Topology built = Topology::fatTree(4, 12.5 * 1e9 / 1073741824.0, 1000);
    for (uint32_t a = 0; a < 16; ++a) {
        for (uint32_t b = 0; b < 16; ++b) {
            EXPECT_EQ(t.route(a, b).size(), built.route(a, b).size()) << a << "->" << b;
        }
    }
    EXPECT_DOUBLE_EQ(t.link(route[0]).bandwidthBytesPerNs, 12.5);  // 100 Gb/s
    EXPECT_DOUBLE_EQ(t.link(route[0]).latencyNs, 1000);
}

// ---------------------------------------------------------------- configuration

class NetworkConfigTest : public ::testing::Test {
protected:
    std::string write(const std::string& name, const std::string& text) {
        const std::string path = m_dir + "/" + name;
        writeFileBytes(path, text);
        return path;
    }
    // Loads a file expected to fail and returns the first error.
    std::string failure(const std::string& name, const std::string& text) {
        const std::string path = write(name, text);
        Diagnostics diag;
        const auto spec = loadTopologyDescription(path, diag);
        EXPECT_TRUE(diag.hasErrors()) << name;
        EXPECT_FALSE(spec) << name;
        EXPECT_THAT(diag.firstError(), HasSubstr(path));
        return diag.firstError();
    }
    std::string m_dir = makeTempDir("network-config");
};

const char* kValidYaml =
    "topology: [ Ring, Switch ]\nnpus_count: [ 4, 2 ]\nbandwidth: [ 50.0, 25.5 ]  # GB/s\n"
    "latency: [ 500.0, 936.25 ]  # ns\n";

TEST_F(NetworkConfigTest, YamlAndJsonLoadTheSameNetwork) {
    Diagnostics diag;
    const auto yaml = loadTopologyDescription(write("net.yml", kValidYaml), diag);
    const auto json = loadTopologyDescription(
        write("net.json",
              R"({"topology": ["Ring", "Switch"], "npus_count": [4, 2], "bandwidth": [50, 25.5],
                  "latency": [500, 936.25]})"),
        diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    ASSERT_TRUE(yaml && json);
    ASSERT_EQ(yaml->dimensions.size(), 2u);
    ASSERT_EQ(json->dimensions.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(yaml->dimensions[i].kind, json->dimensions[i].kind);
        EXPECT_EQ(yaml->dimensions[i].npus, json->dimensions[i].npus);
        EXPECT_EQ(yaml->dimensions[i].bandwidthBytesPerNs, json->dimensions[i].bandwidthBytesPerNs);
        EXPECT_EQ(yaml->dimensions[i].latencyNs, json->dimensions[i].latencyNs);
    }
    EXPECT_EQ(yaml->dimensions[1].kind, DimensionKind::Switch);
    EXPECT_DOUBLE_EQ(yaml->dimensions[0].bandwidthBytesPerNs, 53.6870912);
    EXPECT_DOUBLE_EQ(yaml->dimensions[1].latencyNs, 936.25);
    EXPECT_EQ(Topology::fromSpec(yaml).numNpus(), 8u);
}

TEST_F(NetworkConfigTest, ScalarsDescribeOneDimension) {
    Diagnostics diag;
    const auto config = loadTopologyDescription(
        write("scalar.yml", "topology: FullyConnected\nnpus_count: 8\nbandwidth: 50\nlatency: 0\n"), diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    ASSERT_EQ(config->dimensions.size(), 1u);
    EXPECT_EQ(config->dimensions[0].kind, DimensionKind::FullyConnected);
    EXPECT_EQ(config->dimensions[0].latencyNs, 0.0);
}

TEST_F(NetworkConfigTest, EachErrorNamesFileKeyAndExpectation) {
    const std::string base = "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n";
    std::string e = failure("unknown.yml", base + "boost-mode: 1\n");
    EXPECT_THAT(e, HasSubstr("line 5"));
    EXPECT_THAT(e, HasSubstr("unknown key 'boost-mode'"));
    EXPECT_THAT(e, HasSubstr("expected topology, npus_count, bandwidth and latency"));

    e = failure("length.yml",
                "topology: [ Ring ]\nnpus_count: [ 8, 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n");
    EXPECT_THAT(e, HasSubstr("key 'npus_count'"));
    EXPECT_THAT(e, HasSubstr("expected one entry per dimension"));

    e = failure("one.yml", "topology: [ Ring ]\nnpus_count: [ 1 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n");
    EXPECT_THAT(e, HasSubstr("line 2: key 'npus_count': entry 0 1; expected an integer > 1"));

    e = failure("bw.yml", "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 0 ]\nlatency: [ 500 ]\n");
    EXPECT_THAT(e, HasSubstr("line 3: key 'bandwidth': entry 0 0; expected a number in 1e-06..1e+06 (GB/s)"));

    e = failure("lat.yml", "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ -1 ]\n");
    EXPECT_THAT(e, HasSubstr("line 4: key 'latency': entry 0 -1; expected a number in 0..1e+12 (ns)"));

    // Physical ranges: values beyond them used to overflow into iteration times shorter than the baseline.
    e = failure("huge-bw.yml",
                "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 1e99 ]\nlatency: [ 500 ]\n");
    EXPECT_THAT(e, HasSubstr("key 'bandwidth': entry 0 1e99; expected a number in 1e-06..1e+06 (GB/s)"));
    e = failure("tiny-bw.yml",
                "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 1e-9 ]\nlatency: [ 500 ]\n");
    EXPECT_THAT(e, HasSubstr("key 'bandwidth'"));
    e = failure("huge-lat.yml",
                "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 1e99 ]\n");
    EXPECT_THAT(e, HasSubstr("key 'latency': entry 0 1e99; expected a number in 0..1e+12 (ns)"));

    e = failure("name.yml", "topology: [ Torus ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n");
    EXPECT_THAT(
        e, HasSubstr("key 'topology': entry 0 'Torus' is not a topology; expected Ring, FullyConnected"));

    e = failure("fattree.yml", "topology: FatTree\nnpus_count: 8\nbandwidth: 50\nlatency: 500\n");
    EXPECT_THAT(e, HasSubstr("key 'topology'"));  // a JSON-only extension

    e = failure("missing-key.yml", "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\n");
    EXPECT_THAT(e, HasSubstr("missing key 'latency'"));

    e = failure("twice.yml", base + "latency: [ 600 ]\n");
    EXPECT_THAT(e, HasSubstr("line 5: key 'latency' appears more than once"));

    e = failure("nested.yml",
                "topology: [ [ Ring ] ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n");
    EXPECT_THAT(e, HasSubstr("key 'topology': expected a name or number"));

    e = failure("malformed.yml", "topology: [ Ring\nnpus_count: [ 8 ]\n");
    EXPECT_THAT(e, HasSubstr("malformed YAML"));
    EXPECT_THAT(e, HasSubstr(": line "));

    e = failure("empty.yml", "");
    EXPECT_THAT(e, HasSubstr("expected a YAML mapping"));

    Diagnostics diag;
    loadTopologyDescription(m_dir + "/absent.yml", diag);
    EXPECT_THAT(diag.firstError(), HasSubstr(m_dir + "/absent.yml: cannot open"));
}

TEST_F(NetworkConfigTest, JsonErrors) {
    std::string e = failure("unknown.json", R"({"topology": "Ring", "npus_count": 8, "bandwidth": 50,
        "latency": 500, "latency_ns": 1})");
    EXPECT_THAT(e, HasSubstr("unknown key 'latency_ns'"));

    e = failure("malformed.json", "{\"topology\": \"Ring\",\n\"npus_count\": 8,,\n}");
    EXPECT_THAT(e, HasSubstr("line 2: malformed JSON"));

    e = failure("string-number.json",
                R"({"topology": "Ring", "npus_count": "8", "bandwidth": 50, "latency": 5})");
    EXPECT_THAT(e, HasSubstr("key 'npus_count': value '8'; expected an integer > 1"));

    e = failure("twice.json", R"({"topology": "Ring", "npus_count": 8, "bandwidth": 50, "latency": 5,
        "bandwidth": 60})");
    EXPECT_THAT(e, HasSubstr("key 'bandwidth' appears more than once"));

    e = failure("bool.json", R"({"topology": "Ring", "npus_count": 8, "bandwidth": true, "latency": 5})");
    EXPECT_THAT(e, HasSubstr("key 'bandwidth': true is neither a name nor a number"));

    e = failure("fattree-odd.json", R"({"topology": "FatTree", "k": 5, "bandwidth": 50, "latency": 500})");
    EXPECT_THAT(e, HasSubstr("key 'k': value 5; expected an even integer"));

    e = failure("file-mixed.json", R"({"topology-file": "t.txt", "npus_count": 8})");
    EXPECT_THAT(e, HasSubstr("key 'npus_count': cannot be combined with 'topology-file'"));
}

TEST_F(NetworkConfigTest, JsonGraphTopologies) {
    Diagnostics diag;
    const auto fatTree = loadTopologyDescription(
        write("ft.json", R"({"topology": "FatTree", "k": 4, "bandwidth": 50, "latency": 500})"), diag);
    fs::create_directories(m_dir + "/topo");
    fs::copy_file(kK4Topo, m_dir + "/topo/k4.txt");
    const auto file =
        loadTopologyDescription(write("file.json", R"({"topology-file": "topo/k4.txt"})"), diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    ASSERT_TRUE(fatTree && file);
    EXPECT_EQ(Topology::fromSpec(fatTree).numNpus(), 16u);
    EXPECT_EQ(Topology::fromSpec(fatTree).link(0).latencyNs, 500.0);
    EXPECT_EQ(Topology::fromSpec(file).numNpus(), 16u);
    EXPECT_EQ(Topology::fromSpec(file).route(0, 15).size(), 6u);
}

TEST_F(NetworkConfigTest, HpccTopologyErrorsNameTheLine) {
    auto hpccError = [&](const std::string& name, const std::string& text) {
        const std::string path = write(name, text);
        Diagnostics diag;
        EXPECT_FALSE(loadHpccTopologyFile(path, diag).has_value()) << name;
        EXPECT_THAT(diag.firstError(), HasSubstr(path));
        return diag.firstError();
    };
    const std::string head = "3 1 2\n2\n";
    EXPECT_THAT(hpccError("rate.txt", head + "0 2 100Gbs 1000ns 0\n1 2 100Gbps 1000ns 0\n"),
                HasSubstr("line 3: rate '100Gbs'"));
    EXPECT_THAT(hpccError("delay.txt", head + "0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000 0\n"),
                HasSubstr("line 4: delay '1000'"));
    EXPECT_THAT(hpccError("node.txt", head + "0 2 100Gbps 1000ns 0\n1 7 100Gbps 1000ns 0\n"),
                HasSubstr("line 4: link ends '1' '7'"));
    EXPECT_THAT(hpccError("short.txt", head + "0 2 100Gbps 1000ns 0\n"),
                HasSubstr("announces 2 link lines, found 1"));
    EXPECT_THAT(hpccError("header.txt", "36 8 20 48 1 A100\n"), HasSubstr("line 1: SimAI's 6-field header"));
    EXPECT_THAT(hpccError("header3.txt", "36 8\n"), HasSubstr("line 1: expected the header"));
    EXPECT_THAT(hpccError("lonely.txt", "4 1 2\n3\n0 3 100Gbps 1us 0\n1 3 100Gbps 1us 0\n"),
                HasSubstr("host 2 has no link"));
    EXPECT_THAT(hpccError("cut.txt", "5 2 3\n3 4\n0 3 100Gbps 1us 0\n1 3 100Gbps 1us 0\n2 4 100Gbps 1us 0\n"),
                HasSubstr("host 2 has no path to host 0 through switches"));

    Diagnostics diag;
    auto ok = loadHpccTopologyFile(write("ok.txt", head + "0 2 100Gbps 0.001ms 0\n1 2 25GBps 1us 0\n"), diag);
    ASSERT_TRUE(ok.has_value()) << diag.format(Severity::Error);
    const Topology t = Topology::fromSpec(std::make_shared<const TopologySpec>(std::move(*ok)));
    EXPECT_DOUBLE_EQ(t.link(0).latencyNs, 1000.0);
    EXPECT_DOUBLE_EQ(t.link(2).bandwidthBytesPerNs, 25.0);
}

// ASTRA-sim's analytical network files as its examples write them (master examples/network/analytical, the
// regression template, the c94c746 analytical example): one dimension each, YAML flow lists and comments.
TEST_F(NetworkConfigTest, AstraSimExampleNetworksLoad) {
    const std::pair<const char*, const char*> files[] = {
        {"Ring_4npus.yml",
         "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50.0 ]  # GB/s\nlatency: [ 500.0 ]  # ns\n"},
        {"Ring_8npus.yml",
         "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50.0 ]  # GB/s\nlatency: [ 500.0 ]  # ns\n"},
        {"Ring_16npus.yml",
         "topology: [ Ring ]\nnpus_count: [ 16 ]\nbandwidth: [ 50.0 ]  # GB/s\nlatency: [ 500.0 ]  # ns\n"},
        {"HGX-H100-validated.yml",
         "topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 400.0 ]  # GB/s\nlatency: [ 936.25 ]  # "
         "ns\n"},
        {"network_cfg.yml",
         "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50.0 ]  # GB/s\nlatency: [ 500.0 ]  # ns\n"},
        {"network.yml",
         "topology: [ FullyConnected ]\nnpus_count: [ 8 ]\nbandwidth: [ 50.0 ]  # GB/s\nlatency: [ 500.0 ]  "
         "# ns\n"},
    };
    for (const auto& [name, text] : files) {
        Diagnostics diag;
        const auto config = loadTopologyDescription(write(name, text), diag);
        EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
        ASSERT_TRUE(config) << name;
        EXPECT_EQ(config->dimensions.size(), 1u) << name;
        EXPECT_GE(Topology::fromSpec(config).numNpus(), 4u);
        if (std::string(name) == "HGX-H100-validated.yml") {
            EXPECT_EQ(config->dimensions[0].kind, DimensionKind::Switch);
            EXPECT_EQ(config->dimensions[0].latencyNs, 936.25);
        }
    }
}

}  // namespace
}  // namespace mlnet::test

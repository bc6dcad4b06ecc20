// The one network description: builders (node, link and equal-cost path counts), the HPCC topology reader and
// writer, structural routes against breadth-first routes of the same network, ECMP spread, multi-dimensional
// hop counts against the analytical model, and the JSON description's messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <random>

#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "hpcc-bench-inputs.h"
#include "network/hpcc-topology.h"
#include "network/routing.h"
#include "network/topology-builders.h"
#include "network/topology-description.h"
#include "network/topology.h"
#include "trace-test-util.h"

namespace mlnet {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

uint64_t paths(const TopologySpec& spec, uint32_t a, uint32_t b) {
    return Routing::build(spec)->equalCostPaths(a, b);
}

uint32_t hops(const TopologySpec& spec, uint32_t a, uint32_t b,
              uint16_t flowPort = FlowPortAllocator::kFirst) {
    std::vector<uint32_t> cables;
    EXPECT_TRUE(Routing::build(spec)->path(a, b, flowPort, cables)) << a << " -> " << b;
    return static_cast<uint32_t>(cables.size());
}

void expectValid(const TopologySpec& spec) {
    Diagnostics diag;
    EXPECT_TRUE(spec.validate(diag)) << diag.format(Severity::Error);
}

TEST(TopologyBuilders, FatTreeCountsNodesLinksAndPaths) {
    for (uint32_t k : {4u, 8u, 16u}) {
        SCOPED_TRACE(k);
        const TopologySpec t = buildFatTree(k, LinkSettings{});
        expectValid(t);
        EXPECT_EQ(t.numHosts(), k * k * k / 4);
        EXPECT_EQ(t.numSwitches(), 5 * k * k / 4);
        EXPECT_EQ(t.cables.size(), 3u * k * k * k / 4);
        const uint32_t half = k / 2;
        EXPECT_EQ(paths(t, 0, 1), 1u);                          // same edge switch
        EXPECT_EQ(paths(t, 0, half), half);                     // same pod: one path per aggregation switch
        EXPECT_EQ(paths(t, 0, t.numHosts() - 1), half * half);  // across the core
        EXPECT_EQ(hops(t, 0, 1), 2u);
        EXPECT_EQ(hops(t, 0, half), 4u);
        EXPECT_EQ(hops(t, 0, t.numHosts() - 1), 6u);
        EXPECT_EQ(t.tierName(t.numHosts()), "edge");
        EXPECT_EQ(t.tierName(t.numVertices() - 1), "core");
    }
}

TEST(TopologyBuilders, ClosTwoAndThreeTiers) {
    ClosShape two;
    two.leavesPerPod = 8;
    two.hostsPerLeaf = 16;
    two.spinesPerPod = 8;
    const TopologySpec leafSpine = buildClos(two);
    expectValid(leafSpine);
    EXPECT_EQ(leafSpine.numHosts(), 128u);
    EXPECT_EQ(leafSpine.numSwitches(), 16u);
    EXPECT_EQ(leafSpine.cables.size(), 128u + 64u);
    EXPECT_EQ(paths(leafSpine, 0, 15), 1u);
    EXPECT_EQ(paths(leafSpine, 0, 16), 8u);
    EXPECT_EQ(hops(leafSpine, 0, 127), 4u);

    ClosShape three;
    three.pods = 3;
    three.leavesPerPod = 2;
    three.spinesPerPod = 2;
    three.hostsPerLeaf = 4;
    three.coresPerSpine = 3;
    const TopologySpec clos = buildClos(three);
    expectValid(clos);
    EXPECT_EQ(clos.numHosts(), 24u);
    EXPECT_EQ(clos.numSwitches(), 6u + 6u + 6u);
    EXPECT_EQ(clos.cables.size(), 24u + 3u * 2 * 2 + 3u * 2 * 3);
    EXPECT_EQ(paths(clos, 0, 4), 2u);   // other leaf, same pod
    EXPECT_EQ(paths(clos, 0, 23), 6u);  // other pod: spines x cores per spine
    EXPECT_EQ(hops(clos, 0, 23), 6u);
}

TEST(TopologyBuilders, RailOptimisedNumbersRanksServerMajor) {
    const TopologySpec rail = buildRailOptimised(4, 8, 2, LinkSettings{}, LinkSettings{});
    expectValid(rail);
    EXPECT_EQ(rail.numHosts(), 32u);
    EXPECT_EQ(rail.numSwitches(), 8u + 2u);
    EXPECT_EQ(rail.numRanks(), 32u);
    // Rank 9 is server 1, GPU 1: on rail 1, the second host of that rail's block.
    EXPECT_EQ(rail.hostOfRank(9), 1u * 4 + 1);
    EXPECT_EQ(rail.vertices[rail.hostOfRank(9)].server, 1u);
    const uint32_t gpu0Server0 = rail.hostOfRank(0), gpu0Server3 = rail.hostOfRank(24);
    const uint32_t gpu1Server0 = rail.hostOfRank(1);
    EXPECT_EQ(hops(rail, gpu0Server0, gpu0Server3), 2u);  // same rail: through the rail switch only
    EXPECT_EQ(hops(rail, gpu0Server0, gpu1Server0), 4u);  // other rail: through a spine
    EXPECT_EQ(paths(rail, gpu0Server0, gpu1Server0), 2u);
}

TEST(TopologyBuilders, ScaleUpCarriesTrafficInsideAServer) {
    ClosShape s;
    s.leavesPerPod = 2;
    s.hostsPerLeaf = 8;
    s.spinesPerPod = 2;
    TopologySpec spec = buildClos(s);
    LinkSettings nvlink;
    nvlink.rateBps = 3'600'000'000'000ull;
    nvlink.delayPs = 250'000;
    addScaleUp(spec, 4, nvlink);
    expectValid(spec);
    EXPECT_EQ(spec.numSwitches(), 4u + 4u);
    EXPECT_EQ(spec.numPorts(0), 2u);
    std::vector<uint32_t> cables;
    ASSERT_TRUE(Routing::build(spec)->path(0, 3, FlowPortAllocator::kFirst, cables));
    ASSERT_EQ(cables.size(), 2u);
    EXPECT_EQ(spec.cables[cables[0]].rateBps, nvlink.rateBps);  // same server: the scale-up switch
    ASSERT_TRUE(Routing::build(spec)->path(0, 4, FlowPortAllocator::kFirst, cables));
    EXPECT_EQ(spec.cables[cables[0]].rateBps, LinkSettings{}.rateBps);  // next server: the NIC
    EXPECT_EQ(cables.size(), 2u);                                       // same leaf
    EXPECT_EQ(spec.tierName(spec.numVertices() - 1), "scale-up");
}

TEST(TopologyBuilders, MultiDimensionalHopsEqualTheAnalyticalModel) {
    const double bw = gigabytesPerSecondToBytesPerNs(50);
    for (const std::vector<Dimension>& dims :
         {std::vector<Dimension>{{DimensionKind::Ring, 4, bw, 500}, {DimensionKind::Switch, 4, bw, 700}},
          std::vector<Dimension>{{DimensionKind::FullyConnected, 4, bw, 500},
                                 {DimensionKind::Ring, 5, bw, 100}},
          std::vector<Dimension>{{DimensionKind::Ring, 2, bw, 500},
                                 {DimensionKind::Ring, 8, bw, 500},
                                 {DimensionKind::Switch, 2, bw, 10}}}) {
        const TopologySpec spec = buildMultiDimensional(dims);
        expectValid(spec);
        const Topology analytical = Topology::multiDimensional(dims);
        ASSERT_EQ(spec.numHosts(), analytical.numNpus());
        ASSERT_EQ(spec.numVertices(), analytical.numVertices());
        const auto routing = Routing::build(spec);
        std::vector<uint32_t> cables;
        for (uint32_t a = 0; a < spec.numHosts(); ++a) {
            for (uint32_t b = 0; b < spec.numHosts(); ++b) {
                ASSERT_TRUE(routing->path(a, b, 0, cables));
                const std::vector<uint32_t> links = analytical.route(a, b);
                ASSERT_EQ(cables.size(), links.size()) << a << " -> " << b;
                // The same vertices in the same order.
                uint32_t v = a;
                for (std::size_t i = 0; i < cables.size(); ++i) {
                    const SpecCable& c = spec.cables[cables[i]];
                    v = c.a == v ? c.b : c.a;
                    EXPECT_EQ(v, analytical.link(links[i]).to) << a << " -> " << b << " hop " << i;
                }
            }
        }
    }
    const TopologySpec ring = buildMultiDimensional({{DimensionKind::Ring, 8, bw, 500}});
    EXPECT_EQ(ring.numPorts(0), 2u);  // one port per ring neighbour
    EXPECT_EQ(ring.cables[0].rateBps, 429'496'729'600ull);
    EXPECT_EQ(ring.cables[0].delayPs, 500'000u);
    EXPECT_TRUE(ring.hostsForward());
}

// Routes the builders write from the structure must equal what breadth-first search finds in the same network
// read back from an HPCC file.
TEST(TopologyRouting, StructuralRoutesEqualSearchedRoutes) {
    ClosShape three;
    three.pods = 2;
    three.leavesPerPod = 3;
    three.spinesPerPod = 2;
    three.hostsPerLeaf = 3;
    three.coresPerSpine = 2;
    ClosShape two;
    two.leavesPerPod = 4;
    two.hostsPerLeaf = 5;
    two.spinesPerPod = 3;
    const std::string dir = makeTempDir("routes");
    for (const TopologySpec& built : {buildFatTree(4, LinkSettings{}), buildFatTree(8, LinkSettings{}),
                                      buildClos(three), buildClos(two)}) {
        SCOPED_TRACE(built.source);
        const std::string path = dir + "/topo.txt";
        writeFileBytes(path, formatHpccTopology(built));
        Diagnostics diag;
        const auto read = loadHpccTopologyFile(path, diag);
        ASSERT_TRUE(read) << diag.format(Severity::Error);
        EXPECT_TRUE(read->structuralRoutes.empty());
        const auto structural = Routing::build(built);
        const auto searched = Routing::build(*read);
        for (uint32_t v = 0; v < built.numVertices(); ++v) {
            for (uint32_t dst = 0; dst < built.numHosts(); ++dst) {
                if (v == dst) {
                    continue;
                }
                const PortSpan a = structural->nextPorts(v, dst), b = searched->nextPorts(v, dst);
                ASSERT_EQ(std::vector<uint16_t>(a.ports, a.ports + a.count),
                          std::vector<uint16_t>(b.ports, b.ports + b.count))
                    << "vertex " << v << " to host " << dst;
            }
        }
        EXPECT_LE(structural->stateEntries(), 4 * (built.cables.size() * 2 + built.numHosts()));
    }
}

TEST(TopologyRouting, EcmpSpreadsFlowsEvenlyOverTheCore) {
    const TopologySpec t = buildFatTree(8, LinkSettings{});
    const auto routing = Routing::build(t, 7);
    const uint32_t coreBase = t.numVertices() - 16;
    std::vector<uint64_t> perCore(16, 0);
    std::mt19937_64 random(42);
    FlowPortAllocator ports(t.numHosts());
    std::vector<uint32_t> cables;
    const int flows = 10'000;
    for (int f = 0; f < flows; ++f) {
        const uint32_t src = static_cast<uint32_t>(random() % 128);
        uint32_t dst = static_cast<uint32_t>(random() % 128);
        while (dst / 16 == src / 16) {  // another pod, so the flow crosses the core
            dst = static_cast<uint32_t>(random() % 128);
        }
        ASSERT_TRUE(routing->path(src, dst, ports.next(src), cables));
        const SpecCable& up = t.cables[cables[2]];  // aggregation -> core
        ++perCore[std::max(up.a, up.b) - coreBase];
    }
    // Each core should see flows/16 = 625 flows; a binomial standard deviation is about 24. Allow 5 of them.
    const double mean = flows / 16.0, sigma = std::sqrt(flows * (1.0 / 16) * (15.0 / 16));
    for (uint32_t c = 0; c < 16; ++c) {
        EXPECT_NEAR(static_cast<double>(perCore[c]), mean, 5 * sigma) << "core " << c;
    }
}

TEST(TopologyRouting, StateGrowsWithPortsNotWithHostPairs) {
    const TopologySpec t = buildFatTree(16, LinkSettings{});
    const uint64_t ports = 2 * t.cables.size();
    EXPECT_LE(Routing::build(t)->stateEntries(), 2 * ports + t.numHosts());
}

class HpccTopologyFile : public ::testing::Test {
protected:
    std::string write(const std::string& name, const std::string& text) {
        const std::string path = m_dir + "/" + name;
        writeFileBytes(path, text);
        return path;
    }
    std::string error(const std::string& text) {
        Diagnostics diag;
        EXPECT_FALSE(loadHpccTopologyFile(write("topo.txt", text), diag).has_value()) << text;
        return diag.firstError();
    }
    std::string m_dir = makeTempDir("hpcc-topology");
};

// A switch with more ports than routes can number (16 bits): named with its count, instead of a routing table
// whose truncated ports looped until the stack overflowed. 65,535 ports still load.
TEST_F(HpccTopologyFile, SwitchWithMoreThan65535PortsIsAnError) {
    auto star = [](uint32_t hosts) {
        std::string text =
            std::to_string(hosts + 1) + " 1 " + std::to_string(hosts) + "\n" + std::to_string(hosts) + "\n";
        for (uint32_t h = 0; h < hosts; ++h) {
            text += std::to_string(h) + " " + std::to_string(hosts) + " 100Gbps 1000ns 0\n";
        }
        return text;
    };
    EXPECT_THAT(error(star(65536)), HasSubstr("switch 65536 has 65536 links; at most 65535 per node"));
    Diagnostics diag;
    EXPECT_TRUE(loadHpccTopologyFile(write("ok.txt", star(65535)), diag).has_value()) << diag.firstError();
}

TEST_F(HpccTopologyFile, BenchTopologiesKeepRawIds) {
    Diagnostics diag;
    const auto k4 = loadHpccTopologyFile(test::hpccBenchDir() + "k4_topo.txt", diag);
    const auto k8 = loadHpccTopologyFile(test::hpccBenchDir() + "k8_topo.txt", diag);
    ASSERT_TRUE(k4 && k8) << diag.format(Severity::Error);
    EXPECT_EQ(diag.warningCount(), 0u) << diag.format(Severity::Warning);
    EXPECT_EQ(k4->numVertices(), 36u);
    EXPECT_EQ(k4->numSwitches(), 20u);
    EXPECT_EQ(k4->vertices[16].originalId, 16u);
    EXPECT_EQ(k4->cables.size(), 48u);
    EXPECT_EQ(k4->numHosts(), 16u);
    const SpecCable& first = k4->cables.front();
    EXPECT_EQ(first.a, 0u);
    EXPECT_EQ(first.b, 16u);
    EXPECT_EQ(first.rateBps, 100'000'000'000u);
    EXPECT_EQ(first.delayPs, 1'000'000u);
    EXPECT_EQ(first.errorRate, 0.0);
    EXPECT_EQ(first.line, 3);
    EXPECT_EQ(k8->numVertices(), 208u);
    EXPECT_EQ(k8->cables.size(), 384u);
    EXPECT_EQ(k8->numHosts(), 128u);
    EXPECT_EQ(paths(*k8, 0, 127), 16u);
}

// The HPCC paper's 320-host fat-tree (scripts/bench-roce --websearch, scenarios/hpcc-fct): five pods of four
// ToRs with 16 hosts at 100 Gb/s, four aggregation switches per pod, 16 cores, 400 Gb/s above the hosts, its
// links listed tier by tier as its file has them.
TEST_F(HpccTopologyFile, The320HostFatTreeLoadsAndWritesBackEquivalently) {
    ClosShape shape;
    shape.pods = 5;
    shape.leavesPerPod = 4;
    shape.hostsPerLeaf = 16;
    shape.spinesPerPod = 4;
    shape.coresPerSpine = 4;
    shape.leaf.rateBps = shape.spine.rateBps = 400'000'000'000ull;
    const std::string file =
        write("fat-tree-320.txt", formatHpccTopology(buildClos(shape), HpccLinkOrder::Tiers));
    Diagnostics diag;
    const auto spec = loadHpccTopologyFile(file, diag);
    ASSERT_TRUE(spec) << diag.format(Severity::Error);
    EXPECT_EQ(spec->numHosts(), 320u);
    EXPECT_EQ(spec->numSwitches(), 56u);
    EXPECT_EQ(spec->cables.size(), 480u);
    const auto again = loadHpccTopologyFile(write("again.txt", formatHpccTopology(*spec)), diag);
    ASSERT_TRUE(again) << diag.format(Severity::Error);
    ASSERT_EQ(again->numVertices(), spec->numVertices());
    for (uint32_t v = 0; v < spec->numVertices(); ++v) {
        EXPECT_EQ(again->vertices[v].originalId, spec->vertices[v].originalId);
        EXPECT_EQ(again->vertices[v].kind, spec->vertices[v].kind);
        EXPECT_EQ(again->vertices[v].tier, spec->vertices[v].tier);
    }
    ASSERT_EQ(again->cables.size(), spec->cables.size());
    for (std::size_t c = 0; c < spec->cables.size(); ++c) {
        EXPECT_EQ(again->cables[c].a, spec->cables[c].a);
        EXPECT_EQ(again->cables[c].b, spec->cables[c].b);
        EXPECT_EQ(again->cables[c].rateBps, spec->cables[c].rateBps);
        EXPECT_EQ(again->cables[c].delayPs, spec->cables[c].delayPs);
        EXPECT_EQ(again->cables[c].errorRate, spec->cables[c].errorRate);
    }
}

TEST_F(HpccTopologyFile, ErrorsNameTheLine) {
    const std::string head = "4 1 3\n3\n";
    EXPECT_THAT(error(head + "0 3 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n3 1 100Gbps 1000ns 0\n"),
                HasSubstr("topo.txt: line 5: a second link between nodes 3 and 1 (first at line 4)"));
    EXPECT_THAT(error(head + "0 3 100Gbps 1000ns 0\n1 1 100Gbps 1000ns 0\n2 3 100Gbps 1000ns 0\n"),
                HasSubstr("line 4: link from node 1 to itself"));
    EXPECT_THAT(error(head + "0 3 100Gbps 1000xs 0\n1 3 100Gbps 1000ns 0\n2 3 100Gbps 1000ns 0\n"),
                HasSubstr("line 3: delay '1000xs' has an unknown unit"));
    EXPECT_THAT(error(head + "0 3 100Gbps 1.5ps 0\n1 3 100Gbps 1000ns 0\n2 3 100Gbps 1000ns 0\n"),
                HasSubstr("line 3: delay '1.5ps' is finer than 1 ps"));
    EXPECT_THAT(error(head + "0 3 0Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n2 3 100Gbps 1000ns 0\n"),
                HasSubstr("line 3: rate '0Gbps' is zero"));
    EXPECT_THAT(error(head + "0 3 100Gbps 1000ns 2\n1 3 100Gbps 1000ns 0\n2 3 100Gbps 1000ns 0\n"),
                HasSubstr("line 3: error rate '2' is not a number in 0..1"));
    EXPECT_THAT(error(head + "0 3 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n"),
                HasSubstr("announces 3 link lines, found 2"));
    EXPECT_THAT(error(head + "0 3 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n1 9 100Gbps 1000ns 0\n"),
                HasSubstr("line 5: link ends '1' '9' are not node ids in 0..3"));
    EXPECT_THAT(error("4 1 2\n3\n0 3 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n"),
                HasSubstr("host 2 has no link"));
    EXPECT_THAT(error("4 2 2\n2 2\n0 2 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n"),
                HasSubstr("line 2: switch id 2 is listed twice"));
    EXPECT_THAT(error("4 2 2\n2 3\n0 2 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n"),
                HasSubstr("host 1 has no path to host 0 through switches"));
    EXPECT_THAT(error("10 2 1 1 A100 0\n"), HasSubstr("SimAI's 6-field header"));
    EXPECT_THAT(error("4 4 0\n"), HasSubstr("expected switches < nodes"));
}

TEST_F(HpccTopologyFile, ExtraLinesWarnAndSwitchlessRingsForward) {
    Diagnostics diag;
    const auto t = loadHpccTopologyFile(
        write("topo.txt", "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 400Gbps 0.5us 0\nnotes\n"), diag);
    ASSERT_TRUE(t) << diag.format(Severity::Error);
    EXPECT_THAT(diag.format(Severity::Warning),
                HasSubstr("line 5: 1 line(s) after the 2 links of the header are ignored"));
    ASSERT_EQ(t->cables.size(), 2u);
    EXPECT_EQ(t->cables[1].rateBps, 400'000'000'000u);
    EXPECT_EQ(t->cables[1].delayPs, 500'000u);
    // ASTRA-sim's switchless ring: "8 0 8", an empty switch line, hosts cabled to hosts.
    std::string ring = "8 0 8\n\n";
    for (int h = 0; h < 8; ++h) {
        ring += std::to_string(h) + " " + std::to_string((h + 1) % 8) + " 400Gbps 0.5us 0\n";
    }
    const auto r = loadHpccTopologyFile(write("ring.txt", ring), diag);
    ASSERT_TRUE(r) << diag.format(Severity::Error);
    EXPECT_TRUE(r->hostsForward());
    EXPECT_EQ(hops(*r, 0, 1), 1u);
    EXPECT_EQ(hops(*r, 0, 4), 4u);
    EXPECT_EQ(hops(*r, 0, 6), 2u);  // the shorter way round
}

class Description : public HpccTopologyFile {
protected:
    std::shared_ptr<const TopologySpec> load(const std::string& name, const std::string& text,
                                             Diagnostics& diag) {
        return loadTopologyDescription(write(name, text), diag);
    }
    std::string failure(const std::string& text) {
        Diagnostics diag;
        EXPECT_FALSE(load("net.json", text, diag)) << text;
        EXPECT_THAT(diag.firstError(), HasSubstr("net.json"));
        return diag.firstError();
    }
};

TEST_F(Description, EveryBuilderHasAJsonForm) {
    Diagnostics diag;
    auto ft =
        load("ft.json", R"({"topology": {"builder": "fat-tree", "k": 4, "rate": "100Gbps", "delay": "1us"}})",
             diag);
    auto clos = load("clos.json", R"({"topology": {"builder": "clos", "leaves": 8, "hosts-per-leaf": 16,
        "spines": 8, "rate": "200Gbps", "delay": "0.5us"}, "switch": {"buffer": "32MB"}})",
                     diag);
    auto over = load("over.json", R"({"topology": {"builder": "clos", "leaves": 2, "hosts-per-leaf": 8,
        "spines": 2, "host-rate": "100Gbps", "oversubscription": 2}})",
                     diag);
    auto rail = load("rail.json", R"({"topology": {"builder": "rail-optimised", "servers": 4,
        "nics-per-server": 8, "spines": 2, "scale-up": {"npus-per-server": 8, "rate": "3600Gbps", "delay": "250ns"}}})",
                     diag);
    auto md = load("md.json", R"({"topology": {"builder": "multi-dimensional", "topology": ["Ring", "Switch"],
        "npus_count": [4, 4], "bandwidth": [50, 50], "latency": [500, 500]}})",
                   diag);
    auto explicitForm = load("explicit.json", R"({"topology": {"nodes": 3, "switches": [2],
        "links": [{"a": 0, "b": 2, "rate": "100Gbps", "delay": "1us"}, {"a": 1, "b": 2, "rate": "100Gbps",
        "delay": "1us", "error-rate": 0.001}]}, "ranks": [1, 0]})",
                             diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    EXPECT_EQ(ft->numHosts(), 16u);
    EXPECT_EQ(ft->cables[0].delayPs, 1'000'000u);
    EXPECT_EQ(clos->numHosts(), 128u);
    EXPECT_EQ(clos->cables[0].rateBps, 200'000'000'000ull);
    EXPECT_EQ(over->cables.back().rateBps, 200'000'000'000ull);  // 8 x 100 Gb/s / (2 spines x 2)
    EXPECT_EQ(rail->numHosts(), 32u);
    EXPECT_EQ(rail->numSwitches(), 8u + 2u + 4u);
    EXPECT_EQ(md->numHosts(), 16u);
    EXPECT_EQ(md->routing, RoutingKind::DimensionOrder);
    EXPECT_EQ(explicitForm->hostOfRank(0), 1u);
    EXPECT_EQ(explicitForm->cables[1].errorRate, 0.001);
}

TEST_F(Description, ErrorsNameTheKeyAndTheExpectation) {
    EXPECT_THAT(failure(R"({"topology": {"builder": "fat-tree", "k": 5}})"),
                HasSubstr("key 'topology.k': 5 is odd"));
    EXPECT_THAT(failure(R"({"topology": {"builder": "fat-tree", "k": 4, "rate": 100}})"),
                HasSubstr("key 'topology.rate': 100 has no unit; expected a string such as \"100Gbps\""));
    EXPECT_THAT(failure(R"({"topology": {"builder": "fat-tree", "k": 4, "rate": "0Gbps"}})"),
                HasSubstr("key 'topology.rate': a rate of 0"));
    EXPECT_THAT(failure(R"({"topology": {"builder": "fat-tree", "kk": 4}})"),
                HasSubstr("key 'topology.k': missing"));
    EXPECT_THAT(failure(R"({"topology": {"builder": "fat-tree", "k": 4, "dealy": "1us"}})"),
                HasSubstr("key 'topology.dealy': unknown key; did you mean 'delay'?"));
    EXPECT_THAT(failure(R"({"topology": {"builder": "torus"}})"), HasSubstr("'torus' is not a builder"));
    EXPECT_THAT(failure(R"({"topology": {"builder": "clos", "leaves": 2, "spines": 1}})"),
                HasSubstr("key 'topology.hosts-per-leaf': missing"));
    EXPECT_THAT(
        failure(R"({"topology": {"nodes": 3, "switches": [2], "links": [{"a": 0, "b": 2, "rate": "1Gbps",
        "delay": "1us"}]}})"),
        HasSubstr("host 1 has no link"));
    EXPECT_THAT(
        failure(R"({"topology": {"nodes": 3, "switches": [2], "links": [{"a": 0, "b": 7, "rate": "1Gbps",
        "delay": "1us"}]}})"),
        HasSubstr("key 'topology.links[0].b': 7 is outside 0..2"));
    EXPECT_THAT(
        failure(R"({"topology": {"builder": "fat-tree", "k": 4}, "ranks": [0, 0]})"),
        HasSubstr("key 'ranks': entry 1 (0) is not a host id of the topology, or names a host twice"));
    EXPECT_THAT(failure(R"({"topology": {"builder": "fat-tree", "k": 4}, "swich": {}})"),
                HasSubstr("unknown top-level key 'swich'; did you mean 'switch'?"));
    EXPECT_THAT(failure(R"({"topology": {"file": "absent.txt"}})"), HasSubstr("absent.txt' does not exist"));
}

struct ToolRun {
    int status;
    std::string out, err;
};

ToolRun runTopologyTool(const std::string& args) {
    const std::string dir = makeTempDir("topology-tool");
    const std::string cmd = std::string(MLNET_BIN_DIR) + "/mlnet-topology " + args + " > " + dir +
                            "/out.txt 2> " + dir + "/err.txt";
    const int raw = std::system(cmd.c_str());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, readFileBytes(dir + "/out.txt"),
            readFileBytes(dir + "/err.txt")};
}

// The golden cases' k=4 fat-tree (tests/golden/k4.txt, hpcc-bench's k4_topo.txt) is what the tool writes.
TEST_F(Description, TopologyToolWritesTheBenchFatTrees) {
    const std::string out = makeTempDir("k4-file") + "/k4.txt";
    ToolRun r = runTopologyTool("--builder=fat-tree --k=4 --hpcc-link-order=tiers --write-hpcc=" + out);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(readFileBytes(out), readFileBytes(std::string(MLNET_SOURCE_DIR) + "/tests/golden/k4.txt"));
    // In cable order instead, the same network reads back with the builder's ports.
    r = runTopologyTool("--builder=fat-tree --k=4 --write-hpcc=" + out);
    ASSERT_EQ(r.status, 0) << r.err;
    Diagnostics diag;
    const auto read = loadHpccTopologyFile(out, diag);
    ASSERT_TRUE(read) << diag.format(Severity::Error);
    const TopologySpec built = buildFatTree(4, LinkSettings{});
    ASSERT_EQ(read->cables.size(), built.cables.size());
    for (std::size_t c = 0; c < built.cables.size(); ++c) {
        EXPECT_EQ(read->cables[c].a, built.cables[c].a);
        EXPECT_EQ(read->cables[c].b, built.cables[c].b);
    }
    r = runTopologyTool("--builder=fat-tree --k=4 --hpcc-link-order=pods --write-hpcc=" + out);
    EXPECT_EQ(r.status, 1);
    EXPECT_THAT(r.err, HasSubstr("--hpcc-link-order=pods: expected cables or tiers"));
}

TEST_F(Description, TopologyToolPrintsCountsAndRejectsBadInput) {
    ToolRun r = runTopologyTool("--builder=fat-tree --k=8 --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    for (const char* key : {"hosts", "switches", "links", "routing_entries", "cpu_s", "peak_rss_mb"}) {
        EXPECT_TRUE(j.contains(key)) << key;
    }
    EXPECT_EQ(j["hosts"], 128);
    EXPECT_EQ(j["switches"], 80);
    EXPECT_EQ(j["links"], 384);
    EXPECT_EQ(j["sample_equal_cost_paths"], 16);
    r = runTopologyTool("--builder=clos --leaves=8 --hosts-per-leaf=16 --spines=8");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("hosts 128 (ranks 128), switches 16, links 192"));
    r = runTopologyTool("--builder=fat-tree --k=-4");
    EXPECT_EQ(r.status, 1);
    EXPECT_THAT(r.err, HasSubstr("--k=-4: expected a whole number in 2..256"));
    r = runTopologyTool("--builder=fat-tree --k=5");
    EXPECT_EQ(r.status, 1);
    EXPECT_THAT(r.err, HasSubstr("k = 5; expected an even number"));
    r = runTopologyTool(write("bad.txt", "3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 0Gbps 1us 0\n"));
    EXPECT_EQ(r.status, 2);
    EXPECT_THAT(r.err, HasSubstr("bad.txt: line 4: rate '0Gbps' is zero"));
    r = runTopologyTool(write("bad.json", R"({"topology": {"builder": "clos", "leaves": 2}})"));
    EXPECT_EQ(r.status, 2);
    EXPECT_THAT(r.err, HasSubstr("key 'topology.hosts-per-leaf': missing"));
    r = runTopologyTool("a.txt b.txt");
    EXPECT_EQ(r.status, 1);
}

}  // namespace
}  // namespace mlnet

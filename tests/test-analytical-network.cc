// Tests of the topologies, the network configuration loader and both analytical network models. Expected
// times are worked out by hand in the comments (bandwidth 50 GB/s = 50 * 2^30 / 1e9 = 53.6870912 B/ns).
#include "network/congestion-aware-network.h"
#include "network/congestion-unaware-network.h"
#include "network/hpcc-topology.h"
#include "network/topology-description.h"
#include "trace-test-util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>
#include <utility>

namespace mlnet {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const double kGbps50 = gigabytesPerSecondToBytesPerNs(50);
const std::string kShared = MLNET_SHARED_DIR;
const std::string kK4Topo = kShared + "/workloads/hpcc-bench/k4_topo.txt";

Topology oneDim(DimensionKind kind, uint32_t npus, double gbps = 50, double latencyNs = 500) {
    return Topology::multiDimensional({{kind, npus, gigabytesPerSecondToBytesPerNs(gbps), latencyNs}});
}

Topology loadK4() {
    Diagnostics diag;
    auto topology = loadHpccTopologyFile(kK4Topo, diag);
    if (!topology) {
        throw std::runtime_error(diag.format(Severity::Error));
    }
    return Topology::fromSpec(std::make_shared<const TopologySpec>(std::move(*topology)));
}

// A network from node ids: `switches` are ids hosts..hosts+switches-1; every pair is a cable of `bytesPerNs`
// and `latencyNs` unless given.
struct TestCable {
    uint32_t a, b;
    double bytesPerNs = 1, latencyNs = 1;
};
Topology graphOf(uint32_t hosts, uint32_t switches, const std::vector<TestCable>& cables) {
    std::vector<bool> isSwitch(hosts + switches, false);
    for (uint32_t s = hosts; s < hosts + switches; ++s) {
        isSwitch[s] = true;
    }
    std::vector<SpecCable> byId;
    for (const TestCable& c : cables) {
        byId.push_back({c.a, c.b, static_cast<uint64_t>(c.bytesPerNs * 8e9),
                        static_cast<TimePs>(c.latencyNs * 1000), 0, 0});
    }
    Diagnostics diag;
    auto spec = specFromNodeIds(hosts + switches, isSwitch, byId, "test", diag);
    if (!spec) {
        throw std::runtime_error(diag.format(Severity::Error));
    }
    return Topology::fromSpec(std::make_shared<const TopologySpec>(std::move(*spec)));
}

// The vertices a route visits, starting at src.
std::vector<uint32_t> walk(const Topology& t, uint32_t src, const std::vector<uint32_t>& route) {
    std::vector<uint32_t> vertices{src};
    for (uint32_t id : route) {
        EXPECT_EQ(t.link(id).from, vertices.back()) << "route is not contiguous";
        vertices.push_back(t.link(id).to);
    }
    return vertices;
}

struct Message {
    Rank src, dst;
    uint64_t sizeBytes;
    TimeNs startNs;
};

// Posts every receive at time 0, sends each message at its start time, and records when each arrives.
struct Driver {
    Driver(AnalyticalNetwork& network, EventQueue& eventQueue, std::vector<Message> toSend = {})
        : net(network), queue(eventQueue), messages(std::move(toSend)) {}

    AnalyticalNetwork& net;
    EventQueue& queue;
    std::vector<Message> messages;
    std::vector<TimeNs> arrivalNs;
    std::size_t receivesDone = 0;

    void start(uint64_t i) {
        const Message& m = messages[i];
        net.send(m.src, m.dst, i, m.sizeBytes, makeCallback<&Driver::sent>(this, i));
    }
    void sent(uint64_t i) { arrivalNs[i] = queue.now(); }
    void received(uint64_t) { ++receivesDone; }
    void run() {
        arrivalNs.assign(messages.size(), UINT64_MAX);
        for (std::size_t i = 0; i < messages.size(); ++i) {
            const Message& m = messages[i];
            net.recv(m.src, m.dst, i, m.sizeBytes, makeCallback<&Driver::received>(this, i));
            queue.scheduleAt(m.startNs, makeCallback<&Driver::start>(this, i));
        }
        queue.run();
    }
};

TimeNs deliveryNs(const Topology& t, NetworkModel model, Rank src, Rank dst, uint64_t sizeBytes,
                  UnawareRouting routing = UnawareRouting::LowestDimension) {
    EventQueue queue;
    auto net = makeAnalyticalNetwork(t, model, queue, routing);
    Driver d(*net, queue, {{src, dst, sizeBytes, 0}});
    d.run();
    EXPECT_EQ(d.receivesDone, 1u);
    return d.arrivalNs[0];
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
    if (!fs::exists(kShared)) {
        GTEST_SKIP() << "reference files not found at " << kShared;
    }
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

// ---------------------------------------------------------------- congestion-unaware

TEST(CongestionUnaware, RingNeighbourClosedForm) {
    const Topology t = oneDim(DimensionKind::Ring, 8);
    EventQueue queue;
    CongestionUnawareNetwork net(t, queue);
    EXPECT_EQ(net.delayNs(0, 1, 32768), 1110u);  // floor(500 + 32768 / 53.6870912) = floor(1110.35)
    EXPECT_EQ(net.delayNs(0, 5, 32768), 2110u);  // 3 hops: floor(1500 + 610.35)
    EXPECT_EQ(net.delayNs(3, 3, 32768), 0u);
    EXPECT_EQ(deliveryNs(t, NetworkModel::CongestionUnaware, 0, 1, 32768), 1110u);
}

TEST(CongestionUnaware, FullyConnectedIsOneHopAndSwitchTwo) {
    EXPECT_EQ(
        deliveryNs(oneDim(DimensionKind::FullyConnected, 8), NetworkModel::CongestionUnaware, 0, 5, 32768),
        1110u);
    EXPECT_EQ(deliveryNs(oneDim(DimensionKind::Switch, 8), NetworkModel::CongestionUnaware, 0, 5, 32768),
              1610u);
    // HGX-H100 reference: Switch, 400 GB/s, 936.25 ns: floor(1872.5 + 1048576 / 429.4967296) =
    // floor(4313.906).
    EXPECT_EQ(deliveryNs(oneDim(DimensionKind::Switch, 8, 400, 936.25), NetworkModel::CongestionUnaware, 0, 5,
                         1048576),
              4313u);
}

TEST(CongestionUnaware, NoLinkSharing) {
    const Topology t = oneDim(DimensionKind::Ring, 8);
    EventQueue queue;
    CongestionUnawareNetwork net(t, queue);
    Driver d(net, queue, {{0, 1, 32768, 0}, {0, 1, 32768, 0}, {0, 1, 32768, 0}});
    d.run();
    EXPECT_EQ(d.arrivalNs, (std::vector<TimeNs>{1110, 1110, 1110}));
}

TEST(CongestionUnaware, MultiDimensionalChargesOnlyTheLowestDifferingDimension) {
    // Dimension 0: Ring 4 at 100 GB/s, 100 ns; dimension 1: Switch 4 at 50 GB/s, 1000 ns. 0 -> 14 = (2, 3).
    const Topology t =
        Topology::multiDimensional({{DimensionKind::Ring, 4, gigabytesPerSecondToBytesPerNs(100), 100},
                                    {DimensionKind::Switch, 4, kGbps50, 1000}});
    EventQueue queue;
    CongestionUnawareNetwork parity(t, queue);
    CongestionUnawareNetwork all(t, queue, UnawareRouting::AllDimensions);
    EXPECT_EQ(parity.delayNs(0, 14, 1000000), 9513u);   // floor(2*100 + 1e6 / 107.374)
    EXPECT_EQ(all.delayNs(0, 14, 1000000), 20826u);     // floor(2*100 + 2*1000 + 1e6 / 53.687)
    EXPECT_EQ(parity.delayNs(0, 12, 1000000), 20626u);  // only dimension 1 differs: floor(2000 + 18626.45)
    EXPECT_EQ(all.delayNs(0, 12, 1000000), 20626u);
}

TEST(CongestionUnaware, GraphUsesRouteLatencyAndBottleneck) {
    if (!fs::exists(kShared)) {
        GTEST_SKIP() << "reference files not found at " << kShared;
    }
    const Topology t = loadK4();
    EventQueue queue;
    CongestionUnawareNetwork net(t, queue);
    EXPECT_EQ(net.delayNs(0, 15, 12500), 7000u);  // 6 links x 1000 ns + 12500 B / 12.5 B/ns
    EXPECT_EQ(net.delayNs(0, 1, 12500), 3000u);
}

// ---------------------------------------------------------------- congestion-aware

TEST(CongestionAware, SingleMessageMatchesUnawareExactly) {
    if (!fs::exists(kShared)) {
        GTEST_SKIP() << "reference files not found at " << kShared;
    }
    struct Case {
        Topology topology;
        Rank src, dst;
        uint64_t sizeBytes;
    };
    const std::vector<Case> cases = {
        {oneDim(DimensionKind::Ring, 8), 0, 5, 32768},
        {oneDim(DimensionKind::Ring, 8), 2, 3, 1000001},
        {oneDim(DimensionKind::FullyConnected, 8), 0, 5, 32768},
        {oneDim(DimensionKind::Switch, 8), 0, 5, 32768},
        {oneDim(DimensionKind::Switch, 8, 400, 936.25), 7, 1, 1048576},
        {oneDim(DimensionKind::Ring, 8), 0, 1, 0},
        {loadK4(), 0, 15, 4000000},
    };
    for (const Case& c : cases) {
        const TimeNs unaware =
            deliveryNs(c.topology, NetworkModel::CongestionUnaware, c.src, c.dst, c.sizeBytes);
        const TimeNs aware = deliveryNs(c.topology, NetworkModel::CongestionAware, c.src, c.dst, c.sizeBytes);
        EXPECT_EQ(aware, unaware) << c.src << "->" << c.dst;
    }
    // Across dimensions the aware model follows the physical route, like the AllDimensions option.
    const Topology t =
        Topology::multiDimensional({{DimensionKind::Ring, 4, gigabytesPerSecondToBytesPerNs(100), 100},
                                    {DimensionKind::Switch, 4, kGbps50, 1000}});
    EXPECT_EQ(deliveryNs(t, NetworkModel::CongestionAware, 0, 14, 1000000), 20826u);  // floor(20826.45)
}

TEST(CongestionAware, TwoMessagesOnOneLinkTakeTwiceTheTransmissionTime) {
    const Topology t = oneDim(DimensionKind::Ring, 8);
    EventQueue queue;
    CongestionAwareNetwork net(t, queue);
    Driver d(net, queue, {{0, 1, 32768, 0}, {0, 1, 32768, 0}});
    d.run();
    // floor(500 + 2 * 610.3515625) = floor(1720.703125)
    EXPECT_EQ(d.arrivalNs, (std::vector<TimeNs>{1720, 1720}));
    EXPECT_EQ(net.counters().rateRecomputations, 1u);  // both starts and both finishes are batched
    EXPECT_EQ(net.counters().staleFinishEvents, 0u);
}

TEST(CongestionAware, LateJoinerSlowsTheFirstFlow) {
    // A latency of 0.25 ns exposes the fractional departure time: B would arrive a nanosecond later if A's
    // bandwidth were released at A's finish event (916 ns) instead of when its last byte left.
    const Topology t = oneDim(DimensionKind::Ring, 8, 50, 0.25);
    EventQueue queue;
    CongestionAwareNetwork net(t, queue);
    Driver d(net, queue, {{0, 1, 32768, 0}, {0, 1, 32768, 305}});
    d.run();
    // A alone until 305 ns, then both at half rate: A's remaining 610.35 - 305 ns of work take twice as long,
    // so A's last byte leaves at 915.703125; the link never idles, so B's leaves at 2 * 610.3515625 =
    // 1220.703125.
    EXPECT_EQ(d.arrivalNs, (std::vector<TimeNs>{916, 1221}));
    EXPECT_EQ(net.counters().staleFinishEvents, 2u);  // A's first (611 ns) and B's first (1526 ns)
}

TEST(CongestionAware, ThreeFlowMaxMinFairness) {
    // A: h0 -> S1 -> S2 -> h3 over L1 (10 B/ns); B: h1 -> S1 -> S2 -> S3 -> h4 over L1 and L2 (4 B/ns);
    // C: h2 -> S2 -> S3 -> h5 over L2. Access links 1000 B/ns, every link 10 ns.
    // Max-min: L2 is the bottleneck, B = C = 2; A gets L1's remaining 8. A (8000 B) leaves at 1000 ns; B and
    // C keep 2 (L2 still splits two ways); C (4000 B) leaves at 2000 ns; B then has 4000 B left at min(10, 4)
    // = 4 B/ns and leaves at 3000 ns. Arrivals add the path latency: 30, 30 and 40 ns.
    const uint32_t S1 = 6, S2 = 7, S3 = 8;
    auto link = [](uint32_t a, uint32_t b, double bw) { return TestCable{a, b, bw, 10}; };
    const Topology t = graphOf(6, 3,
                               {link(0, S1, 1000), link(1, S1, 1000), link(2, S2, 1000), link(S1, S2, 10),
                                link(S2, S3, 4), link(S2, 3, 1000), link(S3, 4, 1000), link(S3, 5, 1000)});
    EventQueue queue;
    CongestionAwareNetwork net(t, queue);
    Driver d(net, queue, {{0, 3, 8000, 0}, {1, 4, 8000, 0}, {2, 5, 4000, 0}});
    d.run();
    EXPECT_EQ(d.arrivalNs, (std::vector<TimeNs>{1030, 3040, 2030}));
    const auto& c = net.counters();
    EXPECT_EQ(c.flowsCompleted, 3u);
    EXPECT_EQ(c.rateRecomputations, 3u);  // at 0 (A, B, C), 1000 (B, C) and 2000 (B)
    EXPECT_EQ(c.flowRateUpdates, 3u + 2u + 1u);
    EXPECT_EQ(c.largestComponentFlows, 3u);
    EXPECT_EQ(net.linkBytes(6), 16000u);  // L1 (cable 3, S1 -> S2) carried A and B
    EXPECT_EQ(net.linkBytes(8), 12000u);  // L2 (cable 4, S2 -> S3) carried B and C
}

TEST(CongestionAware, DisjointFlowsAreNeverRecomputedTogether) {
    const Topology t = oneDim(DimensionKind::Ring, 64);
    for (TimeNs stagger : {TimeNs{0}, TimeNs{10}}) {
        EventQueue queue;
        CongestionAwareNetwork net(t, queue);
        Driver d(net, queue);
        for (Rank i = 0; i < 64; ++i) {
            d.messages.push_back({i, (i + 1) % 64, 1 << 20, i * stagger});
        }
        d.run();
        const auto& c = net.counters();
        EXPECT_EQ(c.flowsCompleted, 64u);
        EXPECT_EQ(c.largestComponentFlows, 1u);
        EXPECT_EQ(c.flowRateUpdates, 64u) << "a flow was re-rated because of a disjoint one";
        EXPECT_EQ(c.staleFinishEvents, 0u);
        EXPECT_EQ(c.rateRecomputations, stagger == 0 ? 1u : 64u);
        for (Rank i = 0; i < 64; ++i) {
            // floor(500 + 2^20 / 53.6870912) = floor(20031.25) after its own start
            EXPECT_EQ(d.arrivalNs[i], i * stagger + 20031) << i;
        }
    }
}

// Random all-to-all: every byte is delivered, every receive completes, no message beats its bandwidth bound,
// and no link carries more than its bandwidth times the makespan.
void checkAllToAll(const Topology& t, uint32_t seed) {
    std::mt19937_64 rng(seed);
    EventQueue queue;
    CongestionAwareNetwork net(t, queue);
    Driver d(net, queue);
    uint64_t totalBytes = 0;
    for (Rank s = 0; s < t.numNpus(); ++s) {
        for (Rank r = 0; r < t.numNpus(); ++r) {
            if (s != r) {
                d.messages.push_back({s, r, 1 + rng() % 200000, rng() % 20000});
                totalBytes += d.messages.back().sizeBytes;
            }
        }
    }
    d.run();
    EXPECT_EQ(net.bytesDelivered(), totalBytes);
    EXPECT_EQ(net.messagesDelivered(), d.messages.size());
    EXPECT_EQ(d.receivesDone, d.messages.size());
    EXPECT_TRUE(net.matcher().idle());
    EXPECT_EQ(net.activeFlows(), 0u);
    EXPECT_EQ(net.counters().flowsCompleted, d.messages.size());
    const TimeNs makespan = *std::max_element(d.arrivalNs.begin(), d.arrivalNs.end());
    for (std::size_t i = 0; i < d.messages.size(); ++i) {
        const Message& m = d.messages[i];
        double latencyNs = 0, bottleneck = 1e300;
        for (uint32_t id : t.route(m.src, m.dst)) {  // equal-cost paths have equal latency and bandwidth here
            latencyNs += t.link(id).latencyNs;
            bottleneck = std::min(bottleneck, t.link(id).bandwidthBytesPerNs);
        }
        ASSERT_GE(static_cast<double>(d.arrivalNs[i]),
                  std::floor(static_cast<double>(m.startNs) + static_cast<double>(m.sizeBytes) / bottleneck +
                             latencyNs))
            << "message " << i << " beat its bandwidth bound";
    }
    uint64_t routedBytes = 0;
    for (uint32_t id = 0; id < t.numLinks(); ++id) {
        routedBytes += net.linkBytes(id);
        EXPECT_LE(static_cast<double>(net.linkBytes(id)) / t.link(id).bandwidthBytesPerNs,
                  static_cast<double>(makespan))
            << "link " << id;
    }
    EXPECT_GT(routedBytes, totalBytes);  // multi-hop routes carry each byte several times
    EXPECT_GT(net.counters().largestComponentFlows, 1u);
}

TEST(CongestionAware, AllToAllOnTwoDimensions) {
    checkAllToAll(Topology::multiDimensional(
                      {{DimensionKind::Ring, 4, kGbps50, 500}, {DimensionKind::Switch, 4, kGbps50 / 2, 700}}),
                  1);
}

TEST(CongestionAware, AllToAllOnFatTree) {
    if (!fs::exists(kShared)) {
        GTEST_SKIP() << "reference files not found at " << kShared;
    }
    checkAllToAll(Topology::fatTree(4, 50, 500), 2);
    checkAllToAll(loadK4(), 3);
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
    EXPECT_THAT(e, HasSubstr("line 3: key 'bandwidth': entry 0 0; expected a number > 0 (GB/s)"));

    e = failure("lat.yml", "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ -1 ]\n");
    EXPECT_THAT(e, HasSubstr("line 4: key 'latency': entry 0 -1; expected a number >= 0 (ns)"));

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
    if (!fs::exists(kShared)) {
        GTEST_SKIP() << "reference files not found at " << kShared;
    }
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

TEST(NetworkConfig, ReferenceConfigsLoad) {
    if (!fs::exists(kShared)) {
        GTEST_SKIP() << "reference files not found at " << kShared;
    }
    std::size_t loaded = 0;
    for (const auto& dir : fs::directory_iterator(kShared + "/chakra-examples/reference_configs")) {
        for (const auto& file : fs::directory_iterator(dir.path())) {
            if (file.path().extension() != ".yml") {
                continue;
            }
            Diagnostics diag;
            const auto config = loadTopologyDescription(file.path().string(), diag);
            EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
            ASSERT_TRUE(config) << file.path();
            EXPECT_EQ(config->dimensions.size(), 1u) << file.path();
            EXPECT_GE(Topology::fromSpec(config).numNpus(), 4u);
            if (file.path().filename() == "HGX-H100-validated.yml") {
                EXPECT_EQ(config->dimensions[0].kind, DimensionKind::Switch);
                EXPECT_EQ(config->dimensions[0].latencyNs, 936.25);
            }
            ++loaded;
        }
    }
    EXPECT_EQ(loaded, 6u);
}

}  // namespace
}  // namespace mlnet

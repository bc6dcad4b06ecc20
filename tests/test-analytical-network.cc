// Tests of both analytical network models, congestion-unaware and congestion-aware. Expected times are worked
// out by hand in the comments (bandwidth 50 GB/s = 50 * 2^30 / 1e9 = 53.6870912 B/ns).
#include "analytical-network-test-util.h"
#include "network/congestion-aware-network.h"
#include "network/congestion-unaware-network.h"

#include <gtest/gtest.h>

#include <cmath>

#include <algorithm>
#include <filesystem>
#include <random>
#include <utility>
#include <vector>

namespace mlnet::test {
namespace {

namespace fs = std::filesystem;

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
        net.send(m.src, m.dst, i, m.sizeBytes, 0, makeCallback<&Driver::sent>(this, i));
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
    const Topology t = loadK4();
    EventQueue queue;
    CongestionUnawareNetwork net(t, queue);
    EXPECT_EQ(net.delayNs(0, 15, 12500), 7000u);  // 6 links x 1000 ns + 12500 B / 12.5 B/ns
    EXPECT_EQ(net.delayNs(0, 1, 12500), 3000u);
}

// ---------------------------------------------------------------- congestion-aware

TEST(CongestionAware, SingleMessageMatchesUnawareExactly) {
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
    checkAllToAll(Topology::fatTree(4, 50, 500), 2);
    checkAllToAll(loadK4(), 3);
}

}  // namespace
}  // namespace mlnet::test

// The scale-up domains as NVLink (scale-up-fluid.h): messages inside a server are lossless fluid flows that
// share each link max-min, arrive one path latency after their last byte leaves and send no packet; messages
// between servers stay RoCE; FabricSettings::ScaleUp::Packet keeps the scale-up cables as RoCE links.
#include <gtest/gtest.h>

#include <algorithm>

#include "roce-test-util.h"

namespace mlnet::roce {
namespace {

constexpr uint64_t k800G = 800'000'000'000ull;  // 100 bytes per ns
constexpr TimePs kScaleUpDelayPs = 250'000;

// Two servers of two GPUs on one rail switch each (one spine), scale-up at 800 Gb/s and 250 ns per cable.
std::shared_ptr<const TopologySpec> twoServers() {
    LinkSettings nic;
    nic.rateBps = k100G;
    TopologySpec spec = buildRailOptimised(2, 2, 1, nic, nic);
    LinkSettings nvlink;
    nvlink.rateBps = k800G;
    nvlink.delayPs = kScaleUpDelayPs;
    addScaleUp(spec, 2, nvlink);
    return std::make_shared<const TopologySpec>(std::move(spec));
}

struct Flow {
    uint32_t srcRank, dstRank;
    uint64_t bytes;
    TimePs startPs;
};

struct Outcome {
    std::vector<TimePs> fctPs;  // in flow order
    uint64_t packetHops = 0, delivered = 0;
    ScaleUpStats scaleUp;
    bool fluid = false;
};

Outcome run(const std::vector<Flow>& flows, FabricSettings::ScaleUp model = FabricSettings::ScaleUp::Fluid,
            bool fastForward = false) {
    Diagnostics diag;
    FabricSettings s;
    s.scaleUp = model;
    s.fastForward.enabled = fastForward;
    s.ecn = {{k100G, 20'000, 200'000, 0.2}, {k800G, 160'000, 1'600'000, 0.2}};
    const auto spec = twoServers();
    TestNetwork net(spec, s, diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    for (const Flow& f : flows) {
        net.runner.AddFlow(spec->hostOfRank(f.srcRank), spec->hostOfRank(f.dstRank), f.bytes, 3, 100,
                           f.startPs);
    }
    EXPECT_TRUE(net.runner.Run(10'000'000'000'000ull)) << net.runner.HangReport();
    std::vector<FctRecordPs> fct = net.runner.Fct();
    std::sort(fct.begin(), fct.end(),
              [](const FctRecordPs& a, const FctRecordPs& b) { return a.flowId < b.flowId; });
    Outcome o;
    for (const FctRecordPs& r : fct) {
        o.fctPs.push_back(r.finishPs - r.startPs);
    }
    o.packetHops = net.fabric.DataPacketHops();
    o.delivered = net.fabric.DeliveredBytes();
    if (const ScaleUpFluid* f = net.fabric.ScaleUpModel()) {
        o.scaleUp = f->Stats();
        o.fluid = true;
    }
    return o;
}

TEST(ScaleUpFluid, AMessageInsideAServerTakesItsSizeAtTheLinkRatePlusThePathDelay) {
    const Outcome o = run({{0, 1, 1'000'000, 0}});
    ASSERT_TRUE(o.fluid);
    // 1e6 B at 100 B/ns, then two cables of 250 ns: exactly, no header, no packet.
    ASSERT_EQ(o.fctPs.size(), 1u);
    EXPECT_EQ(o.fctPs[0], 10'000'000u + 2 * kScaleUpDelayPs);
    EXPECT_EQ(o.packetHops, 0u);
    EXPECT_EQ(o.delivered, 1'000'000u);
    EXPECT_EQ(o.scaleUp.messages, 1u);
    EXPECT_EQ(o.scaleUp.bytes, 1'000'000u);
}

TEST(ScaleUpFluid, FlowsShareALinkMaxMinAndOtherServersAreUntouched) {
    // Ranks 0 -> 1 twice (one GPU's NVLink carries both, half the rate each), 2 -> 3 in the other server
    // alone, and 1 -> 0 from 5 us on the reverse direction, which shares nothing with them.
    const Outcome o =
        run({{0, 1, 1'000'000, 0}, {0, 1, 1'000'000, 0}, {2, 3, 1'000'000, 0}, {1, 0, 100'000, 5'000'000}});
    ASSERT_EQ(o.fctPs.size(), 4u);
    EXPECT_EQ(o.fctPs[0], 20'000'000u + 2 * kScaleUpDelayPs);
    EXPECT_EQ(o.fctPs[1], 20'000'000u + 2 * kScaleUpDelayPs);
    EXPECT_EQ(o.fctPs[2], 10'000'000u + 2 * kScaleUpDelayPs);
    EXPECT_EQ(o.fctPs[3], 1'000'000u + 2 * kScaleUpDelayPs);
    EXPECT_EQ(o.packetHops, 0u);
    EXPECT_EQ(o.delivered, 3'100'000u);
}

TEST(ScaleUpFluid, ALateJoinerSlowsTheFlowItSharesWith) {
    // A alone for 2 us (200,000 B), then A and B at 50 B/ns: A's other 800,000 B take 16 us more; B then has
    // 200,000 B left alone, 2 us.
    const Outcome o = run({{0, 1, 1'000'000, 0}, {0, 1, 1'000'000, 2'000'000}});
    ASSERT_EQ(o.fctPs.size(), 2u);
    EXPECT_EQ(o.fctPs[0], 18'000'000u + 2 * kScaleUpDelayPs);
    EXPECT_EQ(o.fctPs[1], 18'000'000u + 2 * kScaleUpDelayPs);
    EXPECT_EQ(o.scaleUp.ratePasses, 3u);  // at 0, 2 and 18 us
}

TEST(ScaleUpFluid, WithFastForwardOnTheFlowsKeepTheSimulatorsClock) {
    // Fast-forward may shift the network's clock, so the fluid then schedules ns-3 events instead of the
    // simulator's light ones: the same closed forms, and a RoCE message beside them.
    const std::vector<Flow> flows = {
        {0, 1, 1'000'000, 0}, {0, 1, 1'000'000, 2'000'000}, {0, 2, 1'000'000, 0}};
    const Outcome light = run(flows);
    const Outcome ns3Events = run(flows, FabricSettings::ScaleUp::Fluid, true);
    ASSERT_EQ(ns3Events.fctPs.size(), 3u);
    EXPECT_EQ(ns3Events.fctPs[0], 18'000'000u + 2 * kScaleUpDelayPs);
    EXPECT_EQ(ns3Events.fctPs[1], 18'000'000u + 2 * kScaleUpDelayPs);
    EXPECT_EQ(ns3Events.fctPs, light.fctPs);
    EXPECT_EQ(ns3Events.delivered, 3'000'000u);
}

TEST(ScaleUpFluid, MessagesBetweenServersStayRoce) {
    const Outcome o = run({{0, 2, 1'000'000, 0}, {0, 1, 1'000'000, 0}});
    ASSERT_EQ(o.fctPs.size(), 2u);
    EXPECT_EQ(o.scaleUp.messages, 1u);
    // The RoCE message's packets cross the NIC cable, the rail switch and the far NIC cable.
    EXPECT_GE(o.packetHops, 2 * (1'000'000u / 4096));
    EXPECT_GT(o.fctPs[0], 80'000'000u);  // 1 MB at 100 Gb/s
    EXPECT_EQ(o.fctPs[1], 10'000'000u + 2 * kScaleUpDelayPs);
    EXPECT_EQ(o.delivered, 2'000'000u);
}

TEST(ScaleUpFluid, ThePacketModelCarriesTheScaleUpAsRoceLinks) {
    const Outcome fluid = run({{0, 1, 1'000'000, 0}});
    const Outcome packet = run({{0, 1, 1'000'000, 0}}, FabricSettings::ScaleUp::Packet);
    EXPECT_FALSE(packet.fluid);
    EXPECT_GE(packet.packetHops, 2 * (1'000'000u / 4096));
    EXPECT_EQ(packet.delivered, 1'000'000u);
    // Headers, store-and-forward per hop and the send's completion at the last ACK (a path delay back) make
    // the packet model slower: 11.83 us against 10.5 at this size.
    ASSERT_EQ(packet.fctPs.size(), 1u);
    EXPECT_GT(packet.fctPs[0], fluid.fctPs[0]);
    EXPECT_LT(packet.fctPs[0], fluid.fctPs[0] * 6 / 5);
}

}  // namespace
}  // namespace mlnet::roce

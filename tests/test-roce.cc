// The RoCE model on small networks: line-rate throughput against the analytic time, lossless incast under
// PFC, lossy recovery by go-back-N and timeouts, ECN marking thresholds, the hang detector, and a pcap that
// tshark decodes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "ns3/node-list.h"
#include "ns3/simulator.h"

#include "cc-selection.h"
#include "flagged-traced-callback.h"
#include "network/hpcc-topology.h"
#include "network/topology.h"
#include "roce-channel.h"
#include "roce-net-device.h"
#include "roce-route.h"
#include "roce-test-util.h"
#include "roce-timing.h"
#include "run-report.h"
#include "switch-mmu.h"
#include "trace-test-util.h"
#include "util/huge-page-heap.h"
#include "wire-format.h"

namespace mlnet::roce {
namespace {

using ::testing::HasSubstr;

FabricSettings baseConfig() {
    FabricSettings c;
    c.ecn = {{k100G, 100'000, 400'000, 0.2}};
    c.bufferBytes = 32ull << 20;
    return c;
}

uint64_t deliveredBytes(TestNetwork& net) {
    return net.fabric.DeliveredBytes();
}

TEST(RoceFabric, SingleFlowRunsAtLineRateWithinHalfAPercentOfTheAnalyticTime) {
    Diagnostics diag;
    TestNetwork net(star(2), baseConfig(), diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    const uint64_t size = 10'000'000;
    net.runner.AddFlow(0, 1, size, 3, 100, 0);
    ASSERT_TRUE(net.runner.Run(1'000'000'000'000ull)) << net.runner.HangReport();
    ASSERT_EQ(net.runner.Fct().size(), 1u);
    const FctRecordPs& r = net.runner.Fct()[0];
    // 10,000 packets of 1000 B; each takes (1000 + 62 header/trailer bytes + 20 preamble/gap) x 8 bits on the
    // wire.
    const double packetPs = (1000 + 62 + 20) * 8 / 100e9 * 1e12;
    const double ackPs = (ackFrameBytes(0) + 20) * 8 / 100e9 * 1e12;
    // Last packet: both hops; its ACK: both hops back; four propagation delays.
    const double analyticPs = 10'000 * packetPs + packetPs + 2 * ackPs + 4 * 1e6;
    const double fctPs = static_cast<double>(r.finishPs - r.startPs);
    EXPECT_NEAR(fctPs, analyticPs, 0.005 * analyticPs);
    EXPECT_GE(fctPs, analyticPs - 1);
    EXPECT_EQ(net.fabric.Nic(1).DeliveredBytes(), size);
    EXPECT_EQ(net.fabric.TotalDrops(), 0u);
    // The ideal FCT reported for slowdowns uses the same overheads.
    EXPECT_NEAR(static_cast<double>(r.idealPs), analyticPs, 0.005 * analyticPs);
}

// The device's Tx trace runs only when its flag says a sink is connected: the flag must follow every way in
// and out (ns-3's accessors call these by the source's type).
TEST(FlaggedTracedCallback, TheFlagFollowsConnectionsAndSinksGetEveryCall) {
    bool connected = true;
    FlaggedTracedCallback<int> trace(&connected);
    EXPECT_FALSE(connected);
    int sum = 0;
    const auto plain = ns3::MakeBoundCallback(
        +[](int* s, int v) { *s += v; }, &sum);
    const auto withContext = ns3::MakeBoundCallback(
        +[](int* s, std::string, int v) { *s += 100 * v; }, &sum);
    trace.ConnectWithoutContext(plain);
    EXPECT_TRUE(connected);
    trace(2);
    EXPECT_EQ(sum, 2);
    trace.Connect(withContext, "ctx");
    trace.DisconnectWithoutContext(plain);
    EXPECT_TRUE(connected);  // the one with a context is still there
    trace(1);
    EXPECT_EQ(sum, 102);
    trace.Disconnect(withContext, "ctx");
    EXPECT_FALSE(connected);
}

// Serialization times: exact closed forms, and the 64-bit fast path gives the 128-bit quotient on both
// sides of its limit, for rates that do and do not divide 10^12.
TEST(RoceTiming, WireAndBitTimesAreTheExactRoundedQuotients) {
    EXPECT_EQ(wireTimePs(1000, 20, 100'000'000'000ull), 81'600u);  // 8,160 bits at 100 Gb/s
    EXPECT_EQ(wireTimePs(1, 0, 3), 2'666'666'666'667u);            // 8/3 s, rounded to nearest
    EXPECT_EQ(bitsTimePs(8, 3), 2'666'666'666'667u);               // rounded up
    EXPECT_EQ(bitsTimePs(1, 3), 333'333'333'334u);
    const uint64_t rates[] = {1,
                              3,
                              7,
                              25'000'000'000ull,
                              100'000'000'000ull,
                              400'000'000'000ull,
                              (uint64_t{1} << 60) - 1,
                              uint64_t{1} << 60,
                              UINT64_MAX};
    const uint64_t bitCounts[] = {1, (uint64_t{1} << 24) - 1, uint64_t{1} << 24, uint64_t{1} << 40};
    for (const uint64_t rate : rates) {
        for (const uint64_t bits : bitCounts) {
            const Uint128 product = static_cast<Uint128>(bits) * 1'000'000'000'000ull;
            EXPECT_EQ(bitsTimePs(bits, rate), static_cast<TimePs>((product + rate - 1) / rate))
                << bits << " " << rate;
            if (bits % 8 == 0) {
                EXPECT_EQ(wireTimePs(bits / 8, 0, rate), static_cast<TimePs>((product + rate / 2) / rate))
                    << bits << " " << rate;
            }
        }
    }
}

// A port whose rate divides 8 Tb/s takes a frame's time as bytes times whole picoseconds per byte; that must
// be the rounded quotient itself at every such rate and frame size, and rates that do not divide it get no
// shortcut.
TEST(RoceTiming, WholePicosecondsPerByteGiveTheExactWireTime) {
    EXPECT_EQ(wholePsPerByte(100'000'000'000ull), 80u);
    EXPECT_EQ(wholePsPerByte(800'000'000'000ull), 10u);
    EXPECT_EQ(wholePsPerByte(3), 0u);
    EXPECT_EQ(wholePsPerByte(30'000'000'000ull), 0u);      // 266.67 ps per byte
    EXPECT_EQ(wholePsPerByte(3'000'000'000'000ull), 0u);   // 2.67
    EXPECT_EQ(wholePsPerByte(16'000'000'000'000ull), 0u);  // half a picosecond
    EXPECT_EQ(wholePsPerByte(0), 0u);
    for (const uint64_t rate : {1'000'000'000ull, 10'000'000'000ull, 25'000'000'000ull, 40'000'000'000ull,
                                50'000'000'000ull, 100'000'000'000ull, 200'000'000'000ull, 400'000'000'000ull,
                                800'000'000'000ull, 1'600'000'000'000ull, 8'000'000'000'000ull}) {
        const TimePs perByte = wholePsPerByte(rate);
        ASSERT_NE(perByte, 0u) << rate;
        for (uint64_t bytes = 1; bytes <= 9'216; ++bytes) {
            ASSERT_EQ(bytes * perByte, wireTimePs(bytes, 0, rate)) << bytes << " B at " << rate;
        }
    }
}

// In the reference's start order, flows of the file wait for their turn in file order; a flow added between
// two runs is not part of the file and starts at its own time, not behind the file's next pending start.
TEST(HpccFlowRunner, ReferenceOrderStartsAFlowAddedBetweenRunsAtItsTime) {
    Diagnostics diag;
    TestNetwork net(star(3), baseConfig(), diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    net.runner.SetReferenceStartOrder(true);
    const TimePs us = 1'000'000;
    net.runner.AddFlow(0, 1, 10'000, 3, 100, 100 * us);
    net.runner.AddFlow(1, 2, 10'000, 3, 100, 3'000 * us);  // pending when the first run stops
    EXPECT_FALSE(net.runner.Run(2'000 * us));
    ASSERT_EQ(net.runner.Fct().size(), 1u);
    EXPECT_EQ(net.runner.Fct()[0].startPs, 100 * us);
    net.runner.AddFlow(2, 0, 10'000, 3, 100, 2'500 * us);
    ASSERT_TRUE(net.runner.Run(10'000 * us)) << net.runner.HangReport();
    ASSERT_EQ(net.runner.Fct().size(), 3u);
    std::map<uint64_t, TimePs> starts;
    for (const FctRecordPs& r : net.runner.Fct()) {
        starts[r.flowId] = r.startPs;
    }
    EXPECT_EQ(starts[1], 3'000 * us);
    EXPECT_EQ(starts[2], 2'500 * us);  // was 3,000 us: queued behind flow 1's start
}

TEST(RoceFabric, IncastWithPfcIsLosslessAndPauses) {
    Diagnostics diag;
    FabricSettings config = baseConfig();
    config.ecnEnabled = false;
    TestNetwork net(star(9), config, diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    const uint64_t size = 4'000'000;
    for (uint32_t s = 1; s <= 8; ++s) {
        net.runner.AddFlow(s, 0, size, 3, 100, 0);
    }
    ASSERT_TRUE(net.runner.Run(1'000'000'000'000ull)) << net.runner.HangReport();
    EXPECT_EQ(net.fabric.TotalDrops(), 0u);
    EXPECT_EQ(net.fabric.Nic(0).DeliveredBytes(), 8 * size);
    uint64_t pauses = 0, resumes = 0;
    for (const PfcEvent& e : net.fabric.Pfc()) {
        (e.pause ? pauses : resumes) += 1;
        EXPECT_FALSE(e.isSwitch) << "only the senders are paused in an incast";
    }
    EXPECT_GT(pauses, 0u);
    EXPECT_GT(resumes, 0u);
    // The bottleneck drains at line rate: the last flow ends close to 32 MB at 100 Gb/s.
    TimePs last = 0;
    for (const FctRecordPs& r : net.runner.Fct()) {
        last = std::max(last, r.finishPs);
    }
    const double ideal = 8.0 * size / 1000 * (1082 * 8) / 100e9 * 1e12;
    EXPECT_LT(static_cast<double>(last), 1.05 * ideal);
    EXPECT_GT(static_cast<double>(last), ideal);
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizerAllocator = true;  // no glibc heap to advise
#else
constexpr bool kSanitizerAllocator = false;
#endif

// A fabric of kHugePageMinPorts ports or more advises the heap for huge pages, unless its settings say not
// to. The advice acts once per process, so each case runs in a process of its own (the death-test machinery's
// re-executed child), where the first advice returns the bytes it advised and a later one nothing.
TEST(RoceFabricDeathTest, LargeFabricsAdviseTheHeapUnlessToldNotTo) {
    if (kSanitizerAllocator) {
        GTEST_SKIP() << "a sanitizer's allocator: nothing to advise";
    }
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    for (const bool hugePageHeap : {true, false}) {
        EXPECT_EXIT(
            {
                Diagnostics diag;
                FabricSettings config = baseConfig();
                config.hugePageHeap = hugePageHeap;
                TestNetwork net(star(RoceFabric::kHugePageMinPorts / 2), config, diag);
                std::_Exit(diag.hasErrors() ? 3 : adviseHugePagesForHeap() > 0 ? 0 : 1);
            },
            ::testing::ExitedWithCode(hugePageHeap ? 1 : 0), "")
            << "hugePageHeap " << hugePageHeap;
    }
}

TEST(RoceFabric, LossyIncastRecoversEveryByteWithGoBackNAndTimeouts) {
    Diagnostics diag;
    FabricSettings config = baseConfig();
    config.pfcEnabled = false;
    config.ecnEnabled = false;
    config.bufferBytes = 1 << 20;
    config.nic.rtoPs = 200'000'000;  // 200 us
    TestNetwork net(star(9), config, diag);
    ASSERT_FALSE(diag.hasErrors());
    const uint64_t size = 1'000'000;
    for (uint32_t s = 1; s <= 8; ++s) {
        net.runner.AddFlow(s, 0, size, 3, 100, 0);
    }
    ASSERT_TRUE(net.runner.Run(10'000'000'000'000ull)) << net.runner.HangReport();
    EXPECT_GT(net.fabric.TotalDrops(), 0u);
    EXPECT_EQ(net.fabric.Nic(0).DeliveredBytes(), 8 * size);
    EXPECT_EQ(net.runner.Fct().size(), 8u);
    EXPECT_TRUE(net.fabric.Pfc().empty());
    uint64_t nacks = net.fabric.Nic(0).NacksSent();
    EXPECT_GT(nacks, 0u);
}

TEST(RoceFabric, OnePercentRandomLossStillCompletesEveryFlow) {
    Diagnostics diag;
    FabricSettings config = baseConfig();
    config.nic.rtoPs = 100'000'000;
    TestNetwork net(star(3, 0.01), config, diag);  // host 0's cable drops 1% of frames both ways
    ASSERT_FALSE(diag.hasErrors());
    net.runner.AddFlow(0, 1, 2'000'000, 3, 100, 0);
    net.runner.AddFlow(2, 0, 2'000'000, 3, 100, 0);
    net.runner.AddFlow(1, 2, 2'000'000, 3, 100, 0);
    ASSERT_TRUE(net.runner.Run(10'000'000'000'000ull)) << net.runner.HangReport();
    EXPECT_GT(net.fabric.TotalDrops(), 0u);
    EXPECT_EQ(net.runner.Fct().size(), 3u);
    EXPECT_EQ(deliveredBytes(net), 6'000'000u);
}

TEST(RoceFabric, EcnMarksOnlyAboveKmin) {
    Diagnostics diag;
    FabricSettings config = baseConfig();
    config.ecn = {{k100G, 200'000, 800'000, 0.5}};
    TestNetwork net(star(5), config, diag);
    ASSERT_FALSE(diag.hasErrors());
    ns3::Ptr<RoceSwitch> sw = net.fabric.Switches()[0];
    uint64_t marks = 0, belowKmin = 0;
    std::pair<uint64_t*, uint64_t*> markCounters(&marks, &belowKmin);
    sw->TraceConnectWithoutContext(
        "EcnMark", ns3::MakeBoundCallback(
                       +[](std::pair<uint64_t*, uint64_t*>* counters, ns3::Ptr<RoceSwitch> s, uint32_t,
                           uint32_t port, const RocePacket* p, uint64_t) {
                           ++*counters->first;
                           if (s->Mmu().egressBytes(port, p->priority) <= 200'000) {
                               ++*counters->second;
                           }
                       },
                       &markCounters, sw));
    for (uint32_t s = 1; s <= 4; ++s) {
        net.runner.AddFlow(s, 0, 3'000'000, 3, 100, 0);
    }
    ASSERT_TRUE(net.runner.Run(1'000'000'000'000ull)) << net.runner.HangReport();
    EXPECT_GT(marks, 0u);
    EXPECT_EQ(belowKmin, 0u);
    EXPECT_EQ(marks, sw->EcnMarks());
}

// The packet model's switches and the analytical model route a flow (source, destination, UDP source port)
// over the same path: both take their next hops from the one Routing and hash with the one ECMP hash.
TEST(RoceFabric, PacketAndAnalyticalModelsChooseTheSamePath) {
    for (uint64_t seed : {1u, 9u}) {
        auto spec = std::make_shared<const TopologySpec>(buildFatTree(8, LinkSettings{}));
        Diagnostics diag;
        FabricSettings settings = baseConfig();
        settings.seed = seed;
        TestNetwork net(spec, settings, diag);
        ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
        const Topology analytical = Topology::fromSpec(spec, seed);
        std::mt19937_64 random(seed);
        for (int i = 0; i < 1000; ++i) {
            RocePacket p;
            p.srcHost = static_cast<uint32_t>(random() % spec->numHosts());
            p.dstHost = static_cast<uint32_t>(random() % spec->numHosts());
            p.udpSrcPort = static_cast<uint16_t>(10000 + random() % 50000);
            if (p.srcHost == p.dstHost) {
                continue;
            }
            std::vector<uint32_t> packetCables{spec->portCable(p.srcHost, 0)};  // hosts have one NIC port
            uint32_t v = spec->portPeer(p.srcHost, 0);
            while (v != p.dstHost) {
                const RoceSwitch& sw = *net.fabric.Switches()[v - spec->numHosts()];
                ASSERT_EQ(sw.Vertex(), v);
                const uint32_t port = sw.Route(p);
                packetCables.push_back(spec->portCable(v, port));
                v = spec->portPeer(v, port);
                ASSERT_LE(packetCables.size(), 6u);
            }
            std::vector<uint32_t> analyticalCables;
            for (uint32_t link : analytical.route(p.srcHost, p.dstHost, p.udpSrcPort)) {
                analyticalCables.push_back(link / 2);  // cable c is links 2c and 2c + 1
            }
            EXPECT_EQ(packetCables, analyticalCables)
                << p.srcHost << " -> " << p.dstHost << " port " << p.udpSrcPort;
        }
    }
}

// ASTRA-sim's [Ring, Switch] x [4, 4] network at packet level: NPUs have two ring ports and a switch port,
// and messages between any two NPUs arrive, forwarded through the NPUs on the ring.
TEST(RoceFabric, MultiDimensionalNetworkCarriesFlowsBetweenAnyTwoNpus) {
    const double bw = gigabytesPerSecondToBytesPerNs(50);
    auto spec = std::make_shared<const TopologySpec>(
        buildMultiDimensional({{DimensionKind::Ring, 4, bw, 500}, {DimensionKind::Switch, 4, bw, 500}}));
    Diagnostics diag;
    FabricSettings settings = baseConfig();
    settings.ecn.clear();
    settings.ecnPer25Gbps = EcnRule{0, 100'000, 400'000, 0.2};
    TestNetwork net(spec, settings, diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    EXPECT_EQ(net.fabric.Nic(0).NumPorts(), 3u);
    uint64_t sent = 0;
    for (uint32_t a = 0; a < 16; ++a) {
        for (uint32_t b = 0; b < 16; ++b) {
            if (a != b) {
                net.runner.AddFlow(a, b, 20'000 + a * 16 + b, 3, 100, 0);
                sent += 20'000 + a * 16 + b;
            }
        }
    }
    ASSERT_TRUE(net.runner.Run(1'000'000'000'000ull)) << net.runner.HangReport();
    EXPECT_EQ(net.runner.Fct().size(), 240u);
    EXPECT_EQ(net.fabric.DeliveredBytes(), sent);
    EXPECT_EQ(net.fabric.TotalDrops(), 0u);
    // NPU 0 -> NPU 2 crosses NPU 1 or 3 on the ring: those NPUs forwarded frames.
    uint64_t forwarded = 0;
    for (uint32_t npu = 0; npu < 16; ++npu) {
        forwarded += net.fabric.Switches()[npu]->Mmu().peakBytes() > 0 ? 1 : 0;
    }
    EXPECT_GT(forwarded, 0u);
}

// An NPU's ports differ in rate when its dimensions do: a flow runs at the rate of the port it leaves on,
// with or without the network-wide base RTT (GLOBAL_T), not at the rate of the NPU's first port.
TEST(RoceFabric, FlowsOnAFastDimensionRunAtThatDimensionsRate) {
    auto spec = std::make_shared<const TopologySpec>(
        buildMultiDimensional({{DimensionKind::Ring, 4, gigabytesPerSecondToBytesPerNs(25), 500},
                               {DimensionKind::Switch, 4, gigabytesPerSecondToBytesPerNs(100), 500}}));
    for (bool global : {true, false}) {
        Diagnostics diag;
        FabricSettings settings = baseConfig();
        settings.globalBaseRtt = global;
        settings.ecn.clear();
        settings.ecnPer25Gbps = EcnRule{0, 100'000, 400'000, 0.2};
        TestNetwork net(spec, settings, diag);
        ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
        net.runner.AddFlow(0, 4, 4'000'000, 3, 100, 0);  // NPU 0 -> 4: the switch dimension only
        net.runner.AddFlow(1, 2, 1'000'000, 3, 100, 0);  // NPU 1 -> 2: one ring hop
        ASSERT_TRUE(net.runner.Run(1'000'000'000'000ull)) << net.runner.HangReport();
        ASSERT_EQ(net.runner.Fct().size(), 2u);
        for (const FctRecordPs& r : net.runner.Fct()) {
            // The ideal FCT is the size at the path's bottleneck rate plus the base RTT; a flow held to the
            // 25 GB/s ring port would take 4x its ideal on the 100 GB/s switch dimension.
            const double fctPs = static_cast<double>(r.finishPs - r.startPs);
            EXPECT_NEAR(fctPs, static_cast<double>(r.idealPs), 0.01 * static_cast<double>(r.idealPs))
                << r.srcNode << " -> " << r.dstNode << (global ? " (global base RTT)" : "");
        }
    }
}

// A flow's window is at most its own port's BDP. The network-wide BDP (GLOBAL_T) is sized for the fastest
// host port; a window of it on a port four times slower would let each flow queue three of its BDPs before it
// binds. Hosts 0-2 at 25 Gb/s and host 3 at 100 Gb/s on one switch; hosts 0 and 1 send to host 2 under a
// window of one BDP and nothing else, so the switch never holds more than those two windows.
TEST(RoceFabric, AWindowOnASlowPortIsThatPortsBdp) {
    const std::string dir = makeTempDir("roce-mixed-rates");
    writeFileBytes(dir + "/topology.txt",
                   "5 1 4\n4\n0 4 25Gbps 1000ns 0\n1 4 25Gbps 1000ns 0\n2 4 25Gbps 1000ns 0\n"
                   "3 4 100Gbps 1000ns 0\n");
    Diagnostics diag;
    std::optional<TopologySpec> loaded = loadHpccTopologyFile(dir + "/topology.txt", diag);
    ASSERT_TRUE(loaded) << diag.format(Severity::Error);
    FabricSettings settings = baseConfig();
    settings.ecn.clear();
    settings.ecnPer25Gbps = EcnRule{0, 1'000'000, 2'000'000, 0.2};  // far above any queue here: no mark
    std::vector<cc::FlowParams> made;
    settings.ccFactory = [&made](const cc::FlowParams& flow) {
        made.push_back(flow);
        return std::make_unique<cc::NoCongestionControl>(flow, flow.bdpBytes);
    };
    TestNetwork net(std::make_shared<const TopologySpec>(std::move(*loaded)), settings, diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    net.runner.AddFlow(0, 2, 2'000'000, 3, 100, 0);
    net.runner.AddFlow(1, 2, 2'000'000, 3, 100, 0);
    ASSERT_TRUE(net.runner.Run(1'000'000'000'000ull)) << net.runner.HangReport();
    ASSERT_EQ(net.runner.Fct().size(), 2u);
    ASSERT_EQ(made.size(), 2u);
    const uint64_t slowPortBdpBytes = made[0].baseRttNs * 25'000'000'000ull / 8'000'000'000ull;
    for (const cc::FlowParams& flow : made) {
        EXPECT_EQ(flow.lineRateBps, 25'000'000'000ull);
        EXPECT_EQ(flow.bdpBytes, slowPortBdpBytes);
    }
    EXPECT_LE(net.fabric.Switches()[0]->Mmu().peakBytes(), 2 * slowPortBdpBytes);
    EXPECT_EQ(net.fabric.TotalDrops(), 0u);
}

// A host with more ports than 8 bits number (ASTRA-sim's FullyConnected dimensions of hundreds of NPUs give
// each NPU one port per peer): host 0 reaches host k + 1 only through switch k and its own port k, for 300
// ports; flows leave on ports 0, 255, 256 and 299 and arrive, each in its ideal time.
TEST(RoceFabric, HostWithHundredsOfPortsSendsOnEveryOne) {
    const uint32_t fan = 300, hosts = fan + 1;
    std::ostringstream file;
    file << hosts + fan << " " << fan << " " << 2 * fan << "\n";
    for (uint32_t k = 0; k < fan; ++k) {
        file << hosts + k << (k + 1 < fan ? " " : "\n");
    }
    for (uint32_t k = 0; k < fan; ++k) {
        file << "0 " << hosts + k << " 100Gbps 1000ns 0\n";
    }
    for (uint32_t k = 0; k < fan; ++k) {
        file << k + 1 << " " << hosts + k << " 100Gbps 1000ns 0\n";
    }
    const std::string dir = makeTempDir("roce-many-ports");
    writeFileBytes(dir + "/topology.txt", file.str());
    Diagnostics diag;
    std::optional<TopologySpec> loaded = loadHpccTopologyFile(dir + "/topology.txt", diag);
    ASSERT_TRUE(loaded) << diag.format(Severity::Error);
    auto spec = std::make_shared<const TopologySpec>(std::move(*loaded));
    ASSERT_EQ(spec->numPorts(0), fan);
    TestNetwork net(spec, baseConfig(), diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    for (uint32_t k : {0u, 255u, 256u, fan - 1}) {
        net.runner.AddFlow(0, k + 1, 100'000, 3, 100, 0);
    }
    ASSERT_TRUE(net.runner.Run(1'000'000'000'000ull)) << net.runner.HangReport();
    ASSERT_EQ(net.runner.Fct().size(), 4u);
    for (const FctRecordPs& r : net.runner.Fct()) {
        // Four flows share host 0's NIC only in its scheduler: each port is its own.
        EXPECT_NEAR(static_cast<double>(r.finishPs - r.startPs), static_cast<double>(r.idealPs),
                    0.05 * static_cast<double>(r.idealPs))
            << "0 -> " << r.dstNode;
    }
    EXPECT_EQ(net.fabric.TotalDrops(), 0u);
}

// Packets carry routes of up to RoceRoute::kMaxHops forwarding vertices; a longer path carries none and every
// switch routes the packet itself. Host 0 reaches host 1 over a chain of `chain` switches: at the limit the
// route is carried, three beyond it it is not, and both flows arrive whole in their ideal time.
TEST(RoceFabric, PathsLongerThanACarriedRouteAreRoutedByTheSwitches) {
    for (uint32_t chain : {RoceRoute::kMaxHops, RoceRoute::kMaxHops + 3}) {
        std::ostringstream file;
        file << 2 + chain << " " << chain << " " << chain + 1 << "\n";
        for (uint32_t k = 0; k < chain; ++k) {
            file << 2 + k << (k + 1 < chain ? " " : "\n");
        }
        file << "0 2 100Gbps 1000ns 0\n";
        for (uint32_t k = 0; k + 1 < chain; ++k) {
            file << 2 + k << " " << 3 + k << " 100Gbps 1000ns 0\n";
        }
        file << 1 + chain << " 1 100Gbps 1000ns 0\n";
        const std::string dir = makeTempDir("roce-long-path");
        writeFileBytes(dir + "/topology.txt", file.str());
        Diagnostics diag;
        std::optional<TopologySpec> loaded = loadHpccTopologyFile(dir + "/topology.txt", diag);
        ASSERT_TRUE(loaded) << diag.format(Severity::Error);
        auto spec = std::make_shared<const TopologySpec>(std::move(*loaded));
        TestNetwork net(spec, baseConfig(), diag);
        ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
        const RoceRoute route = RoceRoute::Compute(*spec, net.fabric.Routes(), 0, 1, 0);
        EXPECT_EQ(RoceRoute::Length(*spec, net.fabric.Routes(), 0, 1, 0), chain);
        EXPECT_EQ(route.length, chain <= RoceRoute::kMaxHops ? chain : 0u) << chain << " switches";
        net.runner.AddFlow(0, 1, 1'000'000, 3, 100, 0);
        ASSERT_TRUE(net.runner.Run(1'000'000'000'000ull)) << net.runner.HangReport();
        ASSERT_EQ(net.runner.Fct().size(), 1u);
        const FctRecordPs& r = net.runner.Fct()[0];
        EXPECT_NEAR(static_cast<double>(r.finishPs - r.startPs), static_cast<double>(r.idealPs),
                    0.01 * static_cast<double>(r.idealPs))
            << chain << " switches";
        EXPECT_EQ(net.fabric.DeliveredBytes(), 1'000'000u);
        EXPECT_EQ(net.fabric.TotalDrops(), 0u);
    }
}

// One host sends eight flows of 50-400 KB at line rate (no congestion control): per-packet round robin shares
// its port equally. Between two packets of a flow, every other flow with data left sends exactly one, and
// flow k ends once sum_j min(size_j, size_k) bytes have left, plus the path's latency. Both arbitrations must
// give that; the reference's scan also drops each finished QP from its order mid-run, and a wrong index
// there skips a flow's turn.
TEST(RoceFabric, BothNicArbitrationsShareAPortPacketByPacket) {
    for (NicArbitration arbitration : {NicArbitration::ReadyRing, NicArbitration::ScanAll}) {
        Diagnostics diag;
        FabricSettings config = baseConfig();
        config.nic.arbitration = arbitration;
        TestNetwork net(star(9), config, diag);
        ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
        const uint64_t sizes[] = {300'000, 100'000, 400'000, 50'000, 200'000, 350'000, 150'000, 250'000};
        for (uint32_t k = 0; k < 8; ++k) {
            net.runner.AddFlow(0, k + 1, sizes[k], 3, 100, 0);
        }
        std::vector<uint32_t> order;  // destination of each data packet host 0 sends
        net.fabric.Nic(0).Device()->TraceConnectWithoutContext(
            "Tx", ns3::MakeBoundCallback(
                      +[](std::vector<uint32_t>* o, const RocePacket* p) {
                          if (p->kind == PacketKind::Data) {
                              o->push_back(p->dstHost);
                          }
                      },
                      &order));
        ASSERT_TRUE(net.runner.Run(1'000'000'000'000ull)) << net.runner.HangReport();
        ASSERT_EQ(net.runner.Fct().size(), 8u);
        ASSERT_EQ(order.size(), 1'800u);
        std::map<uint32_t, uint64_t> left;  // packets still to send, per destination
        for (uint32_t k = 0; k < 8; ++k) {
            left[k + 1] = sizes[k] / 1000;
        }
        std::map<uint32_t, std::size_t> last;
        for (std::size_t i = 0; i < order.size(); ++i) {
            const uint32_t d = order[i];
            auto seen = last.find(d);
            // From the second round on: flows join while the first packet is on the wire, and our ring
            // serves the first flow again before them (it went back to the head alone).
            if (seen != last.end() && i >= 16) {
                // Every flow with packets left when d last sent has sent once since.
                std::set<uint32_t> between(order.begin() + seen->second + 1, order.begin() + i);
                EXPECT_EQ(between.size(), i - seen->second - 1)
                    << "a flow sent twice in one round, packet " << i;
                for (const auto& [other, n] : left) {
                    if (other != d && n > 0 && !between.count(other)) {
                        ADD_FAILURE() << "flow to host " << other << " missed its turn before packet " << i;
                    }
                }
            }
            last[d] = i;
            ASSERT_GT(left[d], 0u);
            --left[d];
        }
        const double packetPs = (1000 + 62 + 20) * 8 / 100e9 * 1e12;
        for (const FctRecordPs& r : net.runner.Fct()) {
            uint64_t before = 0;
            for (uint64_t other : sizes) {
                before += std::min(other, r.sizeBytes);
            }
            const double sharedPs = static_cast<double>(before) / 1000 * packetPs;
            const double fctPs = static_cast<double>(r.finishPs - r.startPs);
            EXPECT_GT(fctPs, sharedPs) << "flow of " << r.sizeBytes << " B";
            // Two hops there and back (4 us of cables), the last frame's second hop and the ACK's.
            EXPECT_LT(fctPs, sharedPs + 4.5e6) << "flow of " << r.sizeBytes << " B";
        }
        uint64_t delivered = 0;
        for (uint32_t k = 1; k <= 8; ++k) {
            delivered += net.fabric.Nic(k).DeliveredBytes();
        }
        EXPECT_EQ(delivered, 1'800'000u);
    }
}

// INT records in the reference's field units: two HPCC flows into one port, the ACKs echo the switch's
// records. With INT_MULTI 4 every byte count is a multiple of 512 and every queue reading of 320 (truncated);
// at full width the 1090-byte frames give byte counts that are not, and the queue readings are exact.
TEST(RoceFabric, ReferenceIntFieldsAreTruncatedToItsUnits) {
    for (const uint32_t multi : {0u, 4u}) {
        Diagnostics diag;
        FabricSettings config = baseConfig();
        config.nic.frames = FrameCharges{Framing::Hpcc, FrameCharges::kHpccIntBlockBytes};
        applyCongestionControl(config, selectCongestionControl(HpccConfig{}, "hpcc", "paper", diag));
        config.switches.intFieldMulti = multi;
        TestNetwork net(star(3), config, diag);
        ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
        net.runner.AddFlow(1, 0, 2'000'000, 3, 100, 0);
        net.runner.AddFlow(2, 0, 2'000'000, 3, 100, 0);
        std::vector<IntHop> records;  // the switch's record on each ACK host 0 sends
        net.fabric.Nic(0).Device()->TraceConnectWithoutContext(
            "Tx", ns3::MakeBoundCallback(
                      +[](std::vector<IntHop>* r, const RocePacket* p) {
                          if (p->kind == PacketKind::Ack && p->intHops == 1) {
                              r->push_back(p->hops[0]);
                          }
                      },
                      &records));
        ASSERT_TRUE(net.runner.Run(1'000'000'000'000ull)) << net.runner.HangReport();
        ASSERT_EQ(net.runner.Fct().size(), 2u);
        ASSERT_GT(records.size(), 3'000u);
        std::size_t offUnitBytes = 0, offUnitQueue = 0, queued = 0;
        for (const IntHop& h : records) {
            offUnitBytes += h.txBytes % 512 != 0;
            offUnitQueue += h.queueBytes % 320 != 0;
            queued += h.queueBytes > 0;
        }
        EXPECT_GT(queued, 100u);  // the port did queue: the queue field was exercised
        if (multi == 0) {
            EXPECT_GT(offUnitBytes, records.size() / 2);
            EXPECT_GT(offUnitQueue, 0u);
        } else {
            EXPECT_EQ(offUnitBytes, 0u);
            EXPECT_EQ(offUnitQueue, 0u);
        }
    }
}

// A NIC port's arrival hint (the prefetch of a frame's QP or receive context) comes when the frame starts on
// the cable, by default; with SetArrivalHintAtPreviousFrame, when the frame before it on the cable arrives,
// or at once when the cable was empty. One flow through a star, 1 us cables: every data frame into host 1 is
// hinted exactly once, in order, at the time the rule gives from the frames' starts on the switch's port.
TEST(RoceNetDevice, ArrivalHintComesAtTheFramesStartOrThePreviousFramesArrival) {
    struct Frame {
        TimePs atPs;
        uint64_t seq;
        TimePs endPs;  // hints: unused; starts: when its last bit leaves
        uint32_t dstQp;
    };
    static std::vector<Frame>* hints = nullptr;
    static std::vector<Frame>* starts = nullptr;
    const TimePs delayPs = 1'000'000;
    for (bool atPreviousFrame : {false, true}) {
        SCOPED_TRACE(atPreviousFrame ? "at the previous frame's arrival" : "at the frame's start");
        std::vector<Frame> hinted, started;
        hints = &hinted;
        starts = &started;
        Diagnostics diag;
        TestNetwork net(star(2), baseConfig(), diag);
        ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
        // The fabric's nodes are the last three made, in vertex order: host 0, host 1, the switch.
        const uint32_t nodes = ns3::NodeList::GetNNodes();
        ns3::Ptr<RoceNetDevice> host1 =
            ns3::DynamicCast<RoceNetDevice>(ns3::NodeList::GetNode(nodes - 2)->GetDevice(0));
        ns3::Ptr<RoceNetDevice> towardsHost1 =
            ns3::DynamicCast<RoceNetDevice>(ns3::NodeList::GetNode(nodes - 1)->GetDevice(1));
        ASSERT_TRUE(host1 && towardsHost1);
        host1->SetArrivalHint(
            +[](void*, const RoceNetDevice::ExpectedFrame& f) {
                if (f.kind == PacketKind::Data) {
                    hints->push_back({nowPs(), f.packet->seq, 0, f.dstQp});
                }
            },
            nullptr);
        host1->SetArrivalHintAtPreviousFrame(atPreviousFrame);
        towardsHost1->TraceConnectWithoutContext(
            "Tx", ns3::MakeCallback(+[](const RocePacket* p) {
                if (p->kind == PacketKind::Data) {
                    starts->push_back({nowPs(), p->seq,
                                       nowPs() + chargedWireTimePs(FrameCharges{}, p->frameBytes, k100G),
                                       p->dstQp});
                }
            }));
        net.runner.AddFlow(0, 1, 100'000, 3, 100, 0);
        ASSERT_TRUE(net.runner.Run(1'000'000'000'000ull)) << net.runner.HangReport();
        hints = starts = nullptr;
        ASSERT_EQ(started.size(), 100u);
        ASSERT_EQ(hinted.size(), started.size());
        uint32_t atArrival = 0;
        for (std::size_t i = 0; i < started.size(); ++i) {
            EXPECT_EQ(hinted[i].seq, started[i].seq) << "frame " << i;
            EXPECT_EQ(hinted[i].dstQp, started[i].dstQp) << "frame " << i;  // as copied when it left
            TimePs expectedPs = started[i].atPs;
            if (atPreviousFrame && i > 0 && started[i - 1].endPs + delayPs > started[i].atPs) {
                expectedPs = started[i - 1].endPs + delayPs;  // the previous frame was still on the cable
                ++atArrival;
            }
            EXPECT_EQ(hinted[i].atPs, expectedPs) << "frame " << i;
        }
        // The frames run back to back: all but the first find the one before them on the cable.
        EXPECT_EQ(atArrival, atPreviousFrame ? 99u : 0u);
    }
}

TEST(SwitchMmu, RedMarkingFollowsPmaxBetweenKminAndKmax) {
    MmuConfig c;
    c.bufferBytes = 64 << 20;
    c.ports.resize(2, MmuPortConfig{100'000, 3, 100'000, 300'000, 0.4});
    SwitchMmu mmu(c);
    auto fraction = [&] {
        int marked = 0;
        for (int i = 0; i < 1000; ++i) {
            marked += mmu.ecnMark(1, 3, (i + 0.5) / 1000);
        }
        return marked / 1000.0;
    };
    ASSERT_TRUE(mmu.admit(0, 3, 1, 100'000));
    EXPECT_EQ(fraction(), 0.0);  // exactly kmin: never
    ASSERT_TRUE(mmu.admit(0, 3, 1, 100'000));
    EXPECT_NEAR(fraction(), 0.4 * 0.5, 0.002);  // halfway: pmax / 2
    ASSERT_TRUE(mmu.admit(0, 3, 1, 100'001));
    EXPECT_EQ(fraction(), 1.0);  // above kmax: always
}

TEST(SwitchMmu, PauseResumeAndConservation) {
    MmuConfig c;
    c.bufferBytes = 1 << 20;
    c.reserveBytes = 4096;
    c.ports.resize(3, MmuPortConfig{50'000, 3, 0, 0, 0});
    SwitchMmu mmu(c);
    uint64_t admitted = 0;
    bool paused = false;
    for (int i = 0; i < 400 && !paused; ++i) {
        ASSERT_TRUE(mmu.admit(0, 3, 2, 1000));
        admitted += 1000;
        paused = mmu.checkPause(0, 3);
    }
    ASSERT_TRUE(paused);
    EXPECT_GE(admitted - 4096, mmu.threshold(0));
    // The packet that crossed the threshold went to the headroom and triggered the pause; the headroom
    // absorbs what is still in flight up to its size, and beyond it packets drop.
    uint64_t inHeadroom = 1000;
    while (mmu.admit(0, 3, 2, 1000)) {
        inHeadroom += 1000;
    }
    EXPECT_EQ(inHeadroom, 50'000u);
    admitted += inHeadroom - 1000;  // the first headroom packet is already counted
    bool resumed = false;
    while (admitted > 0) {
        mmu.release(0, 3, 2, 1000);
        admitted -= 1000;
        resumed |= mmu.checkResume(0, 3);
    }
    EXPECT_TRUE(resumed);
    EXPECT_EQ(mmu.totalBytes(), 0u);
    EXPECT_EQ(mmu.sharedUsedBytes(), 0u);
    EXPECT_EQ(mmu.egressBytes(2, 3), 0u);
}

// The reference's buffer budget: one reserve per port (not per priority) and, once a queue holds headroom,
// packets below the threshold go back to the shared pool. With 3 ports and 8 priorities the threshold is
// (buffer - headroom - reserves - shared) / 8: ours sets 24 reserves aside, the reference 3, so its queue
// pauses later, by 21 reserves over 9 (the shared part s pauses at s = (buffer - headroom - reserves) / 9).
TEST(SwitchMmu, ReferenceAccountingBudgetsOneReservePerPort) {
    uint64_t pausedAt[2] = {};
    for (const bool reference : {false, true}) {
        MmuConfig c;
        c.bufferBytes = 1 << 20;
        c.reserveBytes = 4096;
        c.referenceAccounting = reference;
        c.ports.resize(3, MmuPortConfig{50'000, 3, 0, 0, 0});
        SwitchMmu mmu(c);
        uint64_t admitted = 0;
        while (!mmu.checkPause(0, 3)) {
            ASSERT_TRUE(mmu.admit(0, 3, 2, 100));
            admitted += 100;
        }
        pausedAt[reference] = admitted - 4096;
        const uint64_t reserves = (reference ? 3 : 24) * 4096;
        const uint64_t expected = ((1 << 20) - 3 * 50'000 - reserves) / 9;
        EXPECT_NEAR(static_cast<double>(pausedAt[reference]), static_cast<double>(expected), 100);
    }
    EXPECT_GT(pausedAt[1], pausedAt[0] + 21 * 4096 / 9 - 200);
}

// A queue holding headroom whose threshold rises above it again (another port drained the shared pool):
// ours keeps it in headroom until it drains, the reference takes its next packet into the shared pool.
TEST(SwitchMmu, ReferenceAccountingLeavesHeadroomBelowTheThreshold) {
    for (const bool reference : {false, true}) {
        MmuConfig c;
        c.bufferBytes = 1 << 20;
        c.reserveBytes = 4096;
        c.referenceAccounting = reference;
        c.ports.resize(3, MmuPortConfig{50'000, 3, 0, 0, 0});
        SwitchMmu mmu(c);
        for (int i = 0; i < 600; ++i) {
            ASSERT_TRUE(mmu.admit(1, 3, 2, 100));  // 56 KB of shared from port 1
        }
        int fromPort0 = 0;
        while (!mmu.checkPause(0, 3)) {
            ASSERT_TRUE(mmu.admit(0, 3, 2, 100));
            ++fromPort0;
        }
        for (int i = 0; i < 600; ++i) {
            mmu.release(1, 3, 2, 100);
        }
        const uint64_t shared = mmu.sharedUsedBytes();
        ASSERT_TRUE(mmu.admit(0, 3, 2, 100));
        EXPECT_EQ(mmu.sharedUsedBytes(), shared + (reference ? 100 : 0))
            << (reference ? "reference" : "ours");
        EXPECT_GT(fromPort0, 0);
    }
}

// The buffer sets aside one PFC headroom per port (the reference's rule), but every paused class of a port
// may fill a whole headroom: a class's queue is paused with a round trip of its frames in flight while the
// NIC sends the others at full rate until they are paused in turn. With six lossless classes the switch
// holds more than its buffer; nothing drops, and the run says so instead of passing the result off as one
// of this buffer size.
TEST(RoceFabric, SeveralLosslessClassesOverfillingTheBufferAreReported) {
    auto run = [](std::vector<uint8_t> priorities, NetworkTotals& totals, uint64_t& bufferBytes) {
        Diagnostics diag;
        FabricSettings config = baseConfig();
        config.ecnEnabled = false;
        // 4 headrooms of 41 KB and 4 x 8 reserves of 4 KB leave a 106 KB shared pool.
        config.bufferBytes = 400'000;
        TestNetwork net(star(4), config, diag);
        ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
        for (uint32_t s = 1; s <= 3; ++s) {
            for (uint8_t priority : priorities) {
                net.runner.AddFlow(s, 0, 2'000'000, priority, static_cast<uint16_t>(100 + priority), 0);
            }
        }
        ASSERT_TRUE(net.runner.Run(1'000'000'000'000ull)) << net.runner.HangReport();
        EXPECT_EQ(net.fabric.TotalDrops(), 0u);
        totals = networkTotals(net.fabric);
        bufferBytes = net.fabric.Switches()[0]->Mmu().config().bufferBytes;
        Diagnostics warnings;
        warnOverfullBuffers(totals, warnings);
        EXPECT_EQ(warnings.format(Severity::Warning).empty(), totals.overfullSwitches == 0);
        if (totals.overfullSwitches) {
            EXPECT_THAT(warnings.format(Severity::Warning), HasSubstr("1 switch held more than its buffer"));
        }
    };
    NetworkTotals one, six;
    uint64_t bufferBytes = 0;
    run({3}, one, bufferBytes);
    EXPECT_EQ(one.overfullSwitches, 0u);
    run({1, 2, 3, 4, 5, 6}, six, bufferBytes);
    EXPECT_EQ(six.overfullSwitches, 1u);
    EXPECT_GT(six.worstOverfillBytes, 100'000u);
    EXPECT_EQ(six.worstOverfillNode, 4u);  // the star's switch
    EXPECT_EQ(bufferBytes, 400'000u);
}

TEST(RoceFabric, HangDetectorStopsAndReportsWhenALinkDies) {
    Diagnostics diag;
    FabricSettings config = baseConfig();
    TestNetwork net(star(2), config, diag, 2'000'000'000);  // hang check every 2 ms
    net.runner.AddFlow(0, 1, 50'000'000, 3, 100, 0);
    ASSERT_TRUE(net.fabric.ScheduleLinkDown(0, 2, 100'000'000));  // 100 us in
    EXPECT_FALSE(net.runner.Run(1'000'000'000'000ull));
    EXPECT_THAT(net.runner.HangReport(), HasSubstr("no progress for 2 ms"));
    EXPECT_THAT(net.runner.HangReport(), HasSubstr("host 0 flow 0 -> host 1"));
}

// Cables cut and restored mid-flow: on both sides of the switch, ports whose end-of-frame poll was skipped
// (the ACK ports, idle between ACKs) and busy ones (the sender's data port) go down with frames on the wire
// and resume when the cable comes back; timeouts repair the losses and every byte arrives once.
TEST(RoceFabric, CablesCutAndRestoredMidFlowLoseFramesAndTheFlowStillCompletes) {
    Diagnostics diag;
    FabricSettings config = baseConfig();
    config.nic.rtoPs = 100'000'000;  // 100 us
    TestNetwork net(star(2), config, diag);
    ASSERT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    const uint64_t size = 5'000'000;  // about 420 us at line rate
    net.runner.AddFlow(0, 1, size, 3, 100, 0);
    const TimePs us = 1'000'000;
    ns3::Ptr<RoceChannel> receiverCable = net.fabric.Nic(1).Device()->GetRoceChannel();
    ns3::Ptr<RoceChannel> senderCable = net.fabric.Nic(0).Device()->GetRoceChannel();
    ns3::Simulator::Schedule(ns3::PicoSeconds(100 * us), &RoceChannel::SetDown, receiverCable);
    ns3::Simulator::Schedule(ns3::PicoSeconds(250 * us), &RoceChannel::SetUp, receiverCable);
    ns3::Simulator::Schedule(ns3::PicoSeconds(400 * us), &RoceChannel::SetDown, senderCable);
    ns3::Simulator::Schedule(ns3::PicoSeconds(550 * us), &RoceChannel::SetUp, senderCable);
    ASSERT_TRUE(net.runner.Run(1'000'000'000'000ull)) << net.runner.HangReport();
    EXPECT_GT(receiverCable->Lost(), 0u);
    EXPECT_GT(senderCable->Lost(), 0u);
    EXPECT_EQ(net.fabric.Nic(1).DeliveredBytes(), size);
    EXPECT_GT(net.fabric.Nic(0).Timeouts(), 0u);
    // Two outages of 150 us each, plus at least one timeout after each.
    EXPECT_GT(net.runner.Fct()[0].finishPs, 420 * us + 2 * 150 * us);
}

TEST(RoceFabric, PcapDecodesAsRoceAndPfcInTshark) {
    if (std::system("command -v tshark > /dev/null 2>&1") != 0) {
        GTEST_SKIP() << "tshark not installed";
    }
    const std::string dir = makeTempDir("roce-pcap");
    {
        Diagnostics diag;
        FabricSettings config = baseConfig();
        config.pcapPath = dir + "/run.pcap";
        config.bufferBytes = 1 << 20;  // small, so that the incast pauses the senders
        TestNetwork net(star(4), config, diag);
        for (uint32_t s = 1; s <= 3; ++s) {
            net.runner.AddFlow(s, 0, 300'000, 3, 100, 0);
        }
        ASSERT_TRUE(net.runner.Run(1'000'000'000'000ull));
        ASSERT_FALSE(net.fabric.Pfc().empty());
        ASSERT_TRUE(net.fabric.FinishCapture()) << diag.format(Severity::Error);
    }
    const std::string out = dir + "/tshark.txt";
    ASSERT_EQ(std::system(
                  ("tshark -r " + dir + "/run.pcap -T fields -e frame.protocols > " + out + " 2>&1").c_str()),
              0);
    const std::string text = readFileBytes(out);
    EXPECT_THAT(text, HasSubstr("eth:ethertype:ip:udp:infiniband"));
    EXPECT_THAT(text, HasSubstr("macc"));  // MAC control: the PFC frames
}

}  // namespace
}  // namespace mlnet::roce

#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include "cc-selection.h"
#include "dcqcn.h"
#include "dctcp.h"
#include "hpcc.h"
#include "roce-cc-config.h"
#include "roce-channel.h"
#include "timely.h"

namespace mlnet::roce {
namespace {

TEST(RoceCcConfig, AttributesComeFromTheParameterTablesWithRealUnits) {
    const cc::DcqcnParams d{};
    ns3::Ptr<RoceCcConfig> config = ns3::CreateObject<RoceCcConfig>();
    EXPECT_EQ(config->Dcqcn().g, d.g);
    EXPECT_EQ(config->Dcqcn().increaseIntervalNs, d.increaseIntervalNs);
    EXPECT_EQ(config->Hpcc().targetUtil, cc::HpccParams{}.targetUtil);
    // One attribute per table row, named by the algorithm's prefix and the row.
    const ns3::TypeId tid = RoceCcConfig::GetTypeId();
    EXPECT_EQ(tid.GetAttributeN(), cc::dcqcnParameters().size() + cc::dctcpParameters().size() +
                                       cc::timelyParameters().size() + cc::hpccParameters().size());
    ns3::TypeId::AttributeInformation info;
    for (const auto& row : cc::timelyParameters()) {
        EXPECT_TRUE(tid.LookupAttributeByName(std::string("Timely") + row.name, &info)) << row.name;
    }
    ns3::Config::SetDefault("mlnet::roce::RoceCcConfig::DcqcnG", ns3::DoubleValue(0.25));
    ns3::Config::SetDefault("mlnet::roce::RoceCcConfig::TimelyTHigh", ns3::TimeValue(ns3::MicroSeconds(123)));
    ns3::Config::SetDefault("mlnet::roce::RoceCcConfig::DcqcnMinRate",
                            ns3::DataRateValue(ns3::DataRate("2Gbps")));
    ns3::Config::SetDefault("mlnet::roce::RoceCcConfig::HpccWindow", ns3::EnumValue(0));
    EXPECT_FALSE(
        ns3::Config::SetDefaultFailSafe("mlnet::roce::RoceCcConfig::HpccTargetUtil", ns3::DoubleValue(1.5)))
        << "outside the row's range";
    ns3::Ptr<RoceCcConfig> changed = ns3::CreateObject<RoceCcConfig>();
    EXPECT_EQ(changed->Dcqcn().g, 0.25);
    EXPECT_EQ(changed->Timely().tHighNs, 123'000u);
    EXPECT_EQ(changed->Dcqcn().minRateBps, 2'000'000'000u);
    EXPECT_EQ(changed->Hpcc().window, cc::WindowMode::None);
    EXPECT_EQ(changed->Hpcc().targetUtil, cc::HpccParams{}.targetUtil);
    EXPECT_EQ(changed->Dcqcn().byteCounterBytes, d.byteCounterBytes);  // untouched fields keep their defaults
    ns3::DoubleValue g;
    changed->GetAttribute("DcqcnG", g);
    EXPECT_EQ(g.Get(), 0.25);
    // The "attributes" preset builds its algorithms from these values.
    Diagnostics diag;
    const CcSelection s = selectCongestionControl(HpccConfig{}, "dcqcn", "attributes", diag);
    ASSERT_FALSE(diag.hasErrors());
    cc::FlowParams flow;
    flow.baseRttNs = 10'000;
    auto algorithm = s.factory(flow);
    auto* dcqcn = dynamic_cast<cc::Dcqcn*>(algorithm.get());
    ASSERT_NE(dcqcn, nullptr);
    ns3::Config::SetDefault("mlnet::roce::RoceCcConfig::DcqcnG", ns3::DoubleValue(d.g));
    ns3::Config::SetDefault("mlnet::roce::RoceCcConfig::TimelyTHigh",
                            ns3::TimeValue(ns3::NanoSeconds(cc::TimelyParams{}.tHighNs)));
    ns3::Config::SetDefault("mlnet::roce::RoceCcConfig::DcqcnMinRate",
                            ns3::DataRateValue(ns3::DataRate(d.minRateBps)));
    ns3::Config::SetDefault("mlnet::roce::RoceCcConfig::HpccWindow", ns3::EnumValue(2));
}

}  // namespace
}  // namespace mlnet::roce

namespace mlnet::roce {
namespace {

TEST(CcSelection, EveryPresetBuildsTheNamedAlgorithm) {
    cc::FlowParams flow;
    flow.lineRateBps = 100'000'000'000ull;
    flow.baseRttNs = 10'000;
    flow.bdpBytes = 125'000;
    for (const char* preset : {"config", "paper", "hpcc-paper", "attributes"}) {
        SCOPED_TRACE(preset);
        Diagnostics diag;
        const CcSelection dcqcn = selectCongestionControl(HpccConfig{}, "dcqcn", preset, diag);
        const CcSelection hpcc = selectCongestionControl(HpccConfig{}, "hpcc", preset, diag);
        const CcSelection timely = selectCongestionControl(HpccConfig{}, "timely", preset, diag);
        const CcSelection dctcp = selectCongestionControl(HpccConfig{}, "dctcp", preset, diag);
        ASSERT_FALSE(diag.hasErrors()) << diag.firstError();
        EXPECT_NE(dynamic_cast<cc::Dcqcn*>(dcqcn.factory(flow).get()), nullptr);
        EXPECT_NE(dynamic_cast<cc::Hpcc*>(hpcc.factory(flow).get()), nullptr);
        EXPECT_NE(dynamic_cast<cc::Timely*>(timely.factory(flow).get()), nullptr);
        EXPECT_NE(dynamic_cast<cc::Dctcp*>(dctcp.factory(flow).get()), nullptr);
        // Only the DCQCN paper's notification point sends real CNPs; everything else echoes ECN on ACKs.
        EXPECT_EQ(dcqcn.ecnEchoOnAck, std::string(preset) != "paper");
        EXPECT_TRUE(hpcc.intEnabled);
        EXPECT_FALSE(timely.intEnabled);
    }
    Diagnostics diag;
    selectCongestionControl(HpccConfig{}, "dcqcn", "papers", diag);
    EXPECT_THAT(diag.firstError(),
                HasSubstr("--cc-preset must be config, paper, hpcc-paper or attributes, not 'papers'"));
}

struct Sample {
    TimePs timePs;
    uint32_t node, port;
    uint64_t bytes;
};
void KeepSample(std::vector<Sample>* samples, uint32_t node, uint32_t port, uint64_t bytes) {
    samples->push_back({nowPs(), node, port, bytes});
}

TEST(RoceFabric, QueueSamplesStayInsideTheMonitorWindow) {
    Diagnostics diag;
    FabricSettings config;
    config.ecn = {{100'000'000'000ull, 100'000, 400'000, 0.2}};
    config.switches.queueSampleIntervalPs = 100'000;  // 100 ns
    config.switches.queueSampleStartPs = 50'000'000;  // 50 us
    config.switches.queueSampleEndPs = 80'000'000;    // 80 us
    TestNetwork net(star(3), config, diag);
    ASSERT_FALSE(diag.hasErrors());
    std::vector<Sample> samples;
    net.fabric.Switches()[0]->TraceConnectWithoutContext("QueueSample",
                                                         ns3::MakeBoundCallback(&KeepSample, &samples));
    net.runner.AddFlow(1, 0, 2'000'000, 3, 100, 0);
    net.runner.AddFlow(2, 0, 2'000'000, 3, 100, 0);
    ASSERT_TRUE(net.runner.Run(1'000'000'000'000ull));
    ASSERT_FALSE(samples.empty());
    std::vector<TimePs> lastAt(8, 0);
    for (const Sample& s : samples) {
        EXPECT_GE(s.timePs, 50'000'000u);
        EXPECT_LE(s.timePs, 80'000'000u);
        ASSERT_LT(s.port, lastAt.size());
        if (lastAt[s.port] != 0) {
            EXPECT_GE(s.timePs - lastAt[s.port], 100'000u)
                << "two samples of port " << s.port << " in an interval";
        }
        lastAt[s.port] = s.timePs;
    }
}

TEST(RoceFabric, MonitorFilesStreamPfcAndQueueSamplesAsTheyHappen) {
    const std::string dir = makeTempDir("roce-monitors");
    Diagnostics diag;
    FabricSettings config = baseConfig();
    config.bufferBytes = 1 << 20;                       // small, so that the incast pauses the senders
    config.switches.queueSampleIntervalPs = 1'000'000;  // 1 us
    TestNetwork net(star(4), config, diag);
    std::vector<Sample> samples;
    net.fabric.Switches()[0]->TraceConnectWithoutContext("QueueSample",
                                                         ns3::MakeBoundCallback(&KeepSample, &samples));
    uint64_t pauses = 0;
    {
        MonitorFiles monitors(net.fabric, dir + "/pfc.txt", dir + "/qlen.txt", diag);
        for (uint32_t s = 1; s <= 3; ++s) {
            net.runner.AddFlow(s, 0, 300'000, 3, 100, 0);
        }
        ASSERT_TRUE(net.runner.Run(1'000'000'000'000ull));
        EXPECT_TRUE(net.fabric.Pfc().empty()) << "streamed events are not also kept";
        pauses = net.fabric.PauseFramesReceived();
        EXPECT_FALSE(std::filesystem::exists(dir + "/pfc.txt")) << "the file appears at commit only";
        ASSERT_TRUE(monitors.commit()) << diag.format(Severity::Error);
    }
    ASSERT_GT(pauses, 0u);
    uint64_t pauseLines = 0, lastNs = 0;
    std::istringstream pfc(readFileBytes(dir + "/pfc.txt"));
    std::string line;
    while (std::getline(pfc, line)) {
        std::istringstream in(line);
        uint64_t ns = 0, node = 0, type = 0, port = 0, pause = 0;
        ASSERT_TRUE(in >> ns >> node >> type >> port >> pause) << line;
        EXPECT_GE(ns, lastNs);
        lastNs = ns;
        pauseLines += pause;
    }
    EXPECT_EQ(pauseLines, pauses);
    ASSERT_FALSE(samples.empty());
    std::string expected;
    for (const Sample& s : samples) {
        expected += std::to_string(psToNs(s.timePs)) + " " + std::to_string(s.node) + " " +
                    std::to_string(s.port) + " " + std::to_string(s.bytes) + "\n";
    }
    EXPECT_EQ(readFileBytes(dir + "/qlen.txt"), expected);
}

}  // namespace
}  // namespace mlnet::roce

// The packet model's event machinery: the queue pops in exact (time, uid) order whatever goes to its lanes or
// its heap, and RoceSimulatorImpl keeps ns-3's event semantics (ordering, Cancel, Remove, Stop,
// ids).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ns3/config.h"
#include "ns3/global-value.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include "cc-selection.h"
#include "fabric-settings.h"
#include "hpcc-config.h"
#include "hpcc-flow-runner.h"
#include "roce-event-queue.h"
#include "roce-fabric.h"
#include "roce-simulator-impl.h"
#include "roce-test-util.h"
#include "roce-timing.h"

namespace mlnet::roce {
namespace {

using Key = std::pair<uint64_t, uint64_t>;

// Interleaves pushes and pops with delays drawn by `delay` and checks every pop against an ordered set.
// newest: push with PushNewest (the uids here only grow), as the simulator does.
void CheckAgainstReference(RoceEventQueue& queue, const std::function<uint64_t(std::mt19937_64&)>& delay,
                           uint64_t seed, int operations, bool newest = false) {
    std::mt19937_64 rng(seed);
    std::set<Key> reference;
    uint64_t now = 0, uid = 0;
    for (int op = 0; op < operations; ++op) {
        const bool push = reference.empty() || (rng() % 100) < 52;
        if (push) {
            const uint64_t ts = now + delay(rng);
            if (newest) {
                queue.PushNewest(ts, uid, nullptr, nullptr, uid);
            } else {
                queue.Push({ts, uid, nullptr, nullptr, uid});
            }
            reference.insert({ts, uid});
            ++uid;
        } else {
            const RoceEventQueue::Entry e = queue.Pop();
            ASSERT_EQ(Key(e.ts, e.uid), *reference.begin()) << "operation " << op;
            ASSERT_EQ(e.arg, e.uid);
            reference.erase(reference.begin());
            now = e.ts;
        }
        ASSERT_EQ(queue.Size(), reference.size());
    }
    while (!reference.empty()) {
        const RoceEventQueue::Entry e = queue.Pop();
        ASSERT_EQ(Key(e.ts, e.uid), *reference.begin());
        reference.erase(reference.begin());
    }
    EXPECT_TRUE(queue.Empty());
}

TEST(RoceEventQueue, PopsInTimeThenUidOrderForNearFarAndEqualTimes) {
    // Two lanes for delays (besides the heap's leaf and the sorted lane): most delays find them taken and go
    // to the heap; many entries share a time.
    RoceEventQueue small(4);
    CheckAgainstReference(
        small,
        [](std::mt19937_64& rng) -> uint64_t {
            switch (rng() % 5) {
                case 0:
                    return 0;  // same time as now
                case 1:
                    return rng() % 16;
                case 2:
                    return rng() % 1024;
                case 3:
                    return 1024 + rng() % 100000;  // far ahead, nearly all distinct: the heap
                default:
                    return (rng() % 4) * 80;  // a few equal times
            }
        },
        1, 200000);
}

TEST(RoceEventQueue, DefaultGeometryWithPacketLikeDelays) {
    RoceEventQueue queue;
    CheckAgainstReference(
        queue,
        [](std::mt19937_64& rng) -> uint64_t {
            const uint64_t kinds[] = {81920, 1000000, 1081920, 0, 55000000, 4000000000};
            return kinds[rng() % 6] + (rng() % 3 == 0 ? rng() % 2000 : 0);
        },
        2, 300000);
    RoceEventQueue newest;
    CheckAgainstReference(
        newest,
        [](std::mt19937_64& rng) -> uint64_t {
            const uint64_t kinds[] = {81920, 1000000, 1081920, 0, 55000000, 4000000000};
            return kinds[rng() % 6] + (rng() % 3 == 0 ? rng() % 2000 : 0);
        },
        7, 300000, /*newest=*/true);
}

TEST(RoceEventQueue, LongIdleGapsBetweenBursts) {
    // Times jump by 2^40 between bursts of short delays; order stays exact and the queue drains.
    RoceEventQueue queue(4);
    CheckAgainstReference(
        queue,
        [](std::mt19937_64& rng) -> uint64_t { return rng() % 7 == 0 ? (uint64_t{1} << 40) : rng() % 300; },
        3, 100000);
}

TEST(RoceEventQueue, FixedDelaysFillLanesBeyondTheirFirstRing) {
    // Thousands pending per delay (a large network): the lanes' rings grow and wrap while in use.
    RoceEventQueue queue(4);
    CheckAgainstReference(
        queue,
        [](std::mt19937_64& rng) -> uint64_t {
            const uint64_t kinds[] = {6880, 86560, 1006880, 1086560};
            return rng() % 50 == 0 ? rng() % 100000 : kinds[rng() % 4];
        },
        4, 400000);
}

TEST(RoceEventQueue, MoreRecurringDelaysThanLanesTakeTurns) {
    // Forty fixed delays over sixteen lanes (a network of many link speeds and lengths): lanes are handed
    // from delay to delay as they empty, delays that share an index slot find their own lanes, the rest
    // waits in the heap; the order stays exact.
    RoceEventQueue queue;
    CheckAgainstReference(
        queue, [](std::mt19937_64& rng) -> uint64_t { return 6880 + 800 * (rng() % 40); }, 6, 400000);
}

TEST(RoceEventQueue, ReservedUidsPushedLaterPopInOrder) {
    // What skipped polls do: take a uid now for a time fixed now, push it later (or never), amid lane traffic
    // of the same delays.
    RoceEventQueue queue;
    std::mt19937_64 rng(5);
    std::set<Key> reference;
    std::vector<Key> reserved;
    uint64_t now = 0, uid = 0;
    const uint64_t kinds[] = {6880, 86560, 1006880, 1086560};
    for (int op = 0; op < 300000; ++op) {
        const uint64_t r = rng() % 100;
        if (r < 40 || reference.empty()) {
            const uint64_t ts = now + kinds[rng() % 4];
            queue.PushNewest(ts, uid, nullptr, nullptr, uid);  // above every uid so far, reserved ones too
            reference.insert({ts, uid++});
        } else if (r < 50) {
            reserved.push_back({now + kinds[rng() % 4], uid++});
        } else if (r < 58 && !reserved.empty()) {
            const std::size_t i = rng() % reserved.size();
            const Key k = reserved[i];
            reserved.erase(reserved.begin() + static_cast<std::ptrdiff_t>(i));
            if (k.first >= now) {  // a poll whose moment has not passed
                // Both ways in: the lane-first push, and the heap-only one the simulator uses for them.
                if (rng() & 1) {
                    queue.Push({k.first, k.second, nullptr, nullptr, k.second});
                } else {
                    queue.PushEarlierUid(k.first, k.second, nullptr, nullptr, k.second);
                }
                reference.insert(k);
            }
        } else {
            const RoceEventQueue::Entry e = queue.Pop();
            ASSERT_EQ(Key(e.ts, e.uid), *reference.begin()) << "operation " << op;
            reference.erase(reference.begin());
            now = e.ts;
        }
    }
    while (!reference.empty()) {
        const RoceEventQueue::Entry e = queue.Pop();
        ASSERT_EQ(Key(e.ts, e.uid), *reference.begin());
        reference.erase(reference.begin());
    }
    EXPECT_TRUE(queue.Empty());
}

TEST(RoceEventQueue, AnEntryBelowItsLanesLastUidStillPopsInOrder) {
    // Same delay, same time, falling uids (a caller that reserved uids): the lane cannot take the later
    // pushes in order, the heap does.
    RoceEventQueue queue(4);
    for (uint64_t uid : {9, 7, 8, 3}) {
        queue.Push({100, uid, nullptr, nullptr, uid});
    }
    queue.Push({100, 10, nullptr, nullptr, 10});
    std::vector<uint64_t> popped;
    while (!queue.Empty()) {
        popped.push_back(queue.Pop().uid);
    }
    EXPECT_EQ(popped, (std::vector<uint64_t>{3, 7, 8, 9, 10}));
}

TEST(RoceEventQueue, RejectsLaneCountsThatAreNotAPowerOfTwoFrom4To64) {
    EXPECT_THROW(RoceEventQueue(0), std::invalid_argument);
    EXPECT_THROW(RoceEventQueue(1), std::invalid_argument);
    EXPECT_THROW(RoceEventQueue(2), std::invalid_argument);  // the heap's leaf and the sorted lane, no more
    EXPECT_THROW(RoceEventQueue(3), std::invalid_argument);
    EXPECT_NO_THROW(RoceEventQueue(4));
    EXPECT_THROW(RoceEventQueue(128), std::invalid_argument);
    EXPECT_NO_THROW(RoceEventQueue(64));
}

TEST(RoceEventQueue, ForEachVisitsEveryPendingEntryOnce) {
    RoceEventQueue queue(4);
    for (uint64_t i = 0; i < 500; ++i) {
        queue.Push({(i * 7919) % 5000, i, nullptr, nullptr, i});
    }
    for (uint64_t i = 500; i < 600; ++i) {
        queue.PushEarlierUid((i * 7919) % 5000, i, nullptr, nullptr, i);  // the sorted lane
    }
    (void)queue.Pop();
    std::vector<int> seen(600, 0);
    queue.ForEach([&](const RoceEventQueue::Entry& e) { ++seen[e.arg]; });
    int total = 0;
    for (int s : seen) {
        EXPECT_LE(s, 1);
        total += s;
    }
    EXPECT_EQ(total, 599);
}

class RoceSimulatorImplTest : public ::testing::Test {
protected:
    void SetUp() override { UsePicosecondTime(); }
    void TearDown() override { ns3::Simulator::Destroy(); }
};

std::vector<int> g_order;
void Record(int v) {
    g_order.push_back(v);
}
struct Light {
    uint64_t firedAtPs = 0;
    void Fire(uint64_t v) {
        firedAtPs = nowPs();
        Record(static_cast<int>(v));
    }
};
Light light;

TEST_F(RoceSimulatorImplTest, IsSelectedAndKeepsNs3EventSemantics) {
    g_order.clear();
    ns3::Simulator::Schedule(ns3::NanoSeconds(5), &Record, 3);  // creates the implementation
    ASSERT_NE(RoceSimulatorImpl::Current(), nullptr) << "UsePicosecondTime must select RoceSimulatorImpl";
    ns3::Simulator::Schedule(ns3::NanoSeconds(1), &Record, 1);
    ns3::Simulator::Schedule(ns3::NanoSeconds(5), &Record, 4);  // same time: scheduling order
    ns3::EventId cancelled = ns3::Simulator::Schedule(ns3::NanoSeconds(2), &Record, 99);
    ns3::EventId removed = ns3::Simulator::Schedule(ns3::NanoSeconds(3), &Record, 98);
    ns3::Simulator::Schedule(ns3::NanoSeconds(2), [] { ScheduleMember<&Light::Fire>(1000, &light, 2); });
    ns3::Simulator::Schedule(ns3::MilliSeconds(1), &Record, 5);
    ns3::Simulator::Cancel(cancelled);
    ns3::Simulator::Remove(removed);
    EXPECT_TRUE(cancelled.IsExpired());
    EXPECT_TRUE(removed.IsExpired());
    const ns3::EventId pending = ns3::Simulator::Schedule(ns3::MilliSeconds(2), &Record, 6);
    EXPECT_FALSE(pending.IsExpired());
    EXPECT_EQ(ns3::Simulator::GetDelayLeft(pending), ns3::MilliSeconds(2));
    ns3::Simulator::Stop(ns3::MicroSeconds(1500));
    ns3::Simulator::Run();
    EXPECT_EQ(g_order, (std::vector<int>{1, 2, 3, 4, 5}));
    EXPECT_EQ(ns3::Simulator::Now(), ns3::MicroSeconds(1500));
    EXPECT_EQ(light.firedAtPs, 3000u);
    EXPECT_FALSE(pending.IsExpired());
    ns3::Simulator::Run();  // resumes after Stop
    EXPECT_EQ(g_order.back(), 6);
    EXPECT_TRUE(pending.IsExpired());
}

// Runs `simulate` (which builds a network and runs it) under ns-3's default simulator implementation when
// ns3Default, else under ours, and restores the model's picosecond resolution afterwards.
template <typename F>
auto UnderImplementation(bool ns3Default, F&& simulate) {
    if (ns3Default) {
        setenv("NS_GLOBAL_VALUE", "SimulatorImplementationType=ns3::DefaultSimulatorImpl", 1);
        ns3::GlobalValue::Bind("SimulatorImplementationType", ns3::StringValue("ns3::DefaultSimulatorImpl"));
    }
    auto result = simulate();
    if (ns3Default) {
        unsetenv("NS_GLOBAL_VALUE");
    }
    UsePicosecondTime();
    return result;
}

// A port that has nothing queued when a frame starts skips its poll at the frame's end unless something
// arrives first (roce-net-device.cc): with ns-3's own implementation every poll runs. The two must give the
// same run, in the same event order: an all-to-all whose flows start together on equal links (many events
// share a time, so a poll scheduled late must keep its place among them), then an incast whose pauses make
// ports go idle and busy again mid-frame. With DCQCN the NICs pace their QPs: a NIC port skips its poll
// only while a wake-up is armed for its earliest paced QP (a poll that finds nothing arms it; skipping one
// without it left paced QPs waiting for ever).
TEST(RoceSimulatorImpl, SkippedPollsGiveTheRunOfNs3sDefaultImplementation) {
    struct Run {
        std::vector<FctRecordPs> fct;
        std::vector<PfcEvent> pfc;
        uint64_t events = 0;
    };
    // cc: "" for none, else a congestion control with the config preset (DCQCN: paced QPs; HPCC: windows,
    // whose ACKs make a blocked QP eligible while a frame is on the wire).
    auto run = [](bool ns3Default, DataScheduler scheduler, const std::string& cc) {
        return UnderImplementation(ns3Default, [&] {
            Run r;
            Diagnostics diag;
            FabricSettings config;
            config.ecn = {{k100G, 20'000, 200'000, 0.2}};
            config.bufferBytes = 1 << 20;  // small, so that the incast pauses the senders
            config.switches.scheduler = scheduler;
            if (!cc.empty()) {
                applyCongestionControl(config, selectCongestionControl(HpccConfig{}, cc, "config", diag));
            }
            LinkSettings link;
            link.rateBps = k100G;
            TestNetwork net(std::make_shared<const TopologySpec>(buildFatTree(4, link)), config, diag);
            EXPECT_EQ(RoceSimulatorImpl::Current() == nullptr, ns3Default);
            // All-to-all on equal links from one start, as hpcc-bench's: many events share a time.
            for (uint32_t s = 0; s < 16; ++s) {
                for (uint32_t d = 0; d < 16; ++d) {
                    if (s != d) {
                        // Two data classes, so that the switches' schedulers choose between them.
                        net.runner.AddFlow(s, d, 64'000, static_cast<uint8_t>(3 + (s + d) % 2), 100, 0);
                    }
                }
            }
            for (uint32_t s = 1; s < 16; ++s) {
                net.runner.AddFlow(s, 0, 200'000, 3, 100, 30'000'000);  // then an incast, with pauses
            }
            EXPECT_TRUE(net.runner.Run(1'000'000'000'000ull)) << net.runner.HangReport();
            r.fct = net.runner.Fct();
            r.pfc = net.fabric.Pfc();
            r.events = ns3::Simulator::GetEventCount();
            return r;
        });
    };
    // Per-packet round robin over the classes, and deficit round robin (whose idle polls must not move it).
    for (const auto& [scheduler, cc] : {std::pair{DataScheduler::RoundRobin, std::string()},
                                        std::pair{DataScheduler::DeficitRoundRobin, std::string()},
                                        std::pair{DataScheduler::RoundRobin, std::string("dcqcn")},
                                        std::pair{DataScheduler::RoundRobin, std::string("hpcc")}}) {
        SCOPED_TRACE(cc.empty() ? "no congestion control" : cc);
        const Run ns3Run = run(true, scheduler, cc);
        const Run ours = run(false, scheduler, cc);
        ASSERT_EQ(ours.fct.size(), 255u);
        ASSERT_EQ(ns3Run.fct.size(), ours.fct.size());
        for (std::size_t i = 0; i < ours.fct.size(); ++i) {
            EXPECT_EQ(ours.fct[i].srcNode, ns3Run.fct[i].srcNode);
            EXPECT_EQ(ours.fct[i].startPs, ns3Run.fct[i].startPs);
            EXPECT_EQ(ours.fct[i].finishPs, ns3Run.fct[i].finishPs) << "flow " << i;
        }
        EXPECT_GT(ours.pfc.size(), 0u);
        ASSERT_EQ(ours.pfc.size(), ns3Run.pfc.size());
        for (std::size_t i = 0; i < ours.pfc.size(); ++i) {
            EXPECT_EQ(ours.pfc[i].timePs, ns3Run.pfc[i].timePs) << "pfc event " << i;
        }
        // Idle ports' polls were skipped, so fewer events ran.
        EXPECT_LT(ours.events, ns3Run.events);
    }
}

// A window-limited QP whose ACK arrives while its own last frame is on the wire becomes eligible exactly when
// that frame ends, after the port's end-of-frame poll was skipped: the poll must come back in its own place
// (ns-3's default implementation sends the QP's next frame from it), not leave the send to the later wake-up,
// which runs after whatever else is due at that instant. Cable delays on a grid of the frame time make such
// instants shared; the test compares the order in which every port starts its frames, instant ties included.
TEST(RoceSimulatorImpl, SkippedPollsKeepTheirPlaceWhenAWindowOpensDuringTheFrame) {
    struct Start {
        std::string port;  // the device's trace context (node and device index)
        TimePs atPs;
        PacketKind kind;
        uint64_t flow, seq;
        bool operator==(const Start& o) const {
            return port == o.port && atPs == o.atPs && kind == o.kind && flow == o.flow && seq == o.seq;
        }
    };
    static std::vector<Start>* starts = nullptr;
    auto run = [](bool ns3Default, TimePs delayPs, uint64_t windowBytes) {
        return UnderImplementation(ns3Default, [&] {
            std::vector<Start> log;
            starts = &log;
            Diagnostics diag;
            FabricSettings config;
            config.ecn = {{k100G, 100'000, 400'000, 0.2}};
            config.bufferBytes = 32ull << 20;
            config.windowBytes = windowBytes;
            LinkSettings link;
            link.rateBps = k100G;
            link.delayPs = delayPs;
            TestNetwork net(std::make_shared<const TopologySpec>(buildStar(3, link)), config, diag);
            EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
            ns3::Config::Connect("/NodeList/*/DeviceList/*/$mlnet::roce::RoceNetDevice/Tx",
                                 ns3::MakeCallback(+[](std::string context, const RocePacket* p) {
                                     starts->push_back({context, nowPs(), p->kind, p->flow, p->seq});
                                 }));
            // Two senders towards one host in step, and one pair in both directions.
            net.runner.AddFlow(0, 1, 40'000, 3, 100, 0);
            net.runner.AddFlow(2, 1, 40'000, 3, 100, 0);
            net.runner.AddFlow(1, 0, 40'000, 3, 100, 0);
            EXPECT_TRUE(net.runner.Run(1'000'000'000'000ull)) << net.runner.HangReport();
            starts = nullptr;
            return log;
        });
    };
    const TimePs framePs = 86'560;  // a 1,082-byte data frame at 100 Gb/s
    for (uint64_t windowBytes : {3'000ull, 5'000ull, 8'000ull}) {
        for (TimePs quarters = 1; quarters <= 12; ++quarters) {
            const TimePs delayPs = framePs * quarters / 4;
            SCOPED_TRACE("window " + std::to_string(windowBytes) + " B, delay " + std::to_string(delayPs) +
                         " ps");
            const std::vector<Start> expected = run(true, delayPs, windowBytes);
            const std::vector<Start> ours = run(false, delayPs, windowBytes);
            ASSERT_GT(expected.size(), 0u);
            ASSERT_EQ(ours.size(), expected.size());
            const auto [differs, expectedThere] = std::mismatch(ours.begin(), ours.end(), expected.begin());
            EXPECT_TRUE(differs == ours.end())
                << "frame start " << (differs - ours.begin()) << ": " << differs->port << " at "
                << differs->atPs << " ps, expected " << expectedThere->port << " at " << expectedThere->atPs
                << " ps";
        }
    }
}

}  // namespace
}  // namespace mlnet::roce

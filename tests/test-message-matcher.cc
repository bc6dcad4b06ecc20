// Tests of byte-counted receive matching, alone and through an analytical network.
#include "network/congestion-unaware-network.h"
#include "network/message-matcher.h"
#include "util/flat-index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

namespace mlnet {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Records which callbacks ran, in order, and when.
struct Log {
    const EventQueue* queue = nullptr;
    std::vector<uint64_t> ids;
    std::vector<TimeNs> times;

    Callback callback(uint64_t id) {
        return Callback{[](void* self, uint64_t arg) {
                            Log& log = *static_cast<Log*>(self);
                            log.ids.push_back(arg);
                            log.times.push_back(log.queue ? log.queue->now() : 0);
                        },
                        this, id};
    }
    void run(const std::vector<Callback>& ready) {
        for (const Callback& cb : ready) {
            cb();
        }
    }
};

TEST(MessageMatcher, ReceivePostedBeforeArrival) {
    MessageMatcher m;
    Log log;
    std::vector<Callback> ready;
    m.post(0, 1, 7, 100, log.callback(1), ready);
    EXPECT_THAT(ready, IsEmpty());
    EXPECT_FALSE(m.idle());
    m.arrive(0, 1, 7, 100, ready);
    log.run(ready);
    EXPECT_THAT(log.ids, ElementsAre(1u));
    EXPECT_TRUE(m.idle());
}

TEST(MessageMatcher, ReceivePostedAfterArrival) {
    MessageMatcher m;
    Log log;
    std::vector<Callback> ready;
    m.arrive(0, 1, 7, 100, ready);
    EXPECT_THAT(ready, IsEmpty());
    m.post(0, 1, 7, 100, log.callback(2), ready);
    log.run(ready);
    EXPECT_THAT(log.ids, ElementsAre(2u));
    EXPECT_TRUE(m.idle());
}

TEST(MessageMatcher, TwoArrivalsCompleteOneReceive) {
    MessageMatcher m;
    Log log;
    std::vector<Callback> ready;
    m.post(3, 4, 9, 100, log.callback(1), ready);
    m.arrive(3, 4, 9, 50, ready);
    EXPECT_THAT(ready, IsEmpty());
    m.arrive(3, 4, 9, 50, ready);
    log.run(ready);
    EXPECT_THAT(log.ids, ElementsAre(1u));
    EXPECT_TRUE(m.idle());
}

TEST(MessageMatcher, OneArrivalCompletesTwoReceivesInFifoOrder) {
    MessageMatcher m;
    Log log;
    std::vector<Callback> ready;
    m.post(3, 4, 9, 50, log.callback(10), ready);
    m.post(3, 4, 9, 50, log.callback(11), ready);
    m.arrive(3, 4, 9, 100, ready);
    log.run(ready);
    EXPECT_THAT(log.ids, ElementsAre(10u, 11u));
    EXPECT_TRUE(m.idle());
}

TEST(MessageMatcher, DifferentTagsAndPairsDoNotMatch) {
    MessageMatcher m;
    std::vector<Callback> ready;
    Log log;
    m.post(0, 1, 1, 10, log.callback(1), ready);
    m.arrive(0, 1, 2, 10, ready);  // other tag
    m.arrive(1, 0, 1, 10, ready);  // reversed pair
    m.arrive(0, 2, 1, 10, ready);  // other destination
    EXPECT_THAT(ready, IsEmpty());
    const auto out = m.outstanding();
    ASSERT_EQ(out.size(), 4u);
    // Sorted by (dst, src, tag): 1->0 tag 1, 0->1 tag 1, 0->1 tag 2, 0->2 tag 1.
    EXPECT_EQ(out[0].src, 1u);
    EXPECT_EQ(out[0].parkedBytes, 10u);
    EXPECT_EQ(out[1].tag, 1u);
    EXPECT_EQ(out[1].waitingReceiveBytes, 10u);
    EXPECT_EQ(out[1].waitingReceives, 1u);
    EXPECT_EQ(out[1].parkedBytes, 0u);
    EXPECT_EQ(out[2].tag, 2u);
    EXPECT_EQ(out[2].parkedBytes, 10u);
    EXPECT_EQ(out[3].dst, 2u);
}

TEST(MessageMatcher, ZeroByteReceiveCompletesInItsTurn) {
    MessageMatcher m;
    Log log;
    std::vector<Callback> ready;
    m.post(0, 1, 5, 0, log.callback(1), ready);
    log.run(ready);
    EXPECT_THAT(log.ids, ElementsAre(1u));
    ready.clear();
    // Behind a receive that still waits, a zero-byte receive waits too: completion stays FIFO.
    m.post(0, 1, 5, 10, log.callback(2), ready);
    m.post(0, 1, 5, 0, log.callback(3), ready);
    EXPECT_THAT(ready, IsEmpty());
    m.arrive(0, 1, 5, 10, ready);
    log.run(ready);
    EXPECT_THAT(log.ids, ElementsAre(1u, 2u, 3u));
    EXPECT_TRUE(m.idle());
}

TEST(MessageMatcher, OutstandingReportsPartialProgress) {
    MessageMatcher m;
    Log log;
    std::vector<Callback> ready;
    m.post(2, 3, 8, 100, log.callback(1), ready);
    m.post(2, 3, 8, 40, log.callback(2), ready);
    m.arrive(2, 3, 8, 30, ready);
    auto out = m.outstanding();
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].waitingReceiveBytes, 110u);  // 70 of the first + 40 of the second
    EXPECT_EQ(out[0].waitingReceives, 2u);
    EXPECT_EQ(out[0].parkedBytes, 0u);
    m.arrive(2, 3, 8, 200, ready);
    log.run(ready);
    EXPECT_THAT(log.ids, ElementsAre(1u, 2u));
    out = m.outstanding();
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].parkedBytes, 90u);
    EXPECT_EQ(out[0].waitingReceives, 0u);
}

// 8-NPU ring at 50 GB/s and 500 ns: 32768 B to a neighbour arrive after 1110 ns.
Topology ringOfEight() {
    return Topology::multiDimensional({{DimensionKind::Ring, 8, gigabytesPerSecondToBytesPerNs(50), 500}});
}

TEST(MessageMatcherThroughNetwork, ReceivePostedBeforeArrivalFiresAfterTheSendHandler) {
    const Topology topology = ringOfEight();
    EventQueue queue;
    CongestionUnawareNetwork net(topology, queue);
    Log log;
    log.queue = &queue;
    net.recv(0, 1, 4, 32768, log.callback(2));
    net.send(0, 1, 4, 32768, 0, log.callback(1));
    queue.run();
    EXPECT_THAT(log.ids, ElementsAre(1u, 2u));
    EXPECT_THAT(log.times, ElementsAre(1110u, 1110u));
    EXPECT_EQ(net.messagesDelivered(), 1u);
    EXPECT_EQ(net.bytesDelivered(), 32768u);
    EXPECT_TRUE(net.matcher().idle());
}

struct LateReceiver {
    AnalyticalNetwork* net;
    Log* log;
    bool firedInsideRecv = false;
    void post(uint64_t) {
        net->recv(0, 1, 4, 32768, log->callback(2));
        firedInsideRecv = log->ids.size() > 1;
    }
};

TEST(MessageMatcherThroughNetwork, ReceivePostedAfterArrivalCompletesOnZeroDelayEvent) {
    const Topology topology = ringOfEight();
    EventQueue queue;
    CongestionUnawareNetwork net(topology, queue);
    Log log;
    log.queue = &queue;
    LateReceiver late{&net, &log};
    net.send(0, 1, 4, 32768, 0, log.callback(1));
    queue.schedule(5000, makeCallback<&LateReceiver::post>(&late));
    queue.run();
    EXPECT_FALSE(late.firedInsideRecv);
    EXPECT_THAT(log.ids, ElementsAre(1u, 2u));
    EXPECT_THAT(log.times, ElementsAre(1110u, 5000u));
    EXPECT_TRUE(net.matcher().idle());
}

TEST(MessageMatcherThroughNetwork, UnmatchedTrafficIsReported) {
    const Topology topology = ringOfEight();
    EventQueue queue;
    CongestionUnawareNetwork net(topology, queue);
    Log log;
    net.send(0, 1, 4, 1000, 0, Callback{});
    net.recv(0, 1, 5, 1000, log.callback(1));
    queue.run();
    EXPECT_THAT(log.ids, IsEmpty());
    const auto out = net.matcher().outstanding();
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].tag, 4u);
    EXPECT_EQ(out[0].parkedBytes, 1000u);
    EXPECT_EQ(out[1].tag, 5u);
    EXPECT_EQ(out[1].waitingReceiveBytes, 1000u);
}

// The matcher's index against std::map under random inserts and erases: with a hash that sends every key to
// a few homes (or homes at the table's end), long probe runs wrap around the table and every erase must move
// the right entries back.
TEST(FlatIndex, AgreesWithAMapUnderRandomInsertsAndErases) {
    struct FewHomes {
        uint64_t operator()(uint64_t k) const { return (k % 3) << 62; }
    };
    struct LastHomes {  // probe runs start at the table's end and wrap around to its start
        uint64_t operator()(uint64_t k) const { return ~uint64_t{0} - (k % 3) * (uint64_t{1} << 58); }
    };
    struct Spread {
        uint64_t operator()(uint64_t k) const { return k * 0x9e3779b97f4a7c15ull; }
    };
    const auto check = [](auto index) {
        std::map<uint64_t, uint32_t> truth;
        std::mt19937_64 rng(7);
        uint32_t next = 0;
        for (int i = 0; i < 20'000; ++i) {
            const uint64_t key = rng() % 200;
            if (rng() % 2 == 0) {
                const auto [slot, inserted] = index.findOrInsert(key, [&] { return next++; });
                const auto [it, fresh] = truth.emplace(key, slot);
                ASSERT_EQ(inserted, fresh);
                ASSERT_EQ(slot, it->second);
            } else {
                index.erase(key);  // absent keys too: nothing happens
                truth.erase(key);
            }
            ASSERT_EQ(index.size(), truth.size());
            const uint64_t probe = rng() % 200;
            const auto it = truth.find(probe);
            ASSERT_EQ(index.find(probe), it == truth.end() ? index.kNone : it->second);
        }
        std::size_t visited = 0;
        index.forEach([&](uint64_t key, uint32_t slot) {
            ++visited;
            EXPECT_EQ(truth.at(key), slot);
        });
        EXPECT_EQ(visited, truth.size());
    };
    check(FlatIndex<uint64_t, FewHomes>{});
    check(FlatIndex<uint64_t, LastHomes>{});
    check(FlatIndex<uint64_t, Spread>{});
}

}  // namespace
}  // namespace mlnet

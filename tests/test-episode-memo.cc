// Memoized episodes (issue 38): a repeat of a recorded episode is replayed with the recorded completions,
// exactly; a message the record does not have ends the replay, and the messages in flight finish at packet
// level with every byte delivered once; episodes that marked or paused are never recorded.
#include <gtest/gtest.h>

#include <algorithm>

#include "flow-run-util.h"

namespace mlnet::roce {
namespace {

struct Outcome : FlowRun {
    EpisodeMemoStats memo;
};

Outcome run(const std::string& cc, uint32_t hosts, const std::vector<Flow>& flows, bool memoize) {
    Outcome o;
    static_cast<FlowRun&>(o) = runFlows(
        cc, hosts, flows, [&](FabricSettings& s) { s.memoizeEpisodes = memoize; },
        [&](const RoceFabric& fabric) {
            if (const EpisodeMemoStats* m = fabric.EpisodeMemoResult()) {
                o.memo = *m;
            }
        });
    return o;
}

// One exchange, repeated every millisecond: 0 -> 1 and 2 -> 3, then 1 -> 2 and 3 -> 0, whose cables meet the
// first two's, so the four flows are one episode; nothing marks or pauses.
std::vector<Flow> repeats(uint32_t times) {
    std::vector<Flow> flows;
    for (uint32_t k = 0; k < times; ++k) {
        const TimePs t = 1'000'000'000ull * k;
        flows.push_back({0, 1, 1'000'000, t});
        flows.push_back({2, 3, 1'000'000, t});
        flows.push_back({1, 2, 100'000, t + 5'000'000});
        flows.push_back({3, 0, 64'000, t + 40'000'000});
    }
    return flows;
}

TEST(EpisodeMemo, RepeatsAreReplayedWithTheRecordedCompletionsExactly) {
    const std::vector<Flow> flows = repeats(6);
    for (const char* cc : {"none", "dcqcn", "dctcp", "timely", "hpcc"}) {
        SCOPED_TRACE(cc);
        const Outcome full = run(cc, 4, flows, false);
        const Outcome memo = run(cc, 4, flows, true);
        ASSERT_EQ(full.totals.ecnMarks + full.totals.pauseFrames + full.totals.cnps + full.totals.timeouts,
                  0u);
        EXPECT_EQ(memo.memo.recorded, 1u);
        EXPECT_EQ(memo.memo.replayed, 5u);
        EXPECT_EQ(memo.memo.diverged, 0u);
        EXPECT_EQ(memo.memo.replayedMessages, 5u * 4);
        EXPECT_EQ(memo.memo.replayedBytes, totalBytes(flows) / 6 * 5);
        ASSERT_EQ(memo.fct.size(), full.fct.size());
        for (std::size_t i = 0; i < full.fct.size(); ++i) {
            EXPECT_EQ(memo.fct[i].startPs, full.fct[i].startPs) << "flow " << i;
            EXPECT_EQ(memo.fct[i].finishPs, full.fct[i].finishPs) << "flow " << i;
            EXPECT_EQ(memo.fct[i].sport, full.fct[i].sport) << "flow " << i;
        }
        EXPECT_EQ(memo.delivered, totalBytes(flows));
        EXPECT_EQ(full.delivered, totalBytes(flows));
        // A replayed message stands for its packets over its path: one per payload and hop, as simulated.
        EXPECT_EQ(memo.totals.dataPacketHops, full.totals.dataPacketHops);
    }
}

// In the fourth repeat host 3 also sends to host 1 while 0 -> 1 is on its way: the record has no such
// message, so the replay ends there; 0 -> 1 and 1 -> 2 go on at packet level with what their recorded
// progress leaves (a fresh queue pair each), and the next repeat is recorded again, the one after replayed.
TEST(EpisodeMemo, AMessageTheRecordLacksEndsTheReplayAndEveryByteArrivesOnce) {
    std::vector<Flow> flows = repeats(6);
    flows.push_back({3, 1, 500'000, 3'000'000'000ull + 20'000'000});
    for (const char* cc : {"none", "dcqcn", "hpcc"}) {
        SCOPED_TRACE(cc);
        const Outcome full = run(cc, 4, flows, false);
        const Outcome memo = run(cc, 4, flows, true);
        EXPECT_EQ(memo.memo.diverged, 1u);
        EXPECT_EQ(memo.memo.resumedMessages, 2u);
        EXPECT_EQ(memo.memo.recorded, 2u);
        EXPECT_EQ(memo.memo.replayed, 3u);  // repeats 1, 2 and 5; 3 diverged, 4 recorded
        EXPECT_EQ(memo.delivered, totalBytes(flows));
        EXPECT_EQ(memo.totals.drops, 0u);
        ASSERT_EQ(memo.fct.size(), full.fct.size());
        for (std::size_t i = 0; i < full.fct.size(); ++i) {
            const double a = static_cast<double>(full.fct[i].finishPs - full.fct[i].startPs);
            const double b = static_cast<double>(memo.fct[i].finishPs - memo.fct[i].startPs);
            // The diverged repeat's flows restart their queue pairs mid-way: within 5 %; the rest exact.
            const bool diverged =
                full.fct[i].startPs >= 3'000'000'000ull && full.fct[i].startPs < 4'000'000'000ull;
            EXPECT_NEAR(b, a, diverged ? 0.05 * a : 0.0) << "flow " << i;
            EXPECT_EQ(memo.fct[i].sizeBytes, full.fct[i].sizeBytes) << "flow " << i;
        }
    }
}

// An incast that marks and pauses, twice: nothing recorded (a switch's shared buffer couples its ports, so
// only episodes that never came near marking are trusted), nothing replayed, the run the full one.
TEST(EpisodeMemo, EpisodesThatMarkOrPauseAreNeverRecorded) {
    std::vector<Flow> flows;
    for (uint32_t k = 0; k < 2; ++k) {
        for (uint32_t s = 1; s <= 6; ++s) {
            flows.push_back({s, 0, 2'000'000, 2'000'000'000ull * k});
        }
    }
    const Outcome full = run("dcqcn", 7, flows, false);
    const Outcome memo = run("dcqcn", 7, flows, true);
    ASSERT_GT(full.totals.ecnMarks + full.totals.pauseFrames, 0u);
    EXPECT_EQ(memo.memo.recorded, 0u);
    EXPECT_EQ(memo.memo.replayedMessages, 0u);
    EXPECT_GE(memo.memo.episodes, 1u);
    ASSERT_EQ(memo.fct.size(), full.fct.size());
    for (std::size_t i = 0; i < full.fct.size(); ++i) {
        EXPECT_EQ(memo.fct[i].finishPs, full.fct[i].finishPs) << "flow " << i;
    }
    EXPECT_EQ(memo.totals.ecnMarks, full.totals.ecnMarks);
}

}  // namespace
}  // namespace mlnet::roce

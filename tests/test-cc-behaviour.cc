// Congestion control on the packet model: 8:1 incast through one 100 Gb/s switch with each algorithm
// (HPCC-paper presets) against PFC alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "incast-experiment.h"
#include "roce-fabric.h"

namespace mlnet::roce {
namespace {

const std::map<std::string, IncastResult>& results() {
    static const std::map<std::string, IncastResult> r = [] {
        UsePicosecondTime();
        std::map<std::string, IncastResult> out;
        for (const char* cc : {"none", "dcqcn", "dctcp", "timely", "hpcc"}) {
            IncastSetup setup;
            setup.cc = cc;
            out[cc] = runIncast(setup);
        }
        return out;
    }();
    return r;
}

TEST(CcBehaviour, EveryRunFinishesWithoutLossUnderPfc) {
    for (const auto& [cc, r] : results()) {
        EXPECT_TRUE(r.finished) << cc;
        EXPECT_EQ(r.drops, 0u) << cc;
    }
}

TEST(CcBehaviour, EveryAlgorithmPausesLessThanPfcAlone) {
    const uint64_t pfcOnly = results().at("none").pauses;
    ASSERT_GT(pfcOnly, 100u);
    for (const auto& [cc, r] : results()) {
        if (cc != "none") {
            EXPECT_LT(r.pauses, pfcOnly / 10) << cc;
        }
    }
}

TEST(CcBehaviour, HpccKeepsTheQueueFarBelowDcqcn) {
    EXPECT_LT(results().at("hpcc").p99QueueBytes * 10, results().at("dcqcn").p99QueueBytes);
    EXPECT_LT(results().at("hpcc").p99QueueBytes, 50'000);
}

TEST(CcBehaviour, FairShareInTheSecondHalf) {
    for (const char* cc : {"none", "dcqcn", "dctcp", "timely", "hpcc"}) {
        EXPECT_GE(results().at(cc).jainSecondHalf, 0.98) << cc;
    }
}

TEST(CcBehaviour, ALongFlowAloneRunsAtLinkPayloadCapacity) {
    // 1000 B of payload in 1082 B on the wire: 92.42 Gb/s of payload at 100 Gb/s.
    const double payloadCapacityGbps = 100.0 * 1000 / 1082;
    for (const char* cc : {"none", "dcqcn", "dctcp", "timely", "hpcc"}) {
        IncastSetup setup;
        setup.cc = cc;
        setup.senders = 1;
        setup.flowBytes = 50'000'000;
        const IncastResult r = runIncast(setup);
        ASSERT_TRUE(r.finished) << cc;
        EXPECT_GE(r.goodputGbps, 0.95 * payloadCapacityGbps) << cc;
    }
}

}  // namespace
}  // namespace mlnet::roce

// Shared by the TIMELY and HPCC scripted tests (test-cc-timely.cc, test-cc-hpcc.cc, test-cc-hpcc-hops.cc):
// the 100 Gb/s, 10 us test flow, and HPCC's parameters, INT records, the §5.2 formulas and an ACK driver.
#ifndef MLNET_TESTS_CC_TIMELY_HPCC_TEST_UTIL_H
#define MLNET_TESTS_CC_TIMELY_HPCC_TEST_UTIL_H

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hpcc.h"

namespace mlnet::cc {

inline constexpr uint64_t kLineBps = 100'000'000'000ull;
inline constexpr TimeNs kBaseRttNs = 10'000;
inline constexpr uint64_t kBdpBytes = 125'000;  // 100 Gb/s x 10 us
inline constexpr double kLine = static_cast<double>(kLineBps);
// Rates are kept unrounded inside and rounded to whole bit/s on output.
inline constexpr double kRateTol = 1.0;

inline FlowParams testFlow() {
    FlowParams f;
    f.lineRateBps = kLineBps;
    f.baseRttNs = kBaseRttNs;
    f.bdpBytes = kBdpBytes;
    f.mtuBytes = 1000;
    return f;
}

// -----------------------------------------------------------------------------------------------------------
// HPCC
// -----------------------------------------------------------------------------------------------------------

inline constexpr double kEta = 0.95;
inline constexpr double kWai = 40e6;
inline constexpr double kHpccMin = 1e9;
inline constexpr double kTs = kBaseRttNs * 1e-9;  // T in seconds

inline HpccParams hpccTestParams() {
    HpccParams p;
    p.targetUtil = kEta;
    p.maxStage = 2;
    p.rateAiBps = 40'000'000;
    p.fastReact = true;
    p.multiRate = false;
    p.sampleFeedback = false;
    p.minRateBps = 1'000'000'000;
    p.window = WindowMode::FollowsRate;
    p.meanQueue = false;  // these tests check the reference's queue term; MeanQueue* cover ours
    return p;
}

inline IntHop hop(uint64_t timeNs, uint64_t txBytes, uint64_t queueBytes, uint64_t rateBps = kLineBps) {
    return IntHop{timeNs, txBytes, queueBytes, rateBps};
}

// u_i of §5.2 written in SI units: transmit rate over the interval over B, plus the smaller queue over B·T.
inline double hopU(const IntHop& prev, const IntHop& now) {
    const double tauS = static_cast<double>(now.timeNs - prev.timeNs) * 1e-9;
    const double txRate = static_cast<double>(now.txBytes - prev.txBytes) * 8 / tauS;
    const double b = static_cast<double>(now.rateBps);
    return txRate / b + static_cast<double>(std::min(now.queueBytes, prev.queueBytes)) * 8 / (b * kTs);
}

inline double ewma(double u, double sample, double tauNs) {
    const double t = std::min(tauNs, static_cast<double>(kBaseRttNs));
    return (u * (kBaseRttNs - t) + sample * t) / kBaseRttNs;
}

inline double clampRate(double r) {
    return std::clamp(r, kHpccMin, kLine);
}

// Drives one flow; ACKs are fast-react unless `commit` is set, which moves ackSeq past lastUpdateSeq.
struct HpccRun {
    explicit HpccRun(const HpccParams& p = hpccTestParams()) : cc(testFlow(), p) {}
    void ack(const std::vector<IntHop>& hops, bool commit) {
        AckSignal a;
        a.ackSeq = commit ? gate + 1 : gate;
        if (commit) {
            gate = sndNxt;
        }
        a.sndNxt = sndNxt;
        sndNxt += 10'000;
        a.hops = hops.data();
        a.numHops = static_cast<uint32_t>(hops.size());
        cc.onAck(a);
    }
    void first(const std::vector<IntHop>& hops) {
        AckSignal a;
        a.ackSeq = 1000;
        a.sndNxt = sndNxt;
        a.hops = hops.data();
        a.numHops = static_cast<uint32_t>(hops.size());
        cc.onAck(a);
        gate = sndNxt;
        sndNxt += 10'000;
    }
    double rate() const { return static_cast<double>(cc.rateBps()); }
    Hpcc cc;
    uint64_t sndNxt = 50'000;
    uint64_t gate = 0;
};

}  // namespace mlnet::cc

#endif

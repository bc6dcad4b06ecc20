#include "hpcc.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mlnet::cc {

HpccParams hpccPaper(uint64_t lineRateBps) {
    HpccParams p;
    p.targetUtil = 0.95;
    p.maxStage = 0;
    // run.py: RATE_AI = 10·bw/25 Mb/s with bw in Gb/s.
    p.rateAiBps = lineRateBps / 2500;
    p.fastReact = true;
    p.multiRate = false;
    p.sampleFeedback = false;
    p.minRateBps = 1'000'000'000;
    p.window = WindowMode::FollowsRate;
    p.referenceArithmetic = true;
    return p;
}

HpccParams hpccDefault() {
    return HpccParams{};
}

Hpcc::Hpcc(const FlowParams& flow, const HpccParams& params)
    : m_params(params),
      m_lineRateBps(flow.lineRateBps),
      m_bdpBytes(flow.bdpBytes),
      m_baseRttNs(static_cast<double>(flow.baseRttNs)) {
    if (flow.lineRateBps == 0) {
        throw std::invalid_argument("HPCC: line rate must be positive");
    }
    // T weighs the utilisation EWMA and scales the queue term; without it neither is defined.
    if (flow.baseRttNs == 0) {
        throw std::invalid_argument("HPCC: base RTT must be positive");
    }
    if (!(params.targetUtil > 0)) {
        throw std::invalid_argument("HPCC: target utilisation must be positive");
    }
    m_minRateBps = static_cast<double>(std::min(params.minRateBps, flow.lineRateBps));
    m_refRateBps = static_cast<double>(flow.lineRateBps);
    setRate(m_refRateBps);
}

void Hpcc::setRate(double rateBps) {
    publishRate(rateBps, m_params.window, m_bdpBytes, static_cast<double>(m_lineRateBps),
                m_params.referenceArithmetic);
}

double Hpcc::step(double u, double rcBps, uint32_t stage, uint32_t* nextStage) const {
    const double c = u / m_params.targetUtil;
    const double ai = static_cast<double>(m_params.rateAiBps);
    double r;
    if (c >= 1 || stage >= m_params.maxStage) {
        r = (m_params.referenceArithmetic ? std::trunc(rcBps / c) : rcBps / c) + ai;
        *nextStage = 0;
    } else {
        r = rcBps + ai;
        *nextStage = stage + 1;
    }
    return std::clamp(r, m_minRateBps, static_cast<double>(m_lineRateBps));
}

std::size_t Hpcc::stateBytes() const {
    return static_cast<std::size_t>(reinterpret_cast<const char*>(&m_hopStates) -
                                    reinterpret_cast<const char*>(this));
}

void Hpcc::resetSnapshot(const AckSignal& ack) {
    m_snapshot.clear();
    for (uint32_t i = 0; i < ack.numHops; ++i) {
        m_snapshot.push_back(snapshotOf(ack.hops[i]));
    }
    if (m_params.multiRate) {
        m_hopStates.assign(ack.numHops, HopState{1.0, m_refRateBps, 0});
        m_hopRateBps.assign(ack.numHops, 0.0);
        m_hopNextStage.assign(ack.numHops, 0);
        m_hopUpdated.assign(ack.numHops, 0);
    }
}

bool Hpcc::pathChanged(const AckSignal& ack) const {
    if (ack.numHops != m_snapshot.size()) {
        return true;
    }
    for (uint32_t i = 0; i < ack.numHops; ++i) {
        if (ack.hops[i].timeNs < m_snapshot[i].timeNs || ack.hops[i].txBytes < m_snapshot[i].txBytes ||
            (m_params.meanQueue && ack.hops[i].queueByteNs < m_snapshot[i].queueByteNsOrBytes)) {
            return true;
        }
    }
    return false;
}

[[gnu::always_inline]] inline bool Hpcc::hopUtilisation(const IntHop& now, const HopSnapshot& prev, double* u,
                                                        uint64_t* tauNs) const {
    const uint64_t tau = now.timeNs - prev.timeNs;
    if (tau == 0 || now.rateBps == 0) {
        return false;
    }
    const double lineBps = static_cast<double>(now.rateBps);
    if (m_params.referenceArithmetic && !m_params.meanQueue && m_bdpBytes > 0) {
        const double txRateBps =
            static_cast<double>((now.txBytes - prev.txBytes) * 8) / (static_cast<double>(tau) * 1e-9);
        *u = txRateBps / lineBps + static_cast<double>(std::min(now.queueBytes, prev.queueByteNsOrBytes)) *
                                       static_cast<double>(m_lineRateBps) / lineBps /
                                       static_cast<double>(m_bdpBytes);
        *tauNs = tau;
        return true;
    }
    const double txRateBps = static_cast<double>(now.txBytes - prev.txBytes) * 8e9 / static_cast<double>(tau);
    // See HpccParams::meanQueue for why the interval mean is the default.
    const double queueBits =
        m_params.meanQueue
            ? static_cast<double>(now.queueByteNs - prev.queueByteNsOrBytes) / static_cast<double>(tau) * 8
            : static_cast<double>(std::min(now.queueBytes, prev.queueByteNsOrBytes)) * 8;
    *u = txRateBps / lineBps + queueBits * 1e9 / (lineBps * m_baseRttNs);
    *tauNs = tau;
    return true;
}

void Hpcc::onAck(const AckSignal& ack) {
    if (ack.numHops == 0 || ack.hops == nullptr) {
        return;
    }
    if (!m_initialised) {
        m_initialised = true;
        resetSnapshot(ack);
        m_lastUpdateSeq = ack.sndNxt;
        return;
    }
    const bool commit = ack.ackSeq > m_lastUpdateSeq;
    if (!commit && !m_params.fastReact) {
        return;
    }
    if (pathChanged(ack)) {
        resetSnapshot(ack);
    } else if (m_params.multiRate) {
        updateMultiRate(ack, commit);
    } else {
        updateSingleRate(ack, commit);
    }
    if (commit) {
        // With a consistent NIC sndNxt ≥ ackSeq > lastUpdateSeq here; the max keeps the gate monotone anyway.
        m_lastUpdateSeq = std::max(m_lastUpdateSeq, ack.sndNxt);
    }
}

void Hpcc::updateSingleRate(const AckSignal& ack, bool commit) {
    double maxU = 0;
    uint64_t maxTauNs = 0;
    bool any = false;
    for (uint32_t i = 0; i < ack.numHops; ++i) {
        const IntHop& now = ack.hops[i];
        if (m_params.sampleFeedback && !commit && now.queueBytes == 0) {
            continue;
        }
        double u;
        uint64_t tau;
        if (!hopUtilisation(now, m_snapshot[i], &u, &tau)) {
            continue;
        }
        any = true;
        // Which hop is the most utilised is as good as random to the branch predictor, and the compare waits
        // for u's divisions: selects, not a branch.
        const bool higher = u > maxU;
        maxU = higher ? u : maxU;
        maxTauNs = higher ? tau : maxTauNs;
        m_snapshot[i] = snapshotOf(now);
    }
    if (!any) {
        return;
    }
    // A sample older than one base RTT replaces the EWMA entirely rather than extrapolating past it.
    const double tau = std::min(static_cast<double>(maxTauNs), m_baseRttNs);
    m_u = (m_u * (m_baseRttNs - tau) + maxU * tau) / m_baseRttNs;
    uint32_t nextStage;
    const double rate = step(m_u, m_refRateBps, m_stage, &nextStage);
    setRate(rate);
    if (commit) {
        m_refRateBps = rate;
        m_stage = nextStage;
    }
}

void Hpcc::updateMultiRate(const AckSignal& ack, bool commit) {
    bool any = false;
    for (uint32_t i = 0; i < ack.numHops; ++i) {
        const IntHop& now = ack.hops[i];
        m_hopUpdated[i] = 0;
        if (m_params.sampleFeedback && !commit && now.queueBytes == 0) {
            continue;
        }
        double u;
        uint64_t tauNs;
        if (!hopUtilisation(now, m_snapshot[i], &u, &tauNs)) {
            continue;
        }
        HopState& st = m_hopStates[i];
        const double tau = std::min(static_cast<double>(tauNs), m_baseRttNs);
        st.u = (st.u * (m_baseRttNs - tau) + u * tau) / m_baseRttNs;
        m_hopUpdated[i] = 1;
        any = true;
        m_snapshot[i] = snapshotOf(now);
    }
    if (!any) {
        return;
    }
    double rate = static_cast<double>(m_lineRateBps);
    for (uint32_t i = 0; i < ack.numHops; ++i) {
        const HopState& st = m_hopStates[i];
        if (m_hopUpdated[i]) {
            m_hopRateBps[i] = step(st.u, st.refRateBps, st.stage, &m_hopNextStage[i]);
            rate = std::min(rate, m_hopRateBps[i]);
        } else {
            // A hop without a fresh sample still bounds the rate by what it last allowed.
            rate = std::min(rate, st.refRateBps);
        }
    }
    setRate(rate);
    if (commit) {
        m_refRateBps = rate;
        for (uint32_t i = 0; i < ack.numHops; ++i) {
            if (m_hopUpdated[i]) {
                m_hopStates[i].refRateBps = m_hopRateBps[i];
                m_hopStates[i].stage = m_hopNextStage[i];
            }
        }
    }
}

}  // namespace mlnet::cc

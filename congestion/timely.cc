#include "timely.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mlnet::cc {

TimelyParams timelyHpccPaper(uint64_t lineRateBps) {
    TimelyParams p;
    // run.py: RATE_AI = 10·bw/10 Mb/s and RATE_HAI = 50·bw/10 Mb/s with bw in Gb/s.
    p.rateAiBps = lineRateBps / 1000;
    p.rateHaiBps = lineRateBps / 200;
    p.minRateBps = 1'000'000'000;
    return p;
}

TimelyParams timelyPaper() {
    return TimelyParams{};
}

Timely::Timely(const FlowParams& flow, const TimelyParams& params)
    : m_params(params), m_lineRateBps(flow.lineRateBps), m_bdpBytes(flow.bdpBytes) {
    if (flow.lineRateBps == 0) {
        throw std::invalid_argument("TIMELY: line rate must be positive");
    }
    if (params.minRttNs == 0) {
        throw std::invalid_argument("TIMELY: minRttNs (gradient normaliser) must be positive");
    }
    if (params.tLowNs > params.tHighNs) {
        throw std::invalid_argument("TIMELY: T_low must not exceed T_high");
    }
    if (!(params.alpha >= 0 && params.alpha <= 1) || !(params.beta >= 0 && params.beta <= 1)) {
        throw std::invalid_argument("TIMELY: alpha and beta must lie in [0, 1]");
    }
    m_minRateBps = static_cast<double>(std::min(params.minRateBps, flow.lineRateBps));
    setRate(static_cast<double>(flow.lineRateBps));
}

void Timely::setRate(double rateBps) {
    m_curRateBps = rateBps;
    publishRate(rateBps, m_params.window, m_bdpBytes, static_cast<double>(m_lineRateBps));
}

void Timely::onAck(const AckSignal& ack) {
    if (ack.rttNs == 0) {
        return;
    }
    if (!m_haveSample) {
        m_haveSample = true;
        m_rttPrevNs = ack.rttNs;
        m_lastUpdateSeq = ack.sndNxt;
        return;
    }
    if (ack.ackSeq <= m_lastUpdateSeq) {
        return;
    }

    const double rttNs = static_cast<double>(ack.rttNs);
    const double newDiffNs = rttNs - static_cast<double>(m_rttPrevNs);
    const double diffNs = (1 - m_params.alpha) * m_rttDiffNs + m_params.alpha * newDiffNs;
    const double gradient = diffNs / static_cast<double>(m_params.minRttNs);

    bool increase = false;
    double factor = 0;
    if (ack.rttNs < m_params.tLowNs) {
        increase = true;
    } else if (ack.rttNs > m_params.tHighNs) {
        factor = 1 - m_params.beta * (1 - static_cast<double>(m_params.tHighNs) / rttNs);
    } else if (gradient <= 0) {
        increase = true;
    } else {
        factor = std::max(0.0, 1 - m_params.beta * gradient);
    }

    if (increase) {
        const uint64_t step =
            m_increaseCount < m_params.haiThreshold ? m_params.rateAiBps : m_params.rateHaiBps;
        setRate(std::min(m_curRateBps + static_cast<double>(step), static_cast<double>(m_lineRateBps)));
        ++m_increaseCount;
    } else {
        setRate(std::max(m_minRateBps, m_curRateBps * factor));
        m_increaseCount = 0;
    }
    m_rttDiffNs = diffNs;
    m_rttPrevNs = ack.rttNs;
    // A consistent NIC has sndNxt ≥ ackSeq > lastUpdateSeq here; the max only guards against a caller that
    // rewound sndNxt, so the gate never moves backwards.
    m_lastUpdateSeq = std::max(m_lastUpdateSeq, ack.sndNxt);
}

}  // namespace mlnet::cc

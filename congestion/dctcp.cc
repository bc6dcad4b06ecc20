#include "dctcp.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace mlnet::cc {

namespace {

void validate(const FlowParams& flow, const DctcpParams& p) {
    std::string why;
    if (flow.lineRateBps == 0 || flow.mtuBytes == 0) {
        why = "line rate and MTU must be positive";
    } else if (!(p.g > 0.0 && p.g <= 1.0)) {
        why = "g = " + std::to_string(p.g) + " is outside (0, 1]";
    } else if (!(p.initialAlpha >= 0.0 && p.initialAlpha <= 1.0)) {
        why = "initialAlpha = " + std::to_string(p.initialAlpha) + " is outside [0, 1]";
    }
    if (!why.empty()) {
        throw std::invalid_argument("dctcp: " + why);
    }
}

}  // namespace

DctcpParams dctcpHpccPaper() {
    DctcpParams p;
    p.g = 0.0625;
    p.initialAlpha = 1.0;
    p.rateBased = true;
    p.rateAiBps = 615'000'000;
    p.minRateBps = 1'000'000'000;
    p.window = WindowMode::FollowsRate;
    return p;
}

DctcpParams dctcpWindow() {
    return DctcpParams{};
}

void Dctcp::skipQuietTime(int64_t deltaNs) {
    if (m_bdpBytes == 0 || m_alpha <= 0.0) {
        return;
    }
    const double rttNs = static_cast<double>(m_bdpBytes) * 8e9 / m_lineRate;
    const double windows = std::trunc(static_cast<double>(deltaNs) / rttNs);  // a cut-back returns them
    m_alpha = std::min(1.0, m_alpha * std::pow(1.0 - m_params.g, windows));
}

Dctcp::Dctcp(const FlowParams& flow, const DctcpParams& params)
    : m_params(params),
      m_lineRate(static_cast<double>(flow.lineRateBps)),
      m_bdpBytes(flow.bdpBytes),
      m_mtu(static_cast<double>(flow.mtuBytes)),
      m_minWindow(static_cast<double>(params.minWindowBytes ? params.minWindowBytes : flow.mtuBytes)),
      m_minRate(static_cast<double>(std::min(params.minRateBps, flow.lineRateBps))),
      m_alpha(params.initialAlpha),
      m_rate(m_lineRate) {
    validate(flow, params);
    if (!m_params.rateBased) {
        uint64_t initial = params.initialWindowBytes;
        if (initial == 0) {
            initial = flow.bdpBytes ? flow.bdpBytes : 10ull * flow.mtuBytes;
        }
        m_cwnd = std::max(m_minWindow, static_cast<double>(initial));
    }
    publish();
}

void Dctcp::onAck(const AckSignal& ack) {
    if (m_params.rateBased) {
        onAckRate(ack);
    } else {
        onAckWindow(ack);
    }
    publish();
}

void Dctcp::onAckWindow(const AckSignal& ack) {
    if (!m_measuring) {
        m_measuring = true;
        m_measureEndSeq = ack.sndNxt;
    }
    m_ackedBytes += ack.newlyAcked;
    if (ack.ecnEcho) {
        m_markedBytes += ack.newlyAcked;
    }
    if (ack.ackSeq >= m_measureEndSeq && m_ackedBytes > 0) {
        const double marked = static_cast<double>(m_markedBytes) / static_cast<double>(m_ackedBytes);
        m_alpha = (1.0 - m_params.g) * m_alpha + m_params.g * marked;
        m_ackedBytes = 0;
        m_markedBytes = 0;
        m_measureEndSeq = ack.sndNxt;
    }

    if (m_inCwr && ack.ackSeq > m_cwrEndSeq) {
        m_inCwr = false;
    }
    if (m_inCwr) {
        return;
    }
    if (ack.ecnEcho) {
        m_cwnd = std::max(m_minWindow, m_cwnd * (1.0 - m_alpha / 2));
        m_inCwr = true;
        m_cwrEndSeq = ack.sndNxt;
        return;
    }
    const uint64_t unaBefore = ack.ackSeq - std::min(ack.ackSeq, ack.newlyAcked);
    const uint64_t flightBefore = ack.sndNxt > unaBefore ? ack.sndNxt - unaBefore : 0;
    if (ack.newlyAcked > 0 && static_cast<double>(flightBefore) + m_mtu > m_cwnd) {
        m_cwnd += m_mtu * static_cast<double>(ack.newlyAcked) / m_cwnd;
    }
}

void Dctcp::onAckRate(const AckSignal& ack) {
    const auto mtu = static_cast<uint64_t>(m_mtu);
    bool newBatch = false;
    m_marks += ack.ecnEcho ? 1 : 0;
    if (!m_measuring) {
        newBatch = true;
        m_measuring = true;
        m_measureEndSeq = ack.sndNxt;
        m_batchPackets = ack.sndNxt / mtu + 1;
    } else if (ack.ackSeq > m_measureEndSeq) {
        newBatch = true;
        const double marked =
            std::min(1.0, static_cast<double>(m_marks) / static_cast<double>(m_batchPackets));
        m_alpha = (1.0 - m_params.g) * m_alpha + m_params.g * marked;
        m_marks = 0;
        m_measureEndSeq = ack.sndNxt;
        m_batchPackets = (ack.sndNxt - std::min(ack.sndNxt, ack.ackSeq)) / mtu + 1;
    }

    if (m_inCwr && ack.ackSeq > m_cwrEndSeq) {
        m_inCwr = false;
    }
    if (ack.ecnEcho && !m_inCwr) {
        m_rate = std::max(m_minRate, m_rate * (1.0 - m_alpha / 2));
        m_inCwr = true;
        m_cwrEndSeq = ack.sndNxt;
    }
    if (!m_inCwr && newBatch) {
        m_rate = std::min(m_lineRate, m_rate + static_cast<double>(m_params.rateAiBps));
    }
}

void Dctcp::publish() {
    if (!m_params.rateBased) {
        m_rateBps = static_cast<uint64_t>(m_lineRate);
        m_windowBytes = static_cast<uint64_t>(m_cwnd);
        return;
    }
    publishRate(m_rate, m_params.window, m_bdpBytes, m_lineRate);
}

}  // namespace mlnet::cc

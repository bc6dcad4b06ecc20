#include "dcqcn.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace mlnet::cc {

namespace {

void validate(const FlowParams& flow, const DcqcnParams& p) {
    std::string why;
    if (flow.lineRateBps == 0) {
        why = "line rate is 0";
    } else if (!(p.g > 0.0 && p.g <= 1.0)) {
        why = "g = " + std::to_string(p.g) + " is outside (0, 1]";
    } else if (p.alphaIntervalNs == 0 || p.decreaseIntervalNs == 0 || p.increaseIntervalNs == 0) {
        why = "the alpha, decrease and increase periods must be positive";
    } else if (!(p.rateOnFirstCnp > 0.0 && p.rateOnFirstCnp <= 1.0)) {
        why = "rateOnFirstCnp = " + std::to_string(p.rateOnFirstCnp) + " is outside (0, 1]";
    }
    if (!why.empty()) {
        throw std::invalid_argument("dcqcn: " + why);
    }
}

}  // namespace

DcqcnParams dcqcnHpccPaper(uint64_t lineRateBps) {
    DcqcnParams p;
    p.g = 1.0 / 256;
    p.alphaIntervalNs = 1'000;
    p.decreaseIntervalNs = 4'000;
    p.firstDecreaseDelayNs = 1;
    p.increaseIntervalNs = 300'000;
    p.byteCounterBytes = 0;
    p.fastRecoverySteps = 1;
    p.additiveIncreaseBps = lineRateBps / 5'000;  // 5·bw/25 Mb/s with bw in Gb/s
    p.hyperIncreaseBps = lineRateBps / 500;       // 50·bw/25 Mb/s
    p.minRateBps = 1'000'000'000;
    p.clampTargetRate = false;
    p.rateOnFirstCnp = 1.0;
    p.ackEcnIsCnp = true;
    p.window = WindowMode::None;
    p.wholeBitRates = true;
    p.cnpBeforeAlphaTick = true;
    p.tiesInSchedulingOrder = true;
    return p;
}

DcqcnParams dcqcnPaper(uint64_t lineRateBps) {
    DcqcnParams p;
    p.additiveIncreaseBps = lineRateBps / 1'000;
    p.hyperIncreaseBps = lineRateBps / 100;
    p.ackEcnIsCnp = false;  // the paper's notification point sends real CNPs
    return p;
}

Dcqcn::Dcqcn(const FlowParams& flow, const DcqcnParams& params)
    : m_params(params),
      m_lineRate(static_cast<double>(flow.lineRateBps)),
      m_minRate(static_cast<double>(std::min(params.minRateBps, flow.lineRateBps))),
      m_bdpBytes(flow.bdpBytes),
      m_rate(m_lineRate),
      m_target(m_lineRate) {
    validate(flow, params);
    publish();
}

void Dcqcn::onAck(const AckSignal& ack) {
    if (ack.ecnEcho && m_params.ackEcnIsCnp) {
        onCnp(ack.nowNs);
    } else {
        advanceTo(ack.nowNs);
    }
}

void Dcqcn::onCnp(TimeNs nowNs) {
    advanceTo(nowNs, !m_params.cnpBeforeAlphaTick);
    if (!m_cnpSeen) {
        m_cnpSeen = true;
        m_alpha = 1.0;
        m_alphaCnp = false;  // α starts at 1 for this CNP; counting it again would skip one decay period
        m_alphaDueNs = nowNs + m_params.alphaIntervalNs;
        m_decreaseDueNs = nowNs + m_params.decreaseIntervalNs + m_params.firstDecreaseDelayNs;
        if (m_params.rateOnFirstCnp < 1.0) {
            m_rate = m_target = std::max(m_minRate, whole(m_rate * m_params.rateOnFirstCnp));
            restartIncrease(nowNs);
            publish();
        } else {
            m_decreaseCnp = true;
        }
        return;
    }
    m_alphaCnp = true;
    if (!m_decreaseCnp) {
        // The grid was left stale while nothing was pending; its next point after now is where the
        // reference's ever-running decrease timer would next fire.
        if (m_decreaseDueNs <= nowNs) {
            const TimeNs period = m_params.decreaseIntervalNs;
            m_decreaseDueNs += ((nowNs - m_decreaseDueNs) / period + 1) * period;
        }
        m_decreaseCnp = true;
    }
    if (m_params.cnpBeforeAlphaTick) {
        advanceTo(nowNs);  // the α tick of this instant, which counts this CNP
    }
}

void Dcqcn::onSend(TimeNs nowNs, uint64_t bytes) {
    advanceTo(nowNs);
    if (!m_increasing || m_params.byteCounterBytes == 0) {
        return;
    }
    m_bytesSinceEvent += bytes;
    while (m_increasing && m_bytesSinceEvent >= m_params.byteCounterBytes) {
        m_bytesSinceEvent -= m_params.byteCounterBytes;
        increase(false);
    }
}

TimeNs Dcqcn::nextTimerNs() const {
    return std::min(m_decreaseCnp ? m_decreaseDueNs : kNever, m_increaseDueNs);
}

void Dcqcn::onTimer(TimeNs nowNs) {
    advanceTo(nowNs);
}

void Dcqcn::advanceTo(TimeNs nowNs, bool alphaAtNow) {
    for (;;) {
        const TimeNs decreaseDue = m_decreaseCnp ? m_decreaseDueNs : kNever;
        const TimeNs alphaDue = alphaAtNow || m_alphaDueNs < nowNs ? m_alphaDueNs : kNever;
        const TimeNs next = std::min({alphaDue, decreaseDue, m_increaseDueNs});
        if (next > nowNs) {
            return;
        }
        // Timers due on one instant: α, then the decrease, then the increase; or, as the reference's
        // event queue has them, in the order they were scheduled: the longer period first.
        bool alphaFirst = next == alphaDue, decreaseFirst = !alphaFirst && next == decreaseDue;
        if (m_params.tiesInSchedulingOrder) {
            const TimeNs alphaPeriod = next == alphaDue ? m_params.alphaIntervalNs : 0;
            const TimeNs decreasePeriod = next == decreaseDue ? m_params.decreaseIntervalNs : 0;
            const TimeNs increasePeriod = next == m_increaseDueNs ? m_params.increaseIntervalNs : 0;
            decreaseFirst = decreasePeriod > alphaPeriod && decreasePeriod >= increasePeriod;
            alphaFirst = !decreaseFirst && alphaPeriod >= increasePeriod && alphaPeriod > 0;
        }
        if (alphaFirst) {
            // Ticks up to now (before it when this instant's tick waits) and up to the next cut, which reads
            // α; in the reference's order a cut on a tick's instant runs first and so reads it before.
            // alphaDue <= both limits here, so neither subtraction wraps.
            TimeNs limit = std::min(alphaAtNow ? nowNs : nowNs - 1, decreaseDue);
            if (m_params.tiesInSchedulingOrder && decreaseDue != kNever &&
                m_params.decreaseIntervalNs > m_params.alphaIntervalNs) {
                limit = std::min(limit, decreaseDue - 1);
            }
            alphaTicks(limit);
        } else if (decreaseFirst) {
            decrease(next);
        } else {
            m_increaseDueNs += m_params.increaseIntervalNs;
            increase(true);
        }
    }
}

void Dcqcn::alphaTicks(TimeNs limitNs) {
    const TimeNs period = m_params.alphaIntervalNs;
    const double keep = 1.0 - m_params.g;
    if (m_alphaCnp) {
        m_alpha = keep * m_alpha + m_params.g;
        m_alphaCnp = false;
        m_alphaDueNs += period;
        return;
    }
    // No CNP can arrive before limitNs (every event advances the state first), so all ticks up to it decay
    // alike.
    const uint64_t ticks = (limitNs - m_alphaDueNs) / period + 1;
    if (m_alpha > 0.0) {
        // pow(keep, 1) is keep exactly: the common single tick skips the call (0.6 % of a DCQCN run).
        m_alpha *= ticks == 1 ? keep : std::pow(keep, static_cast<double>(ticks));
    }
    m_alphaDueNs += ticks * period;
}

void Dcqcn::skipQuietTime(int64_t deltaNs) {
    const auto periods = [deltaNs](TimeNs period) {
        return deltaNs / static_cast<int64_t>(period);  // towards zero: a cut-back returns what was taken
    };
    if (m_alphaDueNs != kNever && !m_alphaCnp && m_alpha > 0.0) {
        m_alpha *= std::pow(1.0 - m_params.g, static_cast<double>(periods(m_params.alphaIntervalNs)));
        m_alpha = std::min(m_alpha, 1.0);
    }
    if (m_increaseDueNs != kNever) {
        const int64_t stages = periods(m_params.increaseIntervalNs);
        m_timerStage = stages < 0 && static_cast<uint64_t>(-stages) > m_timerStage
                           ? 0
                           : static_cast<uint64_t>(static_cast<int64_t>(m_timerStage) + stages);
    }
}

void Dcqcn::decrease(TimeNs atNs) {
    if (m_params.clampTargetRate || m_timerStage > 0 || m_byteStage > 0) {
        m_target = m_rate;
    }
    m_rate = std::max(m_minRate, whole(m_rate * (1.0 - m_alpha / 2)));
    m_decreaseCnp = false;
    m_decreaseDueNs = atNs + m_params.decreaseIntervalNs;
    restartIncrease(atNs);
    publish();
}

void Dcqcn::restartIncrease(TimeNs atNs) {
    m_increasing = true;
    m_increaseDueNs = atNs + m_params.increaseIntervalNs;
    m_timerStage = 0;
    m_byteStage = 0;
    m_bytesSinceEvent = 0;
}

void Dcqcn::increase(bool byTimer) {
    const uint64_t t = m_timerStage;
    const uint64_t b = m_params.byteCounterBytes > 0 ? m_byteStage : t;
    const uint64_t f = m_params.fastRecoverySteps;
    if (std::min(t, b) > f) {
        m_target = std::min(m_lineRate, m_target + static_cast<double>(m_params.hyperIncreaseBps));
    } else if (std::max(t, b) >= f) {
        m_target = std::min(m_lineRate, m_target + static_cast<double>(m_params.additiveIncreaseBps));
    }
    if (m_params.wholeBitRates) {
        // Two truncated halves: the rate can stall 1 b/s below an odd target, and the reference's increase
        // timer then keeps running; so does ours.
        m_rate = whole(m_rate / 2) + whole(m_target / 2);
    } else {
        m_rate = (m_rate + m_target) / 2;
    }
    // Halving the gap in floating point can stall one ulp below the target, and the timer would then never
    // stop.
    if (!m_params.wholeBitRates && m_target - m_rate < 1.0) {
        m_rate = m_target;
    }
    if (byTimer) {
        ++m_timerStage;
    } else {
        ++m_byteStage;
    }
    if (m_rate >= m_lineRate && m_target >= m_lineRate) {
        m_increasing = false;
        m_increaseDueNs = kNever;
        m_bytesSinceEvent = 0;
    }
    publish();
}

void Dcqcn::publish() {
    publishRate(m_rate, m_params.window, m_bdpBytes, m_lineRate);
}

}  // namespace mlnet::cc

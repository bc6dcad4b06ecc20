#include "cc-parameters.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace mlnet::cc {

namespace {

constexpr double kU32 = std::numeric_limits<uint32_t>::max();
constexpr double kHuge = 9.007199254740992e15;  // 2^53: integers beyond it are not exact as doubles

template <typename T>
bool storeWhole(T& out, double value) {
    if (value != std::floor(value)) {
        return false;
    }
    out = static_cast<T>(value);
    return true;
}

}  // namespace

const char* unitOf(ParamKind kind) {
    switch (kind) {
        case ParamKind::Nanoseconds:
            return "ns";
        case ParamKind::BitsPerSecond:
            return "b/s";
        case ParamKind::Bytes:
            return "B";
        default:
            return "";
    }
}

template <typename Params>
double ParamRow<Params>::get(const Params& p) const {
    return std::visit(
        [&p](auto member) -> double {
            using T = std::decay_t<decltype(p.*member)>;
            if constexpr (std::is_same_v<T, WindowMode>) {
                return static_cast<double>(static_cast<int>(p.*member));
            } else {
                return static_cast<double>(p.*member);
            }
        },
        field);
}

template <typename Params>
bool ParamRow<Params>::set(Params& p, double value) const {
    if (kind != ParamKind::Flag && kind != ParamKind::Window && !(value >= min && value <= max)) {
        return false;
    }
    return std::visit(
        [&p, value](auto member) -> bool {
            using T = std::decay_t<decltype(p.*member)>;
            if constexpr (std::is_same_v<T, double>) {
                p.*member = value;
                return true;
            } else if constexpr (std::is_same_v<T, bool>) {
                if (value != 0 && value != 1) {
                    return false;
                }
                p.*member = value != 0;
                return true;
            } else if constexpr (std::is_same_v<T, WindowMode>) {
                if (value != 0 && value != 1 && value != 2) {
                    return false;
                }
                p.*member = static_cast<WindowMode>(static_cast<int>(value));
                return true;
            } else {
                return storeWhole(p.*member, value);
            }
        },
        field);
}

template struct ParamRow<DcqcnParams>;
template struct ParamRow<DctcpParams>;
template struct ParamRow<TimelyParams>;
template struct ParamRow<HpccParams>;

const std::vector<ParamRow<DcqcnParams>>& dcqcnParameters() {
    using P = DcqcnParams;
    static const std::vector<ParamRow<P>> rows = {
        {"G", ParamKind::Real, 1e-9, 1, "EWMA gain g of alpha", &P::g},
        {"AlphaInterval", ParamKind::Nanoseconds, 1, kHuge, "alpha update period", &P::alphaIntervalNs},
        {"DecreaseInterval", ParamKind::Nanoseconds, 1, kHuge, "rate-decrease period (one cut per period)",
         &P::decreaseIntervalNs},
        {"FirstDecreaseDelay", ParamKind::Nanoseconds, 0, kHuge,
         "the decrease grid's delay after first CNP + DecreaseInterval", &P::firstDecreaseDelayNs},
        {"IncreaseInterval", ParamKind::Nanoseconds, 1, kHuge,
         "rate-increase timer T, restarted by every cut", &P::increaseIntervalNs},
        {"ByteCounter", ParamKind::Bytes, 0, kHuge, "byte counter B (0: off)", &P::byteCounterBytes},
        {"FastRecoverySteps", ParamKind::Count, 0, kU32, "increase events spent in fast recovery (F)",
         &P::fastRecoverySteps},
        {"AdditiveIncrease", ParamKind::BitsPerSecond, 0, kHuge,
         "target-rate step of additive increase (R_AI)", &P::additiveIncreaseBps},
        {"HyperIncrease", ParamKind::BitsPerSecond, 0, kHuge, "target-rate step of hyper increase (R_HAI)",
         &P::hyperIncreaseBps},
        {"MinRate", ParamKind::BitsPerSecond, 1, kHuge, "floor of every cut", &P::minRateBps},
        {"ClampTargetRate", ParamKind::Flag, 0, 1, "every cut first sets target = rate", &P::clampTargetRate},
        {"RateOnFirstCnp", ParamKind::Real, 1e-9, 1, "rate factor applied by the flow's first CNP (1: none)",
         &P::rateOnFirstCnp},
        {"AckEcnIsCnp", ParamKind::Flag, 0, 1, "an ACK with ECN echo counts as a CNP", &P::ackEcnIsCnp},
        {"Window", ParamKind::Window, 0, 2,
         "window besides the rate: 0 none, 1 the BDP, 2 BDP x rate / line rate", &P::window},
        {"WholeBitRates", ParamKind::Flag, 0, 1, "rates in whole b/s, each step truncated (the reference's)",
         &P::wholeBitRates},
        {"CnpBeforeAlphaTick", ParamKind::Flag, 0, 1,
         "a CNP on the instant of an alpha tick counts for it (the reference's event order)",
         &P::cnpBeforeAlphaTick},
        {"TiesInSchedulingOrder", ParamKind::Flag, 0, 1,
         "timers on one instant run longest period first (the reference's event order)",
         &P::tiesInSchedulingOrder},
    };
    return rows;
}

const std::vector<ParamRow<DctcpParams>>& dctcpParameters() {
    using P = DctcpParams;
    static const std::vector<ParamRow<P>> rows = {
        {"G", ParamKind::Real, 1e-9, 1, "EWMA gain g of alpha", &P::g},
        {"InitialAlpha", ParamKind::Real, 0, 1, "alpha before the first measurement", &P::initialAlpha},
        {"RateBased", ParamKind::Flag, 0, 1, "the reference's rate-based variant instead of a window",
         &P::rateBased},
        {"InitialWindow", ParamKind::Bytes, 0, kHuge, "window mode: initial window (0: the BDP)",
         &P::initialWindowBytes},
        {"MinWindow", ParamKind::Bytes, 0, kHuge, "window mode: floor of every cut (0: one MTU)",
         &P::minWindowBytes},
        {"RateAi", ParamKind::BitsPerSecond, 0, kHuge, "rate-based mode: increase per batch", &P::rateAiBps},
        {"MinRate", ParamKind::BitsPerSecond, 1, kHuge, "rate-based mode: floor of every cut",
         &P::minRateBps},
        {"Window", ParamKind::Window, 0, 2,
         "rate-based mode: window besides the rate: 0 none, 1 the BDP, 2 BDP x rate / line rate", &P::window},
    };
    return rows;
}

const std::vector<ParamRow<TimelyParams>>& timelyParameters() {
    using P = TimelyParams;
    static const std::vector<ParamRow<P>> rows = {
        {"TLow", ParamKind::Nanoseconds, 0, kHuge, "below T_low the rate grows whatever the gradient",
         &P::tLowNs},
        {"THigh", ParamKind::Nanoseconds, 0, kHuge, "above T_high the rate is cut in proportion",
         &P::tHighNs},
        {"MinRtt", ParamKind::Nanoseconds, 1, kHuge, "normaliser of the RTT gradient", &P::minRttNs},
        {"Alpha", ParamKind::Real, 0, 1, "EWMA weight of the newest RTT difference", &P::alpha},
        {"Beta", ParamKind::Real, 0, 1, "multiplicative-decrease factor", &P::beta},
        {"RateAi", ParamKind::BitsPerSecond, 0, kHuge, "additive step", &P::rateAiBps},
        {"RateHai", ParamKind::BitsPerSecond, 0, kHuge, "hyper-additive step", &P::rateHaiBps},
        {"HaiThreshold", ParamKind::Count, 0, kU32, "increases in a row before the hyper step",
         &P::haiThreshold},
        {"MinRate", ParamKind::BitsPerSecond, 1, kHuge, "floor of every decrease", &P::minRateBps},
        {"Window", ParamKind::Window, 0, 2,
         "window besides the rate: 0 none, 1 the BDP, 2 BDP x rate / line rate", &P::window},
    };
    return rows;
}

const std::vector<ParamRow<HpccParams>>& hpccParameters() {
    using P = HpccParams;
    static const std::vector<ParamRow<P>> rows = {
        {"TargetUtil", ParamKind::Real, 1e-9, 1, "utilisation eta the sender steers the bottleneck to",
         &P::targetUtil},
        {"MaxStage", ParamKind::Count, 0, kU32, "additive-only steps before a multiplicative one",
         &P::maxStage},
        {"RateAi", ParamKind::BitsPerSecond, 0, kHuge, "W_AI as a rate added on every step", &P::rateAiBps},
        {"FastReact", ParamKind::Flag, 0, 1, "ACKs within an RTT recompute the rate from the reference rate",
         &P::fastReact},
        {"MultiRate", ParamKind::Flag, 0, 1, "per-hop state, sending at the minimum per-hop rate",
         &P::multiRate},
        {"SampleFeedback", ParamKind::Flag, 0, 1, "fast-react ACKs use only hops that report a queue",
         &P::sampleFeedback},
        {"MinRate", ParamKind::BitsPerSecond, 1, kHuge, "floor of the rate", &P::minRateBps},
        {"Window", ParamKind::Window, 0, 2,
         "window besides the rate: 0 none, 1 the BDP, 2 BDP x rate / line rate", &P::window},
        {"MeanQueue", ParamKind::Flag, 0, 1,
         "queue term from the interval mean (0: the reference's smaller point reading)", &P::meanQueue},
        {"ReferenceArithmetic", ParamKind::Flag, 0, 1,
         "the reference's expressions, whole-b/s rates and integer window", &P::referenceArithmetic},
    };
    return rows;
}

namespace {

std::string formatNumber(double v) {
    std::ostringstream out;
    out.precision(12);
    out << v;
    return out.str();
}

template <typename Params>
void describe(std::ostringstream& out, const char* algorithm, const std::vector<ParamRow<Params>>& rows) {
    static const Params defaults{};
    for (const ParamRow<Params>& row : rows) {
        std::string range;
        if (row.kind == ParamKind::Flag) {
            range = "0 or 1";
        } else if (row.kind == ParamKind::Window) {
            range = "0, 1 or 2";
        } else {
            range = formatNumber(row.min) + " .. " +
                    (row.max >= kHuge ? std::string("-") : formatNumber(row.max));
        }
        out << "| " << algorithm << " | `" << row.name << "` | " << formatNumber(row.get(defaults)) << " | "
            << unitOf(row.kind) << " | " << range << " | " << row.doc << " |\n";
    }
}

}  // namespace

std::string describeParameters() {
    std::ostringstream out;
    out << "| algorithm | parameter | default | unit | range | meaning |\n|---|---|---|---|---|---|\n";
    describe(out, "DCQCN", dcqcnParameters());
    describe(out, "DCTCP", dctcpParameters());
    describe(out, "TIMELY", timelyParameters());
    describe(out, "HPCC", hpccParameters());
    return out.str();
}

}  // namespace mlnet::cc

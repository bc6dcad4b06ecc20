#include "roce-cc-config.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

namespace mlnet::roce {

NS_OBJECT_ENSURE_REGISTERED(RoceCcConfig);

ns3::TypeId RoceCcConfig::GetTypeId() {
    static ns3::TypeId tid =
        ns3::TypeId("mlnet::roce::RoceCcConfig")
            .SetParent<ns3::Object>()
            .SetGroupName("Roce")
            .AddConstructor<RoceCcConfig>()
            .AddAttribute("DcqcnG", "EWMA gain g of alpha.", ns3::DoubleValue(cc::DcqcnParams{}.g),
                          ns3::MakeDoubleAccessor(&RoceCcConfig::m_dcqcnG),
                          ns3::MakeDoubleChecker<double>(0, 1))
            .AddAttribute("DcqcnAlphaIntervalNs", "Alpha update period (ns).",
                          ns3::UintegerValue(cc::DcqcnParams{}.alphaIntervalNs),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_dcqcnAlphaIntervalNs),
                          ns3::MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("DcqcnDecreaseIntervalNs", "Rate-decrease period (ns).",
                          ns3::UintegerValue(cc::DcqcnParams{}.decreaseIntervalNs),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_dcqcnDecreaseIntervalNs),
                          ns3::MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("DcqcnIncreaseIntervalNs", "Rate-increase timer (ns).",
                          ns3::UintegerValue(cc::DcqcnParams{}.increaseIntervalNs),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_dcqcnIncreaseIntervalNs),
                          ns3::MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("DcqcnByteCounterBytes", "Byte counter B (0: off).",
                          ns3::UintegerValue(cc::DcqcnParams{}.byteCounterBytes),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_dcqcnByteCounterBytes),
                          ns3::MakeUintegerChecker<uint64_t>())
            .AddAttribute("DcqcnFastRecoverySteps", "Fast-recovery steps F.",
                          ns3::UintegerValue(cc::DcqcnParams{}.fastRecoverySteps),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_dcqcnFastRecoverySteps),
                          ns3::MakeUintegerChecker<uint32_t>())
            .AddAttribute("DcqcnAdditiveIncreaseBps", "R_AI (b/s).",
                          ns3::UintegerValue(cc::DcqcnParams{}.additiveIncreaseBps),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_dcqcnAdditiveIncreaseBps),
                          ns3::MakeUintegerChecker<uint64_t>())
            .AddAttribute("DcqcnHyperIncreaseBps", "R_HAI (b/s).",
                          ns3::UintegerValue(cc::DcqcnParams{}.hyperIncreaseBps),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_dcqcnHyperIncreaseBps),
                          ns3::MakeUintegerChecker<uint64_t>())
            .AddAttribute("DcqcnMinRateBps", "Minimum rate (b/s).",
                          ns3::UintegerValue(cc::DcqcnParams{}.minRateBps),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_dcqcnMinRateBps),
                          ns3::MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("DcqcnClampTargetRate", "Every cut sets target = rate.",
                          ns3::BooleanValue(cc::DcqcnParams{}.clampTargetRate),
                          ns3::MakeBooleanAccessor(&RoceCcConfig::m_dcqcnClampTargetRate),
                          ns3::MakeBooleanChecker())
            .AddAttribute("DcqcnRateOnFirstCnp", "Rate factor applied by the first CNP.",
                          ns3::DoubleValue(cc::DcqcnParams{}.rateOnFirstCnp),
                          ns3::MakeDoubleAccessor(&RoceCcConfig::m_dcqcnRateOnFirstCnp),
                          ns3::MakeDoubleChecker<double>(0, 1))
            .AddAttribute("DctcpG", "EWMA gain g of alpha.", ns3::DoubleValue(cc::DctcpParams{}.g),
                          ns3::MakeDoubleAccessor(&RoceCcConfig::m_dctcpG),
                          ns3::MakeDoubleChecker<double>(0, 1))
            .AddAttribute("DctcpRateBased", "The reference's rate-based variant instead of a window.",
                          ns3::BooleanValue(cc::DctcpParams{}.rateBased),
                          ns3::MakeBooleanAccessor(&RoceCcConfig::m_dctcpRateBased),
                          ns3::MakeBooleanChecker())
            .AddAttribute("DctcpInitialWindowBytes", "Initial window (0: the BDP).",
                          ns3::UintegerValue(cc::DctcpParams{}.initialWindowBytes),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_dctcpInitialWindowBytes),
                          ns3::MakeUintegerChecker<uint64_t>())
            .AddAttribute("DctcpRateAiBps", "Rate-based variant: increase per batch (b/s).",
                          ns3::UintegerValue(cc::DctcpParams{}.rateAiBps),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_dctcpRateAiBps),
                          ns3::MakeUintegerChecker<uint64_t>())
            .AddAttribute("DctcpMinRateBps", "Rate-based variant: minimum rate (b/s).",
                          ns3::UintegerValue(cc::DctcpParams{}.minRateBps),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_dctcpMinRateBps),
                          ns3::MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("TimelyTLowNs", "T_low (ns).", ns3::UintegerValue(cc::TimelyParams{}.tLowNs),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_timelyTLowNs),
                          ns3::MakeUintegerChecker<uint64_t>())
            .AddAttribute("TimelyTHighNs", "T_high (ns).", ns3::UintegerValue(cc::TimelyParams{}.tHighNs),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_timelyTHighNs),
                          ns3::MakeUintegerChecker<uint64_t>())
            .AddAttribute("TimelyMinRttNs", "Gradient normaliser minRTT (ns).",
                          ns3::UintegerValue(cc::TimelyParams{}.minRttNs),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_timelyMinRttNs),
                          ns3::MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("TimelyAlpha", "EWMA weight of the newest RTT difference.",
                          ns3::DoubleValue(cc::TimelyParams{}.alpha),
                          ns3::MakeDoubleAccessor(&RoceCcConfig::m_timelyAlpha),
                          ns3::MakeDoubleChecker<double>(0, 1))
            .AddAttribute(
                "TimelyBeta", "Multiplicative-decrease factor.", ns3::DoubleValue(cc::TimelyParams{}.beta),
                ns3::MakeDoubleAccessor(&RoceCcConfig::m_timelyBeta), ns3::MakeDoubleChecker<double>(0, 1))
            .AddAttribute("TimelyRateAiBps", "Additive step delta (b/s).",
                          ns3::UintegerValue(cc::TimelyParams{}.rateAiBps),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_timelyRateAiBps),
                          ns3::MakeUintegerChecker<uint64_t>())
            .AddAttribute("TimelyRateHaiBps", "Hyper-additive step (b/s).",
                          ns3::UintegerValue(cc::TimelyParams{}.rateHaiBps),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_timelyRateHaiBps),
                          ns3::MakeUintegerChecker<uint64_t>())
            .AddAttribute("TimelyHaiThreshold", "Consecutive increases before HAI.",
                          ns3::UintegerValue(cc::TimelyParams{}.haiThreshold),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_timelyHaiThreshold),
                          ns3::MakeUintegerChecker<uint32_t>())
            .AddAttribute("TimelyMinRateBps", "Minimum rate (b/s).",
                          ns3::UintegerValue(cc::TimelyParams{}.minRateBps),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_timelyMinRateBps),
                          ns3::MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("HpccTargetUtil", "Target utilisation eta.",
                          ns3::DoubleValue(cc::HpccParams{}.targetUtil),
                          ns3::MakeDoubleAccessor(&RoceCcConfig::m_hpccTargetUtil),
                          ns3::MakeDoubleChecker<double>(0.01, 1))
            .AddAttribute("HpccMaxStage", "Additive steps before a multiplicative one.",
                          ns3::UintegerValue(cc::HpccParams{}.maxStage),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_hpccMaxStage),
                          ns3::MakeUintegerChecker<uint32_t>())
            .AddAttribute("HpccRateAiBps", "W_AI as a rate (b/s).",
                          ns3::UintegerValue(cc::HpccParams{}.rateAiBps),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_hpccRateAiBps),
                          ns3::MakeUintegerChecker<uint64_t>())
            .AddAttribute("HpccFastReact", "Per-ACK reaction.", ns3::BooleanValue(cc::HpccParams{}.fastReact),
                          ns3::MakeBooleanAccessor(&RoceCcConfig::m_hpccFastReact), ns3::MakeBooleanChecker())
            .AddAttribute("HpccMultiRate", "Per-hop rates.", ns3::BooleanValue(cc::HpccParams{}.multiRate),
                          ns3::MakeBooleanAccessor(&RoceCcConfig::m_hpccMultiRate), ns3::MakeBooleanChecker())
            .AddAttribute("HpccMinRateBps", "Minimum rate (b/s).",
                          ns3::UintegerValue(cc::HpccParams{}.minRateBps),
                          ns3::MakeUintegerAccessor(&RoceCcConfig::m_hpccMinRateBps),
                          ns3::MakeUintegerChecker<uint64_t>(1))
            .AddAttribute(
                "HpccMeanQueue", "Queue term from the interval mean (false: the reference's min reading).",
                ns3::BooleanValue(cc::HpccParams{}.meanQueue),
                ns3::MakeBooleanAccessor(&RoceCcConfig::m_hpccMeanQueue), ns3::MakeBooleanChecker());
    return tid;
}

cc::DcqcnParams RoceCcConfig::Dcqcn() const {
    cc::DcqcnParams p;
    p.g = m_dcqcnG;
    p.alphaIntervalNs = m_dcqcnAlphaIntervalNs;
    p.decreaseIntervalNs = m_dcqcnDecreaseIntervalNs;
    p.increaseIntervalNs = m_dcqcnIncreaseIntervalNs;
    p.byteCounterBytes = m_dcqcnByteCounterBytes;
    p.fastRecoverySteps = m_dcqcnFastRecoverySteps;
    p.additiveIncreaseBps = m_dcqcnAdditiveIncreaseBps;
    p.hyperIncreaseBps = m_dcqcnHyperIncreaseBps;
    p.minRateBps = m_dcqcnMinRateBps;
    p.clampTargetRate = m_dcqcnClampTargetRate;
    p.rateOnFirstCnp = m_dcqcnRateOnFirstCnp;
    return p;
}

cc::DctcpParams RoceCcConfig::Dctcp() const {
    cc::DctcpParams p;
    p.g = m_dctcpG;
    p.rateBased = m_dctcpRateBased;
    p.initialWindowBytes = m_dctcpInitialWindowBytes;
    p.rateAiBps = m_dctcpRateAiBps;
    p.minRateBps = m_dctcpMinRateBps;
    return p;
}

cc::TimelyParams RoceCcConfig::Timely() const {
    cc::TimelyParams p;
    p.tLowNs = m_timelyTLowNs;
    p.tHighNs = m_timelyTHighNs;
    p.minRttNs = m_timelyMinRttNs;
    p.alpha = m_timelyAlpha;
    p.beta = m_timelyBeta;
    p.rateAiBps = m_timelyRateAiBps;
    p.rateHaiBps = m_timelyRateHaiBps;
    p.haiThreshold = m_timelyHaiThreshold;
    p.minRateBps = m_timelyMinRateBps;
    return p;
}

cc::HpccParams RoceCcConfig::Hpcc() const {
    cc::HpccParams p;
    p.targetUtil = m_hpccTargetUtil;
    p.maxStage = m_hpccMaxStage;
    p.rateAiBps = m_hpccRateAiBps;
    p.fastReact = m_hpccFastReact;
    p.multiRate = m_hpccMultiRate;
    p.minRateBps = m_hpccMinRateBps;
    p.meanQueue = m_hpccMeanQueue;
    return p;
}

}  // namespace mlnet::roce

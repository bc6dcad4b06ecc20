// Every congestion-control parameter as an ns-3 attribute, so scripts set them with Config::SetDefault or on
// the command line (e.g. --mlnet::roce::RoceCcConfig::DcqcnG=0.01 with ns-3's CommandLine). Defaults are
// those of the plain C++ parameter structs in congestion/, which document each value's origin; `mlnet-flows
// --cc-preset= attributes` takes its parameters from here.
#ifndef MLNET_ROCE_CC_CONFIG_H
#define MLNET_ROCE_CC_CONFIG_H

#include "ns3/object.h"

#include "dcqcn.h"
#include "dctcp.h"
#include "hpcc.h"
#include "timely.h"

namespace mlnet::roce {

class RoceCcConfig : public ns3::Object {
public:
    static ns3::TypeId GetTypeId();

    // The structs' defaults with every attribute applied.
    cc::DcqcnParams Dcqcn() const;
    cc::DctcpParams Dctcp() const;
    cc::TimelyParams Timely() const;
    cc::HpccParams Hpcc() const;

private:
    double m_dcqcnG = cc::DcqcnParams{}.g;
    uint64_t m_dcqcnAlphaIntervalNs = cc::DcqcnParams{}.alphaIntervalNs;
    uint64_t m_dcqcnDecreaseIntervalNs = cc::DcqcnParams{}.decreaseIntervalNs;
    uint64_t m_dcqcnIncreaseIntervalNs = cc::DcqcnParams{}.increaseIntervalNs;
    uint64_t m_dcqcnByteCounterBytes = cc::DcqcnParams{}.byteCounterBytes;
    uint32_t m_dcqcnFastRecoverySteps = cc::DcqcnParams{}.fastRecoverySteps;
    uint64_t m_dcqcnAdditiveIncreaseBps = cc::DcqcnParams{}.additiveIncreaseBps;
    uint64_t m_dcqcnHyperIncreaseBps = cc::DcqcnParams{}.hyperIncreaseBps;
    uint64_t m_dcqcnMinRateBps = cc::DcqcnParams{}.minRateBps;
    bool m_dcqcnClampTargetRate = cc::DcqcnParams{}.clampTargetRate;
    double m_dcqcnRateOnFirstCnp = cc::DcqcnParams{}.rateOnFirstCnp;
    double m_dctcpG = cc::DctcpParams{}.g;
    bool m_dctcpRateBased = cc::DctcpParams{}.rateBased;
    uint64_t m_dctcpInitialWindowBytes = cc::DctcpParams{}.initialWindowBytes;
    uint64_t m_dctcpRateAiBps = cc::DctcpParams{}.rateAiBps;
    uint64_t m_dctcpMinRateBps = cc::DctcpParams{}.minRateBps;
    uint64_t m_timelyTLowNs = cc::TimelyParams{}.tLowNs;
    uint64_t m_timelyTHighNs = cc::TimelyParams{}.tHighNs;
    uint64_t m_timelyMinRttNs = cc::TimelyParams{}.minRttNs;
    double m_timelyAlpha = cc::TimelyParams{}.alpha;
    double m_timelyBeta = cc::TimelyParams{}.beta;
    uint64_t m_timelyRateAiBps = cc::TimelyParams{}.rateAiBps;
    uint64_t m_timelyRateHaiBps = cc::TimelyParams{}.rateHaiBps;
    uint32_t m_timelyHaiThreshold = cc::TimelyParams{}.haiThreshold;
    uint64_t m_timelyMinRateBps = cc::TimelyParams{}.minRateBps;
    double m_hpccTargetUtil = cc::HpccParams{}.targetUtil;
    uint32_t m_hpccMaxStage = cc::HpccParams{}.maxStage;
    uint64_t m_hpccRateAiBps = cc::HpccParams{}.rateAiBps;
    bool m_hpccFastReact = cc::HpccParams{}.fastReact;
    bool m_hpccMultiRate = cc::HpccParams{}.multiRate;
    uint64_t m_hpccMinRateBps = cc::HpccParams{}.minRateBps;
    bool m_hpccMeanQueue = cc::HpccParams{}.meanQueue;
};

}  // namespace mlnet::roce

#endif

#include "cc-selection.h"

#include <memory>

#include "dcqcn.h"
#include "dctcp.h"
#include "hpcc.h"
#include "roce-cc-config.h"
#include "timely.h"

namespace mlnet::roce {

namespace {

cc::DcqcnParams dcqcnFromConfig(const HpccConfig& c) {
    cc::DcqcnParams p;
    p.g = c.ewmaGain;
    p.alphaIntervalNs = c.alphaResumeIntervalNs;
    p.decreaseIntervalNs = c.rateDecreaseIntervalNs;
    p.increaseIntervalNs = c.rpTimerNs;
    p.byteCounterBytes = 0;  // config.txt has no byte counter key: the reference has none
    p.fastRecoverySteps = c.fastRecoveryTimes;
    p.additiveIncreaseBps = c.rateAiBps;
    p.hyperIncreaseBps = c.rateHaiBps;
    p.minRateBps = c.minRateBps;
    p.clampTargetRate = c.clampTargetRate;
    p.hasWindow = c.hasWindow;
    p.varWindow = c.varWindow;
    return p;
}

cc::HpccParams hpccFromConfig(const HpccConfig& c) {
    cc::HpccParams p;
    p.targetUtil = c.uTarget;
    p.maxStage = c.miThresh;
    p.rateAiBps = c.rateAiBps;
    p.fastReact = c.fastReact;
    p.multiRate = c.multiRate;
    p.sampleFeedback = c.sampleFeedback;
    p.minRateBps = c.minRateBps;
    p.window = c.hasWindow;
    return p;
}

cc::TimelyParams timelyFromConfig(const HpccConfig& c) {
    cc::TimelyParams p;
    p.rateAiBps = c.rateAiBps;
    p.rateHaiBps = c.rateHaiBps;
    p.minRateBps = c.minRateBps;
    p.window = c.hasWindow && c.varWindow;
    return p;
}

cc::DctcpParams dctcpFromConfig(const HpccConfig& c) {
    cc::DctcpParams p = cc::dctcpHpccPaper();
    p.g = c.ewmaGain;
    p.rateAiBps = c.dctcpRateAiBps;
    p.minRateBps = c.minRateBps;
    p.hasWindow = c.hasWindow;
    p.varWindow = c.varWindow;
    return p;
}

}  // namespace

CcSelection selectCongestionControl(const HpccConfig& config, const std::string& algorithm,
                                    const std::string& preset, Diagnostics& diag) {
    CcSelection s;
    std::string name = algorithm;
    if (name.empty()) {
        switch (config.ccMode) {
            case kCcModeDcqcn:
                name = "dcqcn";
                break;
            case kCcModeHpcc:
                name = "hpcc";
                break;
            case kCcModeTimely:
                name = "timely";
                break;
            case kCcModeDctcp:
                name = "dctcp";
                break;
            case kCcModeHpccPint:
                diag.error(config.path + ": CC_MODE 10 (HPCC-PINT) is not implemented; use CC_MODE 3 (HPCC)");
                return s;
            default:
                name = "none";
                break;
        }
    }
    if (preset != "config" && preset != "paper" && preset != "hpcc-paper" && preset != "attributes") {
        diag.error("--cc-preset must be config, paper, hpcc-paper or attributes, not '" + preset + "'");
        return s;
    }
    // The attribute values at selection time (Config::SetDefault / --mlnet::roce::RoceCcConfig::... options).
    const ns3::Ptr<RoceCcConfig> attributes = ns3::CreateObject<RoceCcConfig>();
    s.name = name;
    const bool hasWindow = config.hasWindow;
    if (name == "none") {
        s.factory = [hasWindow](const cc::FlowParams& flow) {
            return std::make_unique<cc::NoCongestionControl>(flow, hasWindow ? flow.bdpBytes : 0);
        };
    } else if (name == "dcqcn") {
        const cc::DcqcnParams fromConfig = dcqcnFromConfig(config);
        // The paper's notification point sends real CNPs (at most one per QP per 50 us); the reference echoes
        // ECN on every ACK instead.
        s.ecnEchoOnAck = preset != "paper";
        const cc::DcqcnParams fromAttributes = attributes->Dcqcn();
        s.factory = [fromConfig, fromAttributes, preset](const cc::FlowParams& flow) {
            cc::DcqcnParams p = preset == "attributes"   ? fromAttributes
                                : preset == "paper"      ? cc::dcqcnPaper(flow.lineRateBps)
                                : preset == "hpcc-paper" ? cc::dcqcnHpccPaper(flow.lineRateBps)
                                                         : fromConfig;
            p.ackEcnIsCnp = preset != "paper";
            return std::make_unique<cc::Dcqcn>(flow, p);
        };
    } else if (name == "hpcc") {
        s.intEnabled = true;
        const cc::HpccParams fromConfig = hpccFromConfig(config);
        const cc::HpccParams fromAttributes = attributes->Hpcc();
        s.factory = [fromConfig, fromAttributes, preset](const cc::FlowParams& flow) {
            const cc::HpccParams p = preset == "attributes"   ? fromAttributes
                                     : preset == "paper"      ? cc::hpccDefault()
                                     : preset == "hpcc-paper" ? cc::hpccPaper(flow.lineRateBps)
                                                              : fromConfig;
            return std::make_unique<cc::Hpcc>(flow, p);
        };
    } else if (name == "timely") {
        const cc::TimelyParams fromConfig = timelyFromConfig(config);
        const cc::TimelyParams fromAttributes = attributes->Timely();
        s.factory = [fromConfig, fromAttributes, preset](const cc::FlowParams& flow) {
            const cc::TimelyParams p = preset == "attributes"   ? fromAttributes
                                       : preset == "paper"      ? cc::timelyPaper()
                                       : preset == "hpcc-paper" ? cc::timelyHpccPaper(flow.lineRateBps)
                                                                : fromConfig;
            return std::make_unique<cc::Timely>(flow, p);
        };
    } else if (name == "dctcp") {
        const cc::DctcpParams fromConfig = dctcpFromConfig(config);
        const cc::DctcpParams fromAttributes = attributes->Dctcp();
        s.factory = [fromConfig, fromAttributes, preset](const cc::FlowParams& flow) {
            const cc::DctcpParams p = preset == "attributes"   ? fromAttributes
                                      : preset == "paper"      ? cc::dctcpWindow()
                                      : preset == "hpcc-paper" ? cc::dctcpHpccPaper()
                                                               : fromConfig;
            return std::make_unique<cc::Dctcp>(flow, p);
        };
    } else {
        diag.error("--cc must be none, dcqcn, hpcc, timely or dctcp, not '" + name + "'");
    }
    return s;
}

}  // namespace mlnet::roce

#include "cc-selection.h"

#include <memory>
#include <utility>

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

enum class Preset { Config, Paper, HpccPaper, Attributes };

bool parsePreset(const std::string& name, Preset& preset) {
    static const std::pair<const char*, Preset> kNames[] = {{"config", Preset::Config},
                                                            {"paper", Preset::Paper},
                                                            {"hpcc-paper", Preset::HpccPaper},
                                                            {"attributes", Preset::Attributes}};
    for (const auto& [n, p] : kNames) {
        if (name == n) {
            preset = p;
            return true;
        }
    }
    return false;
}

// One factory shape for every algorithm: the preset picks where a flow's parameters come from; the two paper
// presets may depend on the flow's line rate.
template <typename Algorithm, typename Params, typename PaperFn, typename HpccPaperFn>
RoceNic::CcFactory presetFactory(Preset preset, const Params& fromConfig, const Params& fromAttributes,
                                 PaperFn paper, HpccPaperFn hpccPaper) {
    return [=](const cc::FlowParams& flow) {
        switch (preset) {
            case Preset::Paper:
                return std::make_unique<Algorithm>(flow, paper(flow.lineRateBps));
            case Preset::HpccPaper:
                return std::make_unique<Algorithm>(flow, hpccPaper(flow.lineRateBps));
            case Preset::Attributes:
                return std::make_unique<Algorithm>(flow, fromAttributes);
            case Preset::Config:
                break;
        }
        return std::make_unique<Algorithm>(flow, fromConfig);
    };
}

}  // namespace

CcSelection selectCongestionControl(const HpccConfig& config, const std::string& algorithm,
                                    const std::string& presetName, Diagnostics& diag) {
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
    Preset preset = Preset::Config;
    if (!parsePreset(presetName, preset)) {
        diag.error("--cc-preset must be config, paper, hpcc-paper or attributes, not '" + presetName + "'");
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
        // The paper's notification point sends real CNPs (at most one per QP per 50 us); the reference echoes
        // ECN on every ACK instead.
        s.ecnEchoOnAck = preset != Preset::Paper;
        s.factory = presetFactory<cc::Dcqcn>(preset, dcqcnFromConfig(config), attributes->Dcqcn(),
                                             cc::dcqcnPaper, cc::dcqcnHpccPaper);
    } else if (name == "hpcc") {
        s.intEnabled = true;
        s.factory = presetFactory<cc::Hpcc>(
            preset, hpccFromConfig(config), attributes->Hpcc(), [](uint64_t) { return cc::hpccDefault(); },
            cc::hpccPaper);
    } else if (name == "timely") {
        s.factory = presetFactory<cc::Timely>(
            preset, timelyFromConfig(config), attributes->Timely(),
            [](uint64_t) { return cc::timelyPaper(); }, cc::timelyHpccPaper);
    } else if (name == "dctcp") {
        s.factory = presetFactory<cc::Dctcp>(
            preset, dctcpFromConfig(config), attributes->Dctcp(), [](uint64_t) { return cc::dctcpWindow(); },
            [](uint64_t) { return cc::dctcpHpccPaper(); });
    } else {
        diag.error("--cc must be none, dcqcn, hpcc, timely or dctcp, not '" + name + "'");
    }
    return s;
}

}  // namespace mlnet::roce

#include "cc-selection.h"

#include <memory>
#include <utility>

#include "cc-parameters.h"
#include "roce-cc-config.h"

namespace mlnet::roce {

namespace {

// Sets every parameter that a config.txt key maps to in this algorithm (the key's value, or the reference's
// default when absent) on `params`. `column` picks the algorithm's column of ccKeys().
template <typename Params>
Params fromConfig(const HpccConfig& c, Params params, const char* CcKey::*column,
                  const std::vector<cc::ParamRow<Params>>& rows, Diagnostics& diag) {
    for (const CcKey& k : ccKeys()) {
        if (const char* name = k.*column) {
            const cc::ParamRow<Params>* row = cc::findParameter(rows, name);
            if (!row || !row->set(params, c.ccValue(k.key))) {
                diag.error(c.path + ": key '" + k.key + "' = " + std::to_string(c.ccValue(k.key)) +
                           (row ? " is outside the range of parameter " : " names no parameter ") + name);
            }
        }
    }
    return params;
}

// HAS_WIN / VAR_WIN as the reference's NIC reads them for DCQCN and DCTCP: no window, the BDP, or one that
// follows the rate.
cc::WindowMode windowFromKeys(const HpccConfig& c) {
    return !c.hasWindow  ? cc::WindowMode::None
           : c.varWindow ? cc::WindowMode::FollowsRate
                         : cc::WindowMode::Bdp;
}

cc::DcqcnParams dcqcnFromConfig(const HpccConfig& c, Diagnostics& diag) {
    cc::DcqcnParams base;
    base.byteCounterBytes = 0;       // config.txt has no byte counter key: the reference has none
    base.firstDecreaseDelayNs = 1;   // nor a key for this: its NIC's fixed 1 ns
    base.wholeBitRates = true;       // its DataRate arithmetic
    base.cnpBeforeAlphaTick = true;  // its event order
    base.tiesInSchedulingOrder = true;
    base.window = windowFromKeys(c);
    return fromConfig(c, base, &CcKey::dcqcn, cc::dcqcnParameters(), diag);
}

cc::HpccParams hpccFromConfig(const HpccConfig& c, Diagnostics& diag) {
    cc::HpccParams base;
    base.window =
        c.hasWindow ? cc::WindowMode::FollowsRate : cc::WindowMode::None;  // HPCC's window follows R
    base.referenceArithmetic = true;  // its DataRate and integer arithmetic
    return fromConfig(c, base, &CcKey::hpcc, cc::hpccParameters(), diag);
}

cc::TimelyParams timelyFromConfig(const HpccConfig& c, Diagnostics& diag) {
    cc::TimelyParams base;
    base.window = c.hasWindow && c.varWindow ? cc::WindowMode::FollowsRate : cc::WindowMode::None;
    return fromConfig(c, base, &CcKey::timely, cc::timelyParameters(), diag);
}

cc::DctcpParams dctcpFromConfig(const HpccConfig& c, Diagnostics& diag) {
    cc::DctcpParams base = cc::dctcpHpccPaper();
    base.window = windowFromKeys(c);
    return fromConfig(c, base, &CcKey::dctcp, cc::dctcpParameters(), diag);
}

enum class Preset { Config, Paper, HpccPaper, Attributes };

const std::pair<const char*, Preset> kPresetNames[] = {{"config", Preset::Config},
                                                       {"paper", Preset::Paper},
                                                       {"hpcc-paper", Preset::HpccPaper},
                                                       {"attributes", Preset::Attributes}};

bool parsePreset(const std::string& name, Preset& preset) {
    for (const auto& [n, p] : kPresetNames) {
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

bool isCcPresetName(const std::string& name) {
    Preset preset;
    return parsePreset(name, preset);
}

std::string ccPresetChoices() {
    std::string text;
    const std::size_t n = sizeof(kPresetNames) / sizeof(kPresetNames[0]);
    for (std::size_t i = 0; i < n; ++i) {
        text += (i == 0 ? "" : i + 1 == n ? " or " : ", ") + std::string(kPresetNames[i].first);
    }
    return text;
}

CcSelection selectCongestionControl(const HpccConfig& config, const std::string& algorithm,
                                    const std::string& presetName, Diagnostics& diag,
                                    const ModelRules& rules) {
    CcSelection s;
    CcAlgorithm chosen = CcAlgorithm::None;
    if (algorithm.empty()) {
        switch (config.ccMode) {
            case kCcModeDcqcn:
                chosen = CcAlgorithm::Dcqcn;
                break;
            case kCcModeHpcc:
                chosen = CcAlgorithm::Hpcc;
                break;
            case kCcModeTimely:
                chosen = CcAlgorithm::Timely;
                break;
            case kCcModeDctcp:
                chosen = CcAlgorithm::Dctcp;
                break;
            case kCcModeHpccPint:
                diag.error(config.path + ": CC_MODE 10 (HPCC-PINT) is not implemented; use CC_MODE 3 (HPCC)");
                return s;
            default:
                break;
        }
    } else if (!parseCcAlgorithm(algorithm, chosen)) {
        diag.error("--cc must be " + ccAlgorithmChoices() + ", not '" + algorithm + "'");
        return s;
    }
    Preset preset = Preset::Config;
    if (!parsePreset(presetName, preset)) {
        diag.error("--cc-preset must be " + ccPresetChoices() + ", not '" + presetName + "'");
        return s;
    }
    // The attribute values at selection time (Config::SetDefault / --mlnet::roce::RoceCcConfig::... options).
    const ns3::Ptr<RoceCcConfig> attributes = ns3::CreateObject<RoceCcConfig>();
    s.algorithm = chosen;
    const bool hasWindow = config.hasWindow;
    switch (chosen) {
        case CcAlgorithm::None:
            s.factory = [hasWindow](const cc::FlowParams& flow) {
                return std::make_unique<cc::NoCongestionControl>(flow, hasWindow ? flow.bdpBytes : 0);
            };
            break;
        case CcAlgorithm::Dcqcn:
            // The paper's notification point sends real CNPs (at most one per QP per 50 us); the reference
            // echoes ECN on every ACK instead.
            s.ecnEchoOnAck = preset != Preset::Paper;
            s.factory = presetFactory<cc::Dcqcn>(preset, dcqcnFromConfig(config, diag), attributes->Dcqcn(),
                                                 cc::dcqcnPaper, cc::dcqcnHpccPaper);
            break;
        case CcAlgorithm::Hpcc: {
            s.intEnabled = true;
            const bool meanQueue = rules.hpccMeanQueue;
            cc::HpccParams fromConfig = hpccFromConfig(config, diag);
            fromConfig.meanQueue = meanQueue;
            s.factory = presetFactory<cc::Hpcc>(
                preset, fromConfig, attributes->Hpcc(),
                [meanQueue](uint64_t) {
                    cc::HpccParams p = cc::hpccDefault();
                    p.meanQueue = meanQueue;
                    return p;
                },
                [meanQueue](uint64_t lineRateBps) {
                    cc::HpccParams p = cc::hpccPaper(lineRateBps);
                    p.meanQueue = meanQueue;
                    return p;
                });
            break;
        }
        case CcAlgorithm::Timely:
            s.factory = presetFactory<cc::Timely>(
                preset, timelyFromConfig(config, diag), attributes->Timely(),
                [](uint64_t) { return cc::timelyPaper(); }, cc::timelyHpccPaper);
            break;
        case CcAlgorithm::Dctcp:
            s.factory = presetFactory<cc::Dctcp>(
                preset, dctcpFromConfig(config, diag), attributes->Dctcp(),
                [](uint64_t) { return cc::dctcpWindow(); }, [](uint64_t) { return cc::dctcpHpccPaper(); });
            break;
    }
    return s;
}

}  // namespace mlnet::roce

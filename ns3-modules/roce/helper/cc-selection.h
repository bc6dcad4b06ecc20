// Which congestion control a run uses, and how the NIC must behave for it, from the HPCC-style configuration:
// CC_MODE picks the algorithm (1 DCQCN, 3 HPCC, 7 TIMELY, 8 DCTCP, 0 or 12 none) and its keys give the
// parameters ("config" preset, HPCC-compatible), or a named preset replaces them ("paper": each algorithm's
// own paper or vendor defaults; "hpcc-paper": the HPCC paper's settings regardless of the file's values).
#ifndef MLNET_ROCE_CC_SELECTION_H
#define MLNET_ROCE_CC_SELECTION_H

#include <string>

#include "cc-algorithm.h"
#include "hpcc-config.h"
#include "model-rules.h"
#include "roce-nic.h"
#include "util/diagnostics.h"

namespace mlnet::roce {

struct CcSelection {
    CcAlgorithm algorithm = CcAlgorithm::None;
    const char* Name() const { return ccAlgorithmName(algorithm); }
    RoceNic::CcFactory factory;
    bool ecnEchoOnAck = true;  // the receiver echoes CE on ACKs (HPCC-compatible) instead of sending CNPs
    bool intEnabled = false;   // data carries INT and ACKs echo it (HPCC)
};

// Whether `name` is a preset selectCongestionControl takes; the choices as "config, paper, ... or
// attributes".
bool isCcPresetName(const std::string& name);
std::string ccPresetChoices();

// `algorithm`: "" (follow CC_MODE), "none", "dcqcn", "hpcc", "timely" or "dctcp". `presetName`: "config"
// (default), "paper", "hpcc-paper" or "attributes" (the RoceCcConfig attribute values). Bad names go to diag.
// `rules` (model-rules.h) decide HPCC's queue term under every preset but "attributes", whose
// RoceCcConfig::HpccMeanQueue does.
CcSelection selectCongestionControl(const HpccConfig& config, const std::string& algorithm,
                                    const std::string& presetName, Diagnostics& diag,
                                    const ModelRules& rules = ModelRules{});

}  // namespace mlnet::roce

#endif

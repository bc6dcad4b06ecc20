#include "fabric-settings.h"

#include <algorithm>

namespace mlnet::roce {

void applyCongestionControl(FabricSettings& settings, const CcSelection& selection) {
    settings.ccFactory = selection.factory;
    settings.nic.ecnEchoOnAck = selection.ecnEchoOnAck;
    settings.nic.intEnabled = selection.intEnabled;
    // The block the reference's INT mode puts on every data packet and ACK (used by its framings only).
    settings.nic.frames.hpccIntBlockBytes =
        selection.algorithm == CcAlgorithm::Hpcc     ? FrameCharges::kHpccIntBlockBytes
        : selection.algorithm == CcAlgorithm::Timely ? FrameCharges::kTimelyIntBlockBytes
                                                     : 0;
}

FabricSettings fabricSettingsFromHpccConfig(const HpccConfig& config, const CcSelection& selection) {
    FabricSettings s;
    s.nic.mtuPayloadBytes = config.payloadBytes;
    s.nic.ackIntervalBytes = config.l2AckIntervalBytes;
    s.nic.ackChunkBytes = config.l2ChunkBytes;
    s.nic.ackPriority = config.ackHighPriority ? 0 : 3;
    s.bufferBytes = config.bufferBytes;
    s.ecnEnabled = config.ecnEnabled;
    for (const auto& [rate, kmax] : config.kmaxBytesByRateBps) {
        if (auto t = config.ecnFor(rate)) {
            s.ecn.push_back({rate, t->kminBytes, t->kmaxBytes, t->pmax});
        }
    }
    s.defaultErrorRate = config.errorRatePerLink;
    if (config.headroomFactor) {
        s.headroomFactor = *config.headroomFactor;
    }
    s.globalBaseRtt = config.globalT;
    s.intMulti = config.intMulti;
    applyCongestionControl(s, selection);
    if (!config.qlenMonFile.empty()) {
        // Sampled when queues change, at most once per interval per port: no sweep over idle ports.
        s.switches.queueSampleIntervalPs = nsToPs(std::max<uint64_t>(config.qlenMonIntervalNs, 1));
        s.switches.queueSampleStartPs = nsToPs(config.qlenMonStartNs);
        s.switches.queueSampleEndPs = nsToPs(config.qlenMonEndNs);
    }
    return s;
}

}  // namespace mlnet::roce

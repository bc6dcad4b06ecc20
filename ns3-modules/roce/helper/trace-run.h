// The wiring every tool that replays traces on the fabric shares (mlnet-ns3, mlnet-nccl-tests' packet
// backend): the description's congestion control and model rules applied to its fabric settings, the bridge's
// traffic classes, and the watch that ends the run (ns-3 stops once the last rank has finished and every
// message is acknowledged; a hang detector stops a run that no longer moves and says why).
#ifndef MLNET_ROCE_TRACE_RUN_H
#define MLNET_ROCE_TRACE_RUN_H

#include <cstdint>
#include <string>
#include <vector>

#include "cc-selection.h"
#include "hang-detector.h"
#include "model-rules.h"
#include "network-description.h"
#include "roce-network-api.h"
#include "system/simulation.h"

namespace mlnet::roce {

// Selects the congestion control (`ccName` and `preset`, "" for the description's) and applies it and `rules`
// to `fabric`. Bad names go to diag.
CcSelection applyPacketModel(const PacketModelSettings& settings, const ModelRules& rules,
                             const std::string& ccName, const std::string& preset, FabricSettings& fabric,
                             Diagnostics& diag);

// The bridge's traffic class per comm_priority: the description's list, or its one class.
std::vector<uint8_t> trafficClassesOf(const PacketModelSettings& settings);

// Fast-forward's sampling window for a congestion control: long enough that a steady state's bytes per
// window settle within the tolerance (several RTTs; for DCQCN, cycles of its 55 us increase timer).
TimePs fastForwardWindowPs(CcAlgorithm algorithm);

class TraceRunWatch {
public:
    // Progress is delivered bytes, acknowledged messages and finished ranks; a run with no message in flight,
    // no core event pending and ranks unfinished is stalled (a circular wait) and stops at the next check.
    TraceRunWatch(const RoceFabric& fabric, RoceNetworkApi& api, Simulation& simulation, TimePs hangCheckPs);
    // Starts the simulation (ns-3 stops once it has finished and every message is acknowledged) and the
    // watch.
    void Start();
    const HangDetector& Hang() const { return m_hang; }

private:
    static void StopWhenDrained(void* api, uint64_t);

    RoceNetworkApi& m_api;
    Simulation& m_simulation;
    HangDetector m_hang;
};

}  // namespace mlnet::roce

#endif

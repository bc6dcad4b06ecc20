// Everything a RoCE fabric needs besides its topology: NIC and switch behaviour, buffers, PFC and ECN
// (network-wide, per tier and per link rate), congestion control and outputs. One translation from the
// HPCC-style config.txt (fabricSettingsFromHpccConfig) serves mlnet-flows, the incast experiment and the
// ASTRA-sim bridge.
#ifndef MLNET_ROCE_FABRIC_SETTINGS_H
#define MLNET_ROCE_FABRIC_SETTINGS_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cc-selection.h"
#include "fast-forward.h"
#include "hpcc-config.h"
#include "roce-nic.h"
#include "roce-switch.h"

namespace mlnet::roce {

// ECN thresholds (RED) for ports of one line rate.
struct EcnRule {
    uint64_t rateBps;
    uint64_t kminBytes, kmaxBytes;
    double pmax;
};

// Overrides for the switches of one tier ("leaf", "spine", ... of the topology description).
struct TierSettings {
    std::optional<uint64_t> bufferBytes;
    std::optional<bool> pfcEnabled;
    std::optional<bool> ecnEnabled;
    // Thresholds at 25 Gb/s, scaled linearly with each port's rate.
    std::optional<EcnRule> ecnPer25Gbps;
};

struct FabricSettings {
    NicSettings nic;
    SwitchSettings switches;
    uint64_t bufferBytes = 32ull << 20;  // per switch (and per forwarding NPU)
    uint64_t reserveBytes = 4096;        // per ingress port and priority
    bool pfcEnabled = true;
    bool ecnEnabled = true;
    // Port thresholds: the rule for the port's exact rate, else ecnPer25Gbps scaled to it; with ECN on, a
    // port with neither is an error (the reference aborts on a rate missing from its maps).
    std::vector<EcnRule> ecn;
    std::optional<EcnRule> ecnPer25Gbps;
    std::map<std::string, TierSettings> tiers;
    // Headroom per port = factor x (bytes the peer can still send after a pause is triggered): two
    // propagation delays of line rate plus two maximum frames (the frame on the wire each way).
    double headroomFactor = 1.5;
    // The reference's alpha: 1/8, halved shift per doubling of the port rate above the NIC rate.
    uint32_t alphaShift = 3;
    double defaultErrorRate = 0;  // per frame, for cables whose own error rate is 0 (ERROR_RATE_PER_LINK)
    uint64_t windowBytes = 0;     // fixed window of "none" when no factory is given; 0: none
    bool globalBaseRtt = true;    // base RTT/BDP of the longest host pair for every flow (GLOBAL_T)
    // The reference's INT field unit multiplier (INT_MULTI), applied when the model rules ask for its INT
    // fields (ModelRules::referenceIntFields -> switches.intFieldMulti).
    uint32_t intMulti = 1;
    // ECN marking draws numbered as the reference numbers its random streams (FreshStreamDraws), from ns-3's
    // RngSeedManager seed and run, shared by all switches; false: each switch its own random variable.
    bool referenceMarkingDraws = false;
    // The reference's switch buffer: headroom 3 x rate x delay per port, its reserve and headroom accounting
    // (MmuConfig::referenceAccounting); false: ours (headroomFactor, a reserve per priority).
    bool referenceMmu = false;
    // The reference's PFC: a pause holds until its resume, and switches send one pause per crossing (no
    // refresh). false: 802.1Qbb quanta, renewed while congested.
    bool referencePfc = false;
    // Messages share one queue pair per (source, destination, priority) instead of one each (NCCL keeps its
    // connections; HPCC-style experiments and ASTRA-sim's ns-3 backend open one per message).
    bool reuseConnections = false;
    RoceNic::CcFactory ccFactory;
    uint64_t seed = 1;  // ECMP salt, and ns-3's RngSeedManager seed (1..kMaxSeed) of the random draws
    EcmpHashing ecmp =
        EcmpHashing::Ours;  // or the reference's hash and per-pair source ports (model-rules.h)
    std::string pcapPath;   // empty: no capture
    // A fabric of RoceFabric::kHugePageMinPorts ports or more puts the process's heap on transparent huge
    // pages (adviseHugePagesForHeap: glibc's malloc settings change for the whole process, once). false
    // leaves the heap as it is, for programs that embed the fabric and manage their memory themselves.
    bool hugePageHeap = true;
    // Skip network time through steady states (fast-forward.h); off: every packet is simulated.
    FastForwardSettings fastForward;
    // Replay repeated episodes from a record instead of simulating them (episode-memo.h). Needs one queue
    // pair per message (reuseConnections off) and fast-forward off.
    bool memoizeEpisodes = false;
    // Messages alone on their path (no switch queue can build on it) as fluid flows at their line rate (HPCC:
    // at the rate it sets on the fluid links' telemetry) instead of packets; where flows meet, packets
    // (uncontended-fluid.h). Needs one queue pair per
    // message, fast-forward and memoized episodes off.
    bool fluidUncontended = false;
    // How the scale-up domains (cables of "scale-up" switches: NVLink) carry messages that stay inside
    // them: Fluid, max-min shared and lossless as NVLink is (scale-up-fluid.h); Packet, as RoCE links with
    // PFC like every other cable.
    enum class ScaleUp : uint8_t { Fluid, Packet };
    ScaleUp scaleUp = ScaleUp::Fluid;
};

// The largest seed ns-3's RngSeedManager takes: its MRG32k3a streams need a seed below m1 = 4294967087
// (a larger one aborts inside ns-3). Every reader of a seed (command lines, descriptions) bounds it by this.
constexpr uint64_t kMaxSeed = 4294967086ull;

// The scale-up model a command line names: "fluid" or "packet"; nullopt for anything else.
inline std::optional<FabricSettings::ScaleUp> parseScaleUp(const std::string& name) {
    if (name == "fluid") {
        return FabricSettings::ScaleUp::Fluid;
    }
    if (name == "packet") {
        return FabricSettings::ScaleUp::Packet;
    }
    return std::nullopt;
}

// The algorithm's factory and the NIC mode it needs (ECN echoed on ACKs or real CNPs; INT for HPCC).
void applyCongestionControl(FabricSettings& settings, const CcSelection& selection);

// The fabric part of an HPCC-style configuration: payload, ACK coalescing and priority, buffer, ECN maps,
// GLOBAL_T, ERROR_RATE_PER_LINK, the queue monitor window, and the selected congestion control with the NIC
// mode it needs. Run options (PFC switch, RTO, seed, pcap) stay with the caller.
FabricSettings fabricSettingsFromHpccConfig(const HpccConfig& config, const CcSelection& selection);

}  // namespace mlnet::roce

#endif

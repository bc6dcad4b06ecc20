// Where our model departs on purpose from the HPCC reference simulator, as one set of switches: each rule can
// be set on its own, and --compat=hpcc selects the reference's side of all of them at once;
// --compat=astra-ns3 selects ASTRA-sim's ns-3 backend's, which is the reference's with its own frames and
// receive credit (docs/fidelity.md lists every rule with its measured effect). The defaults are ours: real
// RoCEv2 frames, HPCC's interval-mean queue, flow starts read exactly.
#ifndef MLNET_ROCE_MODEL_RULES_H
#define MLNET_ROCE_MODEL_RULES_H

#include <string>
#include <vector>

#include "ns3/command-line.h"

#include "cc-algorithm.h"
#include "frame-charges.h"
#include "network/routing.h"
#include "tool-command-line.h"

namespace mlnet::roce {

struct FabricSettings;

struct ModelRules {
    // --framing=rocev2|hpcc|astra-ns3: what frames are charged and how their times round (frame-charges.h)
    Framing framing = Framing::RoceV2;
    bool hpccMeanQueue = true;  // --hpcc-queue=mean|point: HPCC's queue term (cc::HpccParams::meanQueue)
    // --flow-starts=exact|reference: flow-file start seconds read exactly (rounded to the ns), or as the
    // reference reads them: through a double, truncated to the ns (2.000017887 s starts at 2000017886 ns),
    // and started in its event order (HpccFlowRunner::SetReferenceStartOrder).
    bool referenceFlowStarts = false;
    // --ecmp=ours|hpcc: how switches pick among equal-cost ports and how source ports are numbered
    // (network/routing.h EcmpHashing; the reference numbers source ports per (source, destination) pair).
    EcmpHashing ecmp = EcmpHashing::Ours;
    // --hpcc-rate-change=keep|shift: when HPCC changes a QP's rate, its next send keeps the time the last
    // frame set (ours), or moves by that frame's serialization at the new rate minus at the old (the
    // reference's).
    bool hpccShiftPacing = false;
    // --nic-arbitration=ours|hpcc: a NIC port's next QP from a round robin over those that may send
    // (ours), or by the reference's scan of every QP in opening order (roce-nic.h NicArbitration).
    bool referenceNicArbitration = false;
    // --int-fields=exact|hpcc: HPCC's INT records at full width (ours), or in the reference's units: bytes
    // in 128 x INT_MULTI B, queue in 80 x INT_MULTI B, truncated (SwitchSettings::intFieldMulti).
    bool referenceIntFields = false;
    // --ecn-draws=ours|hpcc: each switch draws its ECN marks from its own random variable (ours), or all
    // draw as the reference does, one fresh ns-3 stream per decision in its numbering (FreshStreamDraws).
    bool referenceEcnDraws = false;
    // --mmu=ours|hpcc: our switch buffer (headroom for a round trip and two frames, a reserve per priority),
    // or the reference's (headroom 3 x rate x delay, its reserve and headroom accounting; FabricSettings).
    bool referenceMmu = false;
    // --pfc-pause=quanta|hpcc: 802.1Qbb pause times renewed while congested, or the reference's pause that
    // holds until the resume.
    bool referencePfc = false;
    // --ack-class=ours|hpcc: ACK_HIGH_PRIO puts ACKs in class 0 at NICs and switches (ours), or at NICs
    // only, the switches queueing them with their data (the reference's; NicSettings::ackClassFromData).
    bool referenceAckClass = false;
    // --retransmit=timeout|hpcc: go-back-N on a NAK or after a timeout without progress (ours), or on a NAK
    // only (the reference has no timeout: a lost tail packet stalls its flow, and the run's hang check
    // reports it).
    bool referenceRetransmit = false;
    // --delivery=arrival|ack: a message's receive completes when its last byte arrives in order at the
    // destination NIC (ours: an RDMA write's receiver learns of it from its own completion), or when the
    // sender's QP completes on the last ACK, sender first (ASTRA-sim's ns-3 frontend). A bridge rule: the
    // tools give it to RoceNetworkApi, not the fabric.
    bool deliveryAtAck = false;

    static ModelRules HpccCompatible();
    static ModelRules AstraNs3Compatible();
    // The rules the fabric applies: framing, ECMP, pacing shifts, NIC arbitration, INT fields, ECN draws,
    // the buffer, PFC, the ACKs' class and retransmission. (The HPCC
    // queue term goes to selectCongestionControl, the flow starts to loadFlowFile and the flow runner.)
    void ApplyTo(FabricSettings& settings, CcAlgorithm algorithm) const;
};

// The tools' options for the rules (AddModelRuleOptions). `compat` ("",
// "none", "hpcc" or "astra-ns3") is applied first, then each rule given on its own ("" leaves it). Returns
// false with a usage message naming the option and its values.
struct ModelRuleOptions {
    std::string compat, framing, hpccQueue, flowStarts, ecmp, hpccRateChange, nicArbitration, intFields,
        ecnDraws, mmu, pfcPause, ackClass, retransmit, delivery;
};
// Every option by its name (as on the command line without "--", and as a description's key), compat first:
// the one list the description reader and the merge walk.
struct ModelRuleField {
    const char* name;
    std::string ModelRuleOptions::*field;
};
const std::vector<ModelRuleField>& modelRuleFields();
// What was wrong: the option (as on the command line, without "--"; a description's key) and why.
struct ModelRuleError {
    std::string option, why;
    std::string message() const { return "--" + option + " " + why; }
};
// Sets `rules` from the defaults and `options`.
bool parseModelRules(const ModelRuleOptions& options, ModelRules& rules, ModelRuleError& error);
// `over` applied on top of `base` (a network description's rules under the command line's): each option given
// in `over` replaces base's; a given compat replaces base's compat and every rule base set on its own.
ModelRuleOptions mergeModelRuleOptions(const ModelRuleOptions& base, const ModelRuleOptions& over);
// Registers --compat, --framing, --hpcc-queue, --flow-starts, --ecmp, --hpcc-rate-change,
// --nic-arbitration, --int-fields, --ecn-draws, --mmu, --pfc-pause, --ack-class, --retransmit and --delivery.
void AddModelRuleOptions(ToolCommandLine& tool, ns3::CommandLine& cmd, ModelRuleOptions& options);
// One line naming every rule's choice, for the tools' output.
std::string describeModelRules(const ModelRules& rules);

}  // namespace mlnet::roce

#endif

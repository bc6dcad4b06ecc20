#include "model-rules.h"

#include "fabric-settings.h"

namespace mlnet::roce {

ModelRules ModelRules::HpccCompatible() {
    ModelRules r;
    r.framing = Framing::Hpcc;
    r.hpccMeanQueue = false;
    r.referenceFlowStarts = true;
    r.ecmp = EcmpHashing::HpccReference;
    r.hpccShiftPacing = true;
    r.referenceNicArbitration = true;
    r.referenceIntFields = true;
    r.referenceEcnDraws = true;
    r.referenceMmu = true;
    r.referencePfc = true;
    r.referenceAckClass = true;
    r.referenceRetransmit = true;
    return r;
}

ModelRules ModelRules::AstraNs3Compatible() {
    ModelRules r = HpccCompatible();
    r.framing = Framing::AstraNs3;
    r.deliveryAtAck = true;
    return r;
}

void ModelRules::ApplyTo(FabricSettings& settings, CcAlgorithm algorithm) const {
    settings.nic.frames.framing = framing;
    settings.ecmp = ecmp;
    // The reference: HPCC only.
    settings.nic.shiftPacingOnRateChange = hpccShiftPacing && algorithm == CcAlgorithm::Hpcc;
    settings.nic.arbitration = referenceNicArbitration ? NicArbitration::ScanAll : NicArbitration::ReadyRing;
    settings.switches.intFieldMulti = referenceIntFields ? settings.intMulti : 0;
    settings.referenceMarkingDraws = referenceEcnDraws;
    settings.referenceMmu = referenceMmu;
    settings.referencePfc = referencePfc;
    settings.nic.ackClassFromData = referenceAckClass;
    if (referenceRetransmit) {
        settings.nic.rtoPs = 0;
    }
}

void AddModelRuleOptions(ToolCommandLine& tool, ns3::CommandLine& cmd, ModelRuleOptions& o) {
    tool.AddText(
        cmd, "compat",
        "none (default), hpcc (the HPCC reference simulator's side of every rule below) or astra-ns3 "
        "(ASTRA-sim's ns-3 backend's: hpcc's with framing astra-ns3 and delivery ack)",
        o.compat);
    tool.AddText(cmd, "framing",
                 "rocev2 (real frames, default), hpcc (the reference's packet sizes, no IFG, times truncated "
                 "to the ns) or astra-ns3 (ASTRA-sim's ns-3 backend's: a 2-byte L2 header, times rounded)",
                 o.framing);
    tool.AddText(cmd, "hpcc-queue",
                 "HPCC's queue term: mean (interval mean, default) or point (the reference's)", o.hpccQueue);
    tool.AddText(cmd, "flow-starts",
                 "exact (default) or reference (flow-file seconds through a double, truncated to the ns)",
                 o.flowStarts);
    tool.AddText(cmd, "ecmp",
                 "ours (default) or hpcc (the reference's ECMP hash, next-hop order, source ports)", o.ecmp);
    tool.AddText(cmd, "hpcc-rate-change",
                 "keep (default) or shift (the reference: an HPCC rate change moves the pending send time)",
                 o.hpccRateChange);
    tool.AddText(
        cmd, "nic-arbitration",
        "ours (default: round robin over the QPs that may send) or hpcc (the reference's scan of every QP "
        "in opening order)",
        o.nicArbitration);
    tool.AddText(
        cmd, "int-fields",
        "exact (default: full-width INT records) or hpcc (the reference's units: bytes in 128 B, queue "
        "in 80 B, times INT_MULTI)",
        o.intFields);
    tool.AddText(cmd, "ecn-draws",
                 "ours (default: each switch its own random variable) or hpcc (the reference's: a fresh ns-3 "
                 "stream per marking decision, numbered as it numbers them)",
                 o.ecnDraws);
    tool.AddText(
        cmd, "mmu",
        "ours (default) or hpcc (the reference's switch buffer: headroom 3 x rate x delay, its reserve "
        "and headroom accounting)",
        o.mmu);
    tool.AddText(
        cmd, "pfc-pause",
        "quanta (default: 802.1Qbb pause times, renewed while congested) or hpcc (a pause holds until "
        "its resume)",
        o.pfcPause);
    tool.AddText(
        cmd, "ack-class",
        "ours (default: ACK_HIGH_PRIO's class 0 at NICs and switches) or hpcc (at NICs only; switches "
        "queue ACKs with their data)",
        o.ackClass);
    tool.AddText(cmd, "retransmit",
                 "timeout (default: go-back-N on a NAK or after --rto-us without progress) or hpcc (on a NAK "
                 "only, as the reference)",
                 o.retransmit);
    tool.AddText(cmd, "delivery",
                 "arrival (default: a receive completes when the last byte is in) or ack (when the sender's "
                 "last ACK is back, as ASTRA-sim's ns-3 frontend)",
                 o.delivery);
}

namespace {

constexpr struct {
    const char* name;
    Framing framing;
} kFramings[] = {{"rocev2", Framing::RoceV2}, {"hpcc", Framing::Hpcc}, {"astra-ns3", Framing::AstraNs3}};

bool framingFromName(const std::string& name, Framing& framing) {
    for (const auto& f : kFramings) {
        if (name == f.name) {
            framing = f.framing;
            return true;
        }
    }
    return false;
}

const char* framingName(Framing framing) {
    for (const auto& f : kFramings) {
        if (framing == f.framing) {
            return f.name;
        }
    }
    return "?";
}

// Sets `value` from `text` when text is one of the two names; "" keeps it.
bool pick(const char* option, const std::string& text, const char* ours, const char* reference,
          bool& isReference, ModelRuleError& error) {
    if (text.empty()) {
        return true;
    }
    if (text != ours && text != reference) {
        error = {option, std::string("must be ") + ours + " or " + reference + ", not '" + text + "'"};
        return false;
    }
    isReference = text == reference;
    return true;
}

}  // namespace

bool parseModelRules(const ModelRuleOptions& o, ModelRules& rules, ModelRuleError& error) {
    rules = ModelRules{};
    if (o.compat == "hpcc") {
        rules = ModelRules::HpccCompatible();
    } else if (o.compat == "astra-ns3") {
        rules = ModelRules::AstraNs3Compatible();
    } else if (!o.compat.empty() && o.compat != "none") {
        error = {"compat", "must be none, hpcc or astra-ns3, not '" + o.compat + "'"};
        return false;
    }
    if (!o.framing.empty()) {
        if (!framingFromName(o.framing, rules.framing)) {
            error = {"framing", "must be rocev2, hpcc or astra-ns3, not '" + o.framing + "'"};
            return false;
        }
    }
    bool pointQueue = !rules.hpccMeanQueue;
    bool referenceEcmp = rules.ecmp == EcmpHashing::HpccReference;
    bool shift = rules.hpccShiftPacing;
    if (!pick("hpcc-queue", o.hpccQueue, "mean", "point", pointQueue, error) ||
        !pick("flow-starts", o.flowStarts, "exact", "reference", rules.referenceFlowStarts, error) ||
        !pick("ecmp", o.ecmp, "ours", "hpcc", referenceEcmp, error) ||
        !pick("hpcc-rate-change", o.hpccRateChange, "keep", "shift", shift, error) ||
        !pick("nic-arbitration", o.nicArbitration, "ours", "hpcc", rules.referenceNicArbitration, error) ||
        !pick("int-fields", o.intFields, "exact", "hpcc", rules.referenceIntFields, error) ||
        !pick("ecn-draws", o.ecnDraws, "ours", "hpcc", rules.referenceEcnDraws, error) ||
        !pick("mmu", o.mmu, "ours", "hpcc", rules.referenceMmu, error) ||
        !pick("pfc-pause", o.pfcPause, "quanta", "hpcc", rules.referencePfc, error) ||
        !pick("ack-class", o.ackClass, "ours", "hpcc", rules.referenceAckClass, error) ||
        !pick("retransmit", o.retransmit, "timeout", "hpcc", rules.referenceRetransmit, error) ||
        !pick("delivery", o.delivery, "arrival", "ack", rules.deliveryAtAck, error)) {
        return false;
    }
    rules.hpccMeanQueue = !pointQueue;
    rules.ecmp = referenceEcmp ? EcmpHashing::HpccReference : EcmpHashing::Ours;
    rules.hpccShiftPacing = shift;
    return true;
}

const std::vector<ModelRuleField>& modelRuleFields() {
    using O = ModelRuleOptions;
    static const std::vector<ModelRuleField> fields = {
        {"compat", &O::compat},
        {"framing", &O::framing},
        {"hpcc-queue", &O::hpccQueue},
        {"flow-starts", &O::flowStarts},
        {"ecmp", &O::ecmp},
        {"hpcc-rate-change", &O::hpccRateChange},
        {"nic-arbitration", &O::nicArbitration},
        {"int-fields", &O::intFields},
        {"ecn-draws", &O::ecnDraws},
        {"mmu", &O::mmu},
        {"pfc-pause", &O::pfcPause},
        {"ack-class", &O::ackClass},
        {"retransmit", &O::retransmit},
        {"delivery", &O::delivery},
    };
    return fields;
}

ModelRuleOptions mergeModelRuleOptions(const ModelRuleOptions& base, const ModelRuleOptions& over) {
    ModelRuleOptions m;
    if (over.compat.empty()) {
        m = base;
    } else {
        m.compat = over.compat;  // a given compat replaces base's compat and every rule base set alone
    }
    for (const ModelRuleField& f : modelRuleFields()) {
        if (f.field != &ModelRuleOptions::compat && !(over.*f.field).empty()) {
            m.*f.field = over.*f.field;
        }
    }
    return m;
}

std::string describeModelRules(const ModelRules& r) {
    return std::string("framing ") + framingName(r.framing) + ", HPCC queue " +
           (r.hpccMeanQueue ? "mean" : "point") + ", flow starts " +
           (r.referenceFlowStarts ? "reference" : "exact") + ", ECMP " +
           (r.ecmp == EcmpHashing::HpccReference ? "hpcc" : "ours") + ", HPCC rate change " +
           (r.hpccShiftPacing ? "shift" : "keep") + ", NIC arbitration " +
           (r.referenceNicArbitration ? "hpcc" : "ours") + ", INT fields " +
           (r.referenceIntFields ? "hpcc" : "exact") + ", ECN draws " +
           (r.referenceEcnDraws ? "hpcc" : "ours") + ", MMU " + (r.referenceMmu ? "hpcc" : "ours") +
           ", PFC pause " + (r.referencePfc ? "hpcc" : "quanta") + ", ACK class " +
           (r.referenceAckClass ? "hpcc" : "ours") + ", retransmit " +
           (r.referenceRetransmit ? "hpcc" : "timeout") + ", delivery " +
           (r.deliveryAtAck ? "ack" : "arrival");
}

}  // namespace mlnet::roce

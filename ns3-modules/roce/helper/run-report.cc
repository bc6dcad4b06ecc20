#include "run-report.h"

#include <algorithm>
#include <cmath>

#include "result-writers.h"
#include "roce-timing.h"
#include "util/atomic-file.h"

namespace mlnet::roce {

NetworkTotals networkTotals(const RoceFabric& fabric) {
    NetworkTotals t;
    const TopologySpec& spec = fabric.Spec();
    t.drops = fabric.TotalDrops();
    t.dataPacketHops = fabric.DataPacketHops();
    t.deliveredBytes = fabric.DeliveredBytes();
    t.pauseFrames = fabric.PauseFramesReceived();
    for (uint32_t h = 0; h < fabric.NumHosts(); ++h) {
        const RoceNic& nic = fabric.Nic(h);
        t.cnps += nic.CnpsSent();
        t.nacks += nic.NacksSent();
        t.timeouts += nic.Timeouts();
        t.retransmittedBytes += nic.RetransmittedBytes();
        for (uint32_t p = 0; p < nic.NumPorts(); ++p) {
            t.pausedPs += nic.Device(p)->PausedPs();
        }
    }
    std::map<std::string, QueueHistogram> histograms;
    for (const auto& sw : fabric.Switches()) {
        t.ecnMarks += sw->EcnMarks();
        const SwitchMmu& mmu = sw->Mmu();
        if (mmu.peakBytes() > mmu.config().bufferBytes) {
            ++t.overfullSwitches;
            const uint64_t excess = mmu.peakBytes() - mmu.config().bufferBytes;
            if (excess > t.worstOverfillBytes) {
                t.worstOverfillBytes = excess;
                t.worstOverfillNode = sw->NodeId();
            }
        }
        const bool npu = sw->Vertex() < spec.numHosts();
        const std::string tier = npu ? "npu" : spec.tierName(sw->Vertex());
        TierQueues& q = t.tiers[tier];
        for (uint32_t p = 0; p < sw->NumPorts(); ++p) {
            if (!npu) {
                t.pausedPs += sw->PortDevice(p)->PausedPs();  // an NPU's ports are its NIC's, counted above
            }
            ++q.ports;
            q.maxBytes = std::max(q.maxBytes, sw->MaxQueueBytes(p));
            const QueueHistogram queue = sw->QueueTime(p);
            histograms[tier].Merge(queue);
            const double mean = queue.MeanBytes();
            if (!npu && mean > 0 && (!t.busiest || mean > t.busiest->meanQueueBytes)) {
                const uint32_t peer = spec.portPeer(sw->Vertex(), p);
                t.busiest = BusiestPort{sw->NodeId(),
                                        p,
                                        spec.vertices[peer].originalId,
                                        tier,
                                        spec.tierName(peer),
                                        sw->PortDevice(p)->RateBps(),
                                        mean,
                                        std::min(queue.QuantileBytes(0.99), sw->MaxQueueBytes(p)),
                                        sw->MaxQueueBytes(p),
                                        sw->PortDevice(p)->PausedPs()};
            }
        }
    }
    if (const FastForwardStats* ff = fabric.FastForwardResult()) {
        // What accrued in skipped time, at the steady rates that allowed the skip.
        t.ecnMarks += static_cast<uint64_t>(std::llround(ff->ecnMarks));
        t.cnps += static_cast<uint64_t>(std::llround(ff->cnps));
        t.pauseFrames += static_cast<uint64_t>(std::llround(ff->pauseFrames));
        t.pausedPs += static_cast<TimePs>(std::llround(ff->pausedPs));
        t.dataPacketHops += static_cast<uint64_t>(std::llround(ff->dataPacketHops));
    }
    if (const EpisodeMemoStats* memo = fabric.EpisodeMemoResult()) {
        t.dataPacketHops += memo->replayedPacketHops;
    }
    if (const UncontendedFluid* fluid = fabric.UncontendedModel()) {
        t.dataPacketHops += fluid->Stats().packetHops;
    }
    for (auto& [tier, q] : t.tiers) {
        // A bucket's upper bound can exceed the largest queue seen; the percentile cannot.
        q.p99Bytes = std::min(histograms[tier].QuantileBytes(0.99), q.maxBytes);
    }
    return t;
}

void warnOverfullBuffers(const NetworkTotals& t, Diagnostics& diag) {
    if (t.overfullSwitches == 0) {
        return;
    }
    diag.warning(std::to_string(t.overfullSwitches) +
                 (t.overfullSwitches == 1 ? " switch held more than its buffer"
                                          : " switches held more than their buffers") +
                 " (node " + std::to_string(t.worstOverfillNode) + " by " +
                 std::to_string(t.worstOverfillBytes) +
                 " bytes): several lossless classes of one port were in their PFC headroom at once, and the "
                 "buffer sets aside one headroom per port, as the reference does; give the switches more "
                 "buffer or the traffic fewer classes");
}

nlohmann::ordered_json toJson(const NetworkTotals& t) {
    nlohmann::ordered_json j;
    j["drops"] = t.drops;
    j["pause_frames"] = t.pauseFrames;
    j["paused_ns"] = psToNs(t.pausedPs);
    j["ecn_marks"] = t.ecnMarks;
    j["cnps"] = t.cnps;
    j["nacks"] = t.nacks;
    j["timeouts"] = t.timeouts;
    j["retransmitted_bytes"] = t.retransmittedBytes;
    j["delivered_bytes"] = t.deliveredBytes;
    j["data_packet_hops"] = t.dataPacketHops;
    j["overfull_switches"] = t.overfullSwitches;
    j["worst_overfill_bytes"] = t.worstOverfillBytes;
    nlohmann::ordered_json tiers = nlohmann::ordered_json::object();
    for (const auto& [tier, q] : t.tiers) {
        tiers[tier] = {{"ports", q.ports}, {"max_queue_bytes", q.maxBytes}, {"p99_queue_bytes", q.p99Bytes}};
    }
    j["queues_per_tier"] = tiers;
    if (t.busiest) {
        const BusiestPort& b = *t.busiest;
        j["busiest_port"] = {{"node", b.nodeId},
                             {"port", b.port},
                             {"tier", b.tier},
                             {"to_node", b.peerNodeId},
                             {"to_tier", b.peerTier},
                             {"rate_bps", b.rateBps},
                             {"mean_queue_bytes", static_cast<uint64_t>(b.meanQueueBytes)},
                             {"p99_queue_bytes", b.p99QueueBytes},
                             {"max_queue_bytes", b.maxQueueBytes},
                             {"paused_ns", psToNs(b.pausedPs)}};
    }
    return j;
}

nlohmann::ordered_json switchesJson(const RoceFabric& fabric) {
    nlohmann::ordered_json switches = nlohmann::ordered_json::array();
    for (const auto& sw : fabric.Switches()) {
        nlohmann::ordered_json ports = nlohmann::ordered_json::array();
        for (uint32_t p = 0; p < sw->NumPorts(); ++p) {
            ports.push_back(
                {{"tx_bytes", sw->PortDevice(p)->TxBytes()}, {"max_queue_bytes", sw->MaxQueueBytes(p)}});
        }
        switches.push_back({{"node", sw->NodeId()},
                            {"drops", sw->Drops()},
                            {"ecn_marks", sw->EcnMarks()},
                            {"pauses_sent", sw->PausesSent()},
                            {"peak_buffer_bytes", sw->Mmu().peakBytes()},
                            {"buffer_bytes", sw->Mmu().config().bufferBytes},
                            {"ports", ports}});
    }
    return switches;
}

MonitorFiles::MonitorFiles(RoceFabric& fabric, const std::string& pfcPath, const std::string& queuePath,
                           Diagnostics& diag) {
    if (!pfcPath.empty()) {
        m_pfc = std::make_unique<PfcStream>(pfcPath, diag);
        fabric.SetPfcSink([this](const PfcEvent& e) {
            // The reference's ifindex: device 0 of each node is its loopback, the links count from 1.
            m_pfc->add(
                {psToNs(e.timePs), e.nodeId, static_cast<uint8_t>(e.isSwitch ? 1 : 0), e.port + 1, e.pause});
        });
    }
    if (!queuePath.empty()) {
        m_queues = std::make_unique<QueueSampleStream>(queuePath, diag);
        for (const auto& sw : fabric.Switches()) {
            sw->TraceConnectWithoutContext("QueueSample",
                                           ns3::MakeCallback(&MonitorFiles::AddQueueSample, this));
        }
    }
}

void MonitorFiles::AddQueueSample(uint32_t nodeId, uint32_t port, uint64_t bytes) {
    m_queues->add({psToNs(simNowPs()), nodeId, port, bytes});
}

bool MonitorFiles::commit() {
    bool ok = true;
    if (m_pfc) {
        ok = m_pfc->commit() && ok;
    }
    if (m_queues) {
        ok = m_queues->commit() && ok;
    }
    return ok;
}

}  // namespace mlnet::roce

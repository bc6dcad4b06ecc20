#include "training-report.h"

#include "system/collective-report.h"

#include <cstdio>
#include <filesystem>
#include <map>

#include "result-writers.h"
#include "util/process-usage.h"

namespace mlnet::roce {

namespace {

namespace fs = std::filesystem;

double bottleneckBytesPerNs(const TopologySpec& spec) {
    uint64_t slowest = UINT64_MAX;
    for (const SpecCable& c : spec.cables) {
        slowest = std::min(slowest, c.rateBps);
    }
    return static_cast<double>(slowest) / 8e9;
}

}  // namespace

bool prepareTraining(const TraceSet& traces, const TopologySpec& spec,
                     const std::optional<std::vector<uint32_t>>& logicalDims, TrainingSetup& setup,
                     Diagnostics& diag) {
    const uint32_t ranks = traces.numRanks();
    if (ranks > spec.numRanks()) {
        diag.error(spec.source + ": the network has " + std::to_string(spec.numRanks()) +
                   " hosts but the trace " + traces.prefix + " has " + std::to_string(ranks) +
                   " ranks; every rank needs a host");
        return false;
    }
    if (ranks == spec.numRanks()) {
        setup.topology = std::make_shared<const TopologySpec>(spec);
    } else {
        TopologySpec used = spec;
        used.rankToHost.resize(ranks);
        for (uint32_t r = 0; r < ranks; ++r) {
            used.rankToHost[r] = spec.hostOfRank(r);
        }
        setup.topology = std::make_shared<const TopologySpec>(std::move(used));
    }
    const double bandwidth = bottleneckBytesPerNs(spec);
    if (logicalDims) {
        uint64_t npus = 1;
        for (uint32_t d : *logicalDims) {
            npus *= d;
            setup.logical.dimSizes.push_back(d);
            setup.logical.dimBandwidthBytesPerNs.push_back(bandwidth);
        }
        if (npus != ranks) {
            diag.error("the logical topology has " + std::to_string(npus) + " NPUs but the trace " +
                       traces.prefix + " has " + std::to_string(ranks) + " ranks; they must be equal");
            return false;
        }
    } else if (spec.isMultiDimensional() && ranks == spec.numHosts()) {
        for (const Dimension& d : spec.dimensions) {
            setup.logical.dimSizes.push_back(d.npus);
            setup.logical.dimBandwidthBytesPerNs.push_back(d.bandwidthBytesPerNs);
        }
    } else {
        setup.logical.dimSizes = {ranks};
        setup.logical.dimBandwidthBytesPerNs = {bandwidth};
    }
    return true;
}

OutputPaths outputPaths(const std::string& dir, const PacketModelSettings& settings, Diagnostics& diag) {
    OutputPaths out;
    const bool hpccPaths = dir.empty() && !settings.fctPath.empty();
    const fs::path base = dir.empty()
                              ? (hpccPaths ? fs::path(settings.fctPath).parent_path() : "mlnet-ns3-output")
                              : fs::path(dir);
    std::error_code error;
    if (!base.empty()) {
        fs::create_directories(base, error);
        if (error || !fs::is_directory(base)) {
            diag.error("output directory '" + base.string() + "' cannot be created: " + error.message());
            return out;
        }
    }
    auto at = [&](const std::string& own, const char* name) {
        return hpccPaths && !own.empty() ? own : (base / name).string();
    };
    out.summary = (base / "summary.json").string();
    out.fct = at(settings.fctPath, "fct.txt");
    out.pfc = at(settings.pfcPath, "pfc.txt");
    out.queues = settings.queuePath.empty() ? "" : at(settings.queuePath, "qlen.txt");
    out.timeline = settings.timeline ? (base / "timeline.json").string() : "";
    for (const char* name : {"summary.json", "fct.txt", "pfc.txt", "qlen.txt", "timeline.json"}) {
        const std::string path = (base / name).string();
        if (path != out.summary && path != out.fct && path != out.pfc && path != out.queues &&
            path != out.timeline && fs::is_regular_file(path, error)) {
            out.stale.push_back(path);
        }
    }
    return out;
}

void removeStaleOutputs(const OutputPaths& out, Diagnostics& diag) {
    for (const std::string& path : out.stale) {
        std::error_code error;
        if (!fs::remove(path, error) && error) {
            diag.error(path +
                       ": an earlier run's output, which this run does not replace, cannot be removed: " +
                       error.message());
        }
    }
}

std::optional<AnalyticalComparison> compareAnalytical(const TraceSet& traces, const SystemConfig& system,
                                                      const RemoteMemoryConfig& memory,
                                                      SimulationOptions options, const TrainingSetup& setup,
                                                      Diagnostics& diag) {
    options.model = NetworkModel::CongestionAware;
    const Topology topology = Topology::fromSpec(setup.topology);
    options.physical = setup.topology.get();
    const SimulationOutcome outcome =
        simulate(traces, system, topology, memory, options, diag, &setup.logical);
    if (diag.hasErrors()) {
        return std::nullopt;
    }
    AnalyticalComparison c;
    c.completed = outcome.completed;
    c.iterationNs = iterationTimeNs(outcome);
    c.collectives = outcome.collectives;
    return c;
}

TimeNs iterationTimeNs(const SimulationOutcome& outcome) {
    TimeNs latest = 0;
    for (const auto& r : outcome.ranks) {
        latest = std::max(latest, r.finishNs);
    }
    return latest;
}

void printResultLines(const SimulationOutcome& outcome) {
    for (std::size_t r = 0; r < outcome.ranks.size(); ++r) {
        const auto& rr = outcome.ranks[r];
        if (rr.finished) {
            std::printf(
                "sys[%zu] finished, %llu cycles, exposed communication %llu cycles.\n", r,
                static_cast<unsigned long long>(rr.finishNs),
                static_cast<unsigned long long>(rr.finishNs - std::min(rr.finishNs, rr.gpuComputeNs)));
        }
    }
}

bool writeSummary(const std::string& path, const RunInputs& inputs, const TrainingRun& run,
                  Diagnostics& diag) {
    const TopologySpec& spec = *inputs.setup.topology;
    const SimulationOutcome& o = run.outcome;
    nlohmann::ordered_json j;
    j["completed"] = o.completed;
    j["iteration_time_ns"] = iterationTimeNs(o);
    j["end_ns"] = o.endNs;
    j["inputs"] = {{"workload", inputs.workload},     {"system", inputs.system},
                   {"network", inputs.network},       {"network_form", inputs.form},
                   {"topology", spec.source},         {"hosts", spec.numHosts()},
                   {"switches", spec.numSwitches()},  {"links", spec.cables.size()},
                   {"ranks", o.ranks.size()},         {"logical_dimensions", inputs.setup.logical.dimSizes},
                   {"congestion_control", inputs.cc}, {"cc_preset", inputs.ccPreset},
                   {"model_rules", inputs.modelRules}};
    if (inputs.linkDelayOffsetPs > 0) {
        j["inputs"]["link_delay_offset_ps"] = inputs.linkDelayOffsetPs;
    }
    nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
    for (std::size_t r = 0; r < o.ranks.size(); ++r) {
        const auto& rr = o.ranks[r];
        ranks.push_back(
            {{"rank", r},
             {"host", inputs.fabric.NodeIdOfHost(spec.hostOfRank(static_cast<uint32_t>(r)))},
             {"finished", rr.finished},
             {"finish_ns", rr.finishNs},
             {"gpu_compute_ns", rr.gpuComputeNs},
             {"exposed_comm_ns", rr.finished ? rr.finishNs - std::min(rr.finishNs, rr.gpuComputeNs) : 0}});
    }
    j["ranks"] = ranks;
    j["collectives"] = collectivesPlaceholder();
    nlohmann::ordered_json net = toJson(run.network);
    net["messages"] = run.messagesSent;
    net["message_bytes"] = run.bytesSent;
    net["messages_delivered"] = o.messages;
    net["peak_message_records"] = run.peakMessageRecords;
    j["network"] = net;
    addInNetworkReduction(j, o.inNetworkReduction.reductions, o.inNetworkReduction.bytesIn,
                          o.inNetworkReduction.bytesOut);
    if (const FastForwardStats* ff = inputs.fabric.FastForwardResult()) {
        nlohmann::ordered_json f;
        f["jumps"] = ff->jumps;
        f["jumps_cut_short"] = ff->cutShort;
        f["skipped_ns"] = psToNs(ff->skippedPs);
        const TimeNs iteration = iterationTimeNs(o);
        f["skipped_fraction_of_iteration"] =
            iteration ? static_cast<double>(psToNs(ff->skippedPs)) / static_cast<double>(iteration) : 0.0;
        f["skipped_message_bytes"] = ff->skippedBytes;
        // Included in "network" above: accrued in the skipped time at the steady rates that allowed it.
        f["extrapolated"] = {{"ecn_marks", std::llround(ff->ecnMarks)},
                             {"cnps", std::llround(ff->cnps)},
                             {"pause_frames", std::llround(ff->pauseFrames)},
                             {"paused_ns", std::llround(ff->pausedPs / 1000.0)},
                             {"data_packet_hops", std::llround(ff->dataPacketHops)}};
        j["fast_forward"] = f;
    }
    if (const EpisodeMemoStats* memo = inputs.fabric.EpisodeMemoResult()) {
        nlohmann::ordered_json e;
        e["episodes"] = memo->episodes;
        e["recorded"] = memo->recorded;
        e["replayed"] = memo->replayed;
        e["diverged"] = memo->diverged;
        e["replayed_messages"] = memo->replayedMessages;
        e["replayed_message_bytes"] = memo->replayedBytes;
        e["resumed_messages"] = memo->resumedMessages;
        // Summed over replayed episodes, which may run at the same time: not a fraction of the iteration.
        e["replayed_episode_ns"] = psToNs(memo->replayedPs);
        // Included in "network" above: the replayed messages' packets over their paths (no ECN mark, CNP or
        // pause: only clean episodes are recorded).
        e["extrapolated"] = {{"data_packet_hops", memo->replayedPacketHops}};
        j["episode_memo"] = e;
    }
    if (const UncontendedFluid* fluid = inputs.fabric.UncontendedModel()) {
        const UncontendedFluidStats u = fluid->Stats();
        // Messages alone on their path, carried as fluid flows at their line rate (or at the rate their
        // congestion control sets, steered_acks > 0): no packet, mark or pause stands for their fluid part
        // (their packet-hops are included in "network" above).
        j["uncontended_fluid"] = {{"messages", u.messages},
                                  {"message_bytes", u.bytes},
                                  {"converted_to_packets", u.converted},
                                  {"converted_held_downstream", u.heldDownstream},
                                  {"converted_bytes_left", u.convertedBytes},
                                  {"packet_level_messages", u.packetMessages},
                                  {"rate_passes", u.ratePasses},
                                  {"steered_acks", u.steeredAcks},
                                  {"steered_rate_changes", u.steeredRateChanges},
                                  {"extrapolated", {{"data_packet_hops", u.packetHops}}}};
    }
    if (const ScaleUpFluid* scaleUp = inputs.fabric.ScaleUpModel()) {
        const ScaleUpStats s = scaleUp->Stats();
        // Messages inside scale-up domains, carried as NVLink flows: no packet, mark or pause stands for
        // them.
        j["scale_up"] = {{"model", "fluid"},
                         {"messages", s.messages},
                         {"message_bytes", s.bytes},
                         {"rate_passes", s.ratePasses},
                         {"largest_sharing_flows", s.largestSharingFlows}};
    }
    if (const auto& memo = o.collectiveMemo) {
        // Included in "network" and "scale_up" above (not in fct.txt or the timeline's messages): the
        // replayed collectives' messages, as their recordings sent them.
        j["collective_memo"] = {{"candidates", memo->candidates},
                                {"recorded", memo->recorded},
                                {"confirmed", memo->confirmed},
                                {"mismatched", memo->mismatched},
                                {"discarded", memo->discarded},
                                {"replayed", memo->replayed},
                                {"interfered", memo->interfered},
                                {"replayed_messages", memo->replayedMessages},
                                {"replayed_message_bytes", memo->replayedBytes},
                                {"outcomes", memo->outcomes}};
    }
    if (!run.background.is_null()) {
        j["background"] = run.background;
    }
    if (run.analytical) {
        const auto& a = *run.analytical;
        nlohmann::ordered_json cmp;
        cmp["model"] = "congestion-aware analytical, nominal link rates";
        cmp["completed"] = a.completed;
        cmp["iteration_time_ns"] = a.iterationNs;
        cmp["packet_over_analytical"] =
            a.iterationNs ? static_cast<double>(iterationTimeNs(o)) / static_cast<double>(a.iterationNs)
                          : 0.0;
        nlohmann::ordered_json per = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i < a.collectives.size() && i < o.collectives.size(); ++i) {
            const auto& p = o.collectives[i];
            const auto& q = a.collectives[i];
            const double packetNs = static_cast<double>(p.endNs - p.startNs);
            const double analyticalNs = static_cast<double>(q.endNs - q.startNs);
            per.push_back({{"rank", p.rank},
                           {"node", p.nodeId},
                           {"type", std::string(toString(p.type))},
                           {"packet_ns", p.endNs - p.startNs},
                           {"analytical_ns", q.endNs - q.startNs},
                           {"packet_over_analytical", analyticalNs > 0 ? packetNs / analyticalNs : 0.0}});
        }
        cmp["collectives"] = per;
        j["analytical"] = cmp;
    }
    const double cpu = std::max(run.cpuSeconds, 1e-9);
    j["cost"] = {{"cpu_seconds", run.cpuSeconds},
                 {"wall_seconds", run.wallSeconds},
                 {"events", o.events},
                 {"events_per_cpu_second", static_cast<double>(o.events) / cpu},
                 {"data_packet_hops_per_cpu_second", static_cast<double>(run.network.dataPacketHops) / cpu},
                 {"peak_rss_mb", peakResidentMb()}};
    if (run.timelineMessagesLeftOut) {
        j["timeline_messages_left_out"] = run.timelineMessagesLeftOut;
    }
    if (!o.completed) {
        j["stopped_because"] = run.timeLimited ? "the time limit" : run.hangReport;
        j["stall_report"] = o.stallReport;
    }
    return writeJsonAtomically(path, dumpReport(j, o.collectives), diag);
}

void printNetworkSummary(const TrainingRun& run, const std::string& cc, const std::string& summaryPath) {
    const NetworkTotals& n = run.network;
    std::printf("iteration time: %llu ns (%s), %llu messages, %.3f GB\n",
                static_cast<unsigned long long>(iterationTimeNs(run.outcome)), cc.c_str(),
                static_cast<unsigned long long>(run.messagesSent), static_cast<double>(run.bytesSent) / 1e9);
    std::printf(
        "network: drops %llu, PFC pauses %llu (%.3f ms paused over all ports), ECN marks %llu, CNPs %llu, "
        "retransmitted %llu B\n",
        static_cast<unsigned long long>(n.drops), static_cast<unsigned long long>(n.pauseFrames),
        static_cast<double>(n.pausedPs) / 1e9, static_cast<unsigned long long>(n.ecnMarks),
        static_cast<unsigned long long>(n.cnps), static_cast<unsigned long long>(n.retransmittedBytes));
    for (const auto& [tier, q] : n.tiers) {
        std::printf("  %s queues: max %llu B, p99 %llu B over %llu ports\n", tier.c_str(),
                    static_cast<unsigned long long>(q.maxBytes), static_cast<unsigned long long>(q.p99Bytes),
                    static_cast<unsigned long long>(q.ports));
    }
    if (n.busiest) {
        const BusiestPort& b = *n.busiest;
        std::printf(
            "  busiest port: %s %u port %u -> %s %u: mean queue %.0f B, p99 %llu B, max %llu B, paused "
            "%.3f ms\n",
            b.tier.c_str(), b.nodeId, b.port, b.peerTier.c_str(), b.peerNodeId, b.meanQueueBytes,
            static_cast<unsigned long long>(b.p99QueueBytes),
            static_cast<unsigned long long>(b.maxQueueBytes), static_cast<double>(b.pausedPs) / 1e9);
    }
    if (run.analytical) {
        const TimeNs packet = iterationTimeNs(run.outcome);
        std::printf("analytical (congestion-aware): %llu ns; packet / analytical = %.4f\n",
                    static_cast<unsigned long long>(run.analytical->iterationNs),
                    run.analytical->iterationNs
                        ? static_cast<double>(packet) / static_cast<double>(run.analytical->iterationNs)
                        : 0.0);
    }
    const double cpu = std::max(run.cpuSeconds, 1e-9);
    std::printf("cost: %.2f CPU-s, peak %.0f MB, %llu events, %.2f M data packet-hops per CPU-s\n",
                run.cpuSeconds, peakResidentMb(), static_cast<unsigned long long>(run.outcome.events),
                static_cast<double>(n.dataPacketHops) / cpu / 1e6);
    std::printf("summary: %s\n", summaryPath.c_str());
}

}  // namespace mlnet::roce

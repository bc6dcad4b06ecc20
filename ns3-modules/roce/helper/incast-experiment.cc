#include "incast-experiment.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "ns3/simulator.h"

#include "cc-selection.h"
#include "fabric-settings.h"
#include "hpcc-config.h"
#include "hpcc-flow-runner.h"
#include "network/topology-builders.h"
#include "roce-fabric.h"
#include "wire-format.h"

namespace mlnet::roce {

namespace {

double percentile(std::vector<double> values, double p) {
    if (values.empty()) {
        return 0;
    }
    std::sort(values.begin(), values.end());
    const std::size_t i =
        std::min(values.size() - 1, static_cast<std::size_t>(std::ceil(p * values.size())) - 1);
    return values[i];
}

}  // namespace

IncastResult runIncast(const IncastSetup& setup) {
    IncastResult result;
    LinkSettings link;
    link.rateBps = setup.rateBps;
    link.delayPs = nsToPs(setup.delayNs);
    auto topology = std::make_shared<const TopologySpec>(buildStar(setup.senders + 1, link));

    HpccConfig config;         // defaults; the preset supplies the CC parameters
    config.hasWindow = false;  // "none" is PFC only: line rate, no window
    config.ackHighPriority = true;
    Diagnostics diag;
    const CcSelection cc = selectCongestionControl(config, setup.cc, setup.preset, diag);
    FabricSettings net = fabricSettingsFromHpccConfig(config, cc);
    net.bufferBytes = setup.bufferBytes;
    net.seed = setup.seed;
    // ECN as in the HPCC paper's configurations: DCQCN/TIMELY/none with RED 100/400 KB per 25 Gb/s and Pmax
    // 0.2; DCTCP with a step at 30 KB per 10 Gb/s.
    const uint64_t per25G = setup.rateBps / 25'000'000'000ull;
    if (cc.algorithm == CcAlgorithm::Dctcp) {
        const uint64_t k = 30'000 * setup.rateBps / 10'000'000'000ull;
        net.ecn = {{setup.rateBps, k, k, 1.0}};
    } else {
        net.ecn = {{setup.rateBps, 100'000 * per25G, 400'000 * per25G, 0.2}};
    }
    SimulatorSession session;
    RoceFabric network(topology, net, diag);
    if (diag.hasErrors()) {
        return result;
    }
    HpccFlowRunner runner(network);
    std::vector<bool> done(setup.senders + 1, false);
    for (uint32_t s = 1; s <= setup.senders; ++s) {
        runner.AddFlow(s, 0, setup.flowBytes, 3, 100, 0, [&done, s](const FctRecordPs&) { done[s] = true; });
    }
    // The bottleneck is the switch port towards host 0 (the switch's port 0: cables are in host order).
    ns3::Ptr<RoceSwitch> sw = network.Switches()[0];
    std::vector<double> queue;
    const double frame = dataFrameBytes(1000, cc.intEnabled ? intBytes(0) : 0) + kWireOverheadBytes;
    const double idealMakespanPs =
        setup.senders * std::ceil(setup.flowBytes / 1000.0) * frame * 8 / setup.rateBps * 1e12;
    std::function<void()> sample = [&]() {
        queue.push_back(static_cast<double>(sw->Mmu().egressPortBytes(0)));
        ns3::Simulator::Schedule(ns3::MicroSeconds(1), sample);
    };
    ns3::Simulator::Schedule(ns3::MicroSeconds(1), sample);
    // Goodput per sender between 50% and 90% of the ideal makespan: everyone is still sending there.
    std::vector<uint64_t> at50(setup.senders + 1), at90(setup.senders + 1);
    auto snapshot = [&](std::vector<uint64_t>* into) {
        for (uint32_t s = 1; s <= setup.senders; ++s) {
            (*into)[s] = done[s] ? setup.flowBytes : network.Nic(network.HostOfNodeId(s)).AckedBytes(s - 1);
        }
    };
    const TimePs t50 = static_cast<TimePs>(0.5 * idealMakespanPs),
                 t90 = static_cast<TimePs>(0.9 * idealMakespanPs);
    ns3::Simulator::Schedule(ns3::PicoSeconds(t50), [&] { snapshot(&at50); });
    ns3::Simulator::Schedule(ns3::PicoSeconds(t90), [&] { snapshot(&at90); });

    result.finished = runner.Run(10'000'000'000'000ull);
    result.drops = network.TotalDrops();
    for (const PfcEvent& e : network.Pfc()) {
        result.pauses += e.pause;
    }
    result.maxQueueBytes = queue.empty() ? 0 : *std::max_element(queue.begin(), queue.end());
    result.p99QueueBytes = percentile(queue, 0.99);
    std::vector<double> fcts;
    TimePs last = 0;
    for (const FctRecordPs& r : runner.Fct()) {
        fcts.push_back((r.finishPs - r.startPs) / 1e6);
        last = std::max(last, r.finishPs);
    }
    result.fctP50Us = percentile(fcts, 0.5);
    result.fctP99Us = percentile(fcts, 0.99);
    result.goodputGbps = last ? setup.senders * setup.flowBytes * 8.0 / (last / 1e12) / 1e9 : 0;
    double sum = 0, sumSq = 0;
    for (uint32_t s = 1; s <= setup.senders; ++s) {
        const double gbps = (at90[s] - at50[s]) * 8.0 / ((t90 - t50) / 1e12) / 1e9;
        result.senderGbpsSecondHalf.push_back(gbps);
        sum += gbps;
        sumSq += gbps * gbps;
    }
    result.jainSecondHalf = sumSq > 0 ? sum * sum / (setup.senders * sumSq) : 0;
    return result;
}

}  // namespace mlnet::roce

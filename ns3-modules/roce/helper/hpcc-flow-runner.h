// Runs the flows of an HPCC-style experiment (flow file: source, destination, priority, destination port,
// size, start) on a RoCE fabric: starts each flow at its time, records its completion for fct.txt, stops the
// run at the last completion, at the time limit, or when the hang detector sees no progress.
#ifndef MLNET_ROCE_HPCC_FLOW_RUNNER_H
#define MLNET_ROCE_HPCC_FLOW_RUNNER_H

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hang-detector.h"
#include "roce-fabric.h"

namespace mlnet::roce {

struct FctRecordPs {
    uint64_t flowId;
    uint32_t srcNode, dstNode;  // original node ids
    uint16_t sport, dport;
    uint64_t sizeBytes;
    TimePs startPs, finishPs, idealPs;
};

class HpccFlowRunner {
public:
    // `hangCheckPs`: no delivery for this long while flows are unfinished stops the run (default 10 ms).
    explicit HpccFlowRunner(RoceFabric& fabric, TimePs hangCheckPs = 10'000'000'000ull);

    // How flow starts share their instant with the other events due then. false (default): each start is
    // scheduled when the flow is added, so it runs before them. true (the reference's order, part of
    // --flow-starts=reference): the starts of an instant are scheduled when that instant comes, in file
    // order, so they run after every event already due then (the reference reads its flow file one start
    // ahead, from an event at the previous start, and opens each flow from an event of its own). It covers
    // the flows added before the first Run(); later ones start at their time as in the default order.
    // Set it before the first AddFlow.
    void SetReferenceStartOrder(bool on) { m_referenceStartOrder = on; }
    // Schedules a flow between two hosts (original node ids); completions are recorded in Fct().
    void AddFlow(uint32_t srcNode, uint32_t dstNode, uint64_t sizeBytes, uint8_t priority, uint16_t dport,
                 TimePs startPs, std::function<void(const FctRecordPs&)> done = nullptr);

    // Runs until every flow finished, `stopPs` is reached, or the hang detector fires. True if every flow
    // finished.
    bool Run(TimePs stopPs);
    const std::string& HangReport() const { return m_hangReport; }

    // Completions so far, in order; empty once a sink takes them (SetFctSink: long runs stream fct.txt).
    const std::vector<FctRecordPs>& Fct() const { return m_fct; }
    void SetFctSink(std::function<void(const FctRecordPs&)> sink) { m_fctSink = std::move(sink); }
    uint64_t FlowsStarted() const { return m_started; }
    uint64_t FlowsFinished() const { return m_finished; }

private:
    struct PendingFlow {
        uint32_t srcHost, dstHost;
        uint16_t dport;
        uint8_t priority;
        uint64_t sizeBytes;
        std::function<void(const FctRecordPs&)> done;
    };
    void StartFlow(uint64_t flowId);
    void StartDueFlows();  // the reference's order: schedules the flows due now, then the next instant
    void ArmStarts();      // schedules StartDueFlows at the next file start

    RoceFabric& m_fabric;
    HangDetector m_hang;
    std::vector<PendingFlow> m_flows;
    std::vector<FctRecordPs> m_fct;
    std::function<void(const FctRecordPs&)> m_fctSink;
    uint64_t m_finished = 0;
    uint64_t m_started = 0;
    bool m_referenceStartOrder = false;
    std::vector<std::pair<TimePs, uint64_t>> m_starts;  // (start, flow) in file order, reference order only
    std::size_t m_nextStart = 0;
    bool m_runBegun = false;
    bool m_startsArmed = false;
    std::string m_hangReport;
};

}  // namespace mlnet::roce

#endif

// Flows on a star of hosts under one CC, for the tests that compare a shortcut of the packet model (memoized
// episodes, fluid stand-ins) with the full model on the same flows.
#ifndef MLNET_TESTS_FLOW_RUN_UTIL_H
#define MLNET_TESTS_FLOW_RUN_UTIL_H

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "cc-selection.h"
#include "roce-test-util.h"
#include "run-report.h"

namespace mlnet::roce {

struct Flow {
    uint32_t src, dst;
    uint64_t bytes;
    TimePs startPs;
};

struct FlowRun {
    std::vector<FctRecordPs> fct;  // in flow-id order
    NetworkTotals totals;
    uint64_t delivered = 0;
};

// 100 Gb/s links, ECN from 20 to 200 KB, 4 MB switch buffers, the CC's paper preset; `configure` adds the
// shortcut, `inspect` reads the fabric once the flows are done, `prepare` (optional) sees it before they run
// (to schedule looks at it on the way).
inline FlowRun runFlows(const std::string& cc, uint32_t hosts, const std::vector<Flow>& flows,
                        const std::function<void(FabricSettings&)>& configure,
                        const std::function<void(const RoceFabric&)>& inspect,
                        const std::function<void(const RoceFabric&)>& prepare = nullptr) {
    Diagnostics diag;
    FabricSettings s;
    s.ecn = {{k100G, 20'000, 200'000, 0.2}};
    s.bufferBytes = 4ull << 20;
    const CcSelection selection = selectCongestionControl(HpccConfig{}, cc, "paper", diag);
    s.ccFactory = selection.factory;
    s.nic.ecnEchoOnAck = selection.ecnEchoOnAck;
    s.nic.intEnabled = selection.intEnabled;
    configure(s);
    TestNetwork net(star(hosts), s, diag);
    EXPECT_FALSE(diag.hasErrors()) << diag.format(Severity::Error);
    for (const Flow& f : flows) {
        net.runner.AddFlow(f.src, f.dst, f.bytes, 3, 100, f.startPs);
    }
    if (prepare) {
        prepare(net.fabric);
    }
    EXPECT_TRUE(net.runner.Run(10'000'000'000'000ull)) << net.runner.HangReport();
    FlowRun o;
    o.fct = net.runner.Fct();
    std::sort(o.fct.begin(), o.fct.end(),
              [](const FctRecordPs& a, const FctRecordPs& b) { return a.flowId < b.flowId; });
    o.totals = networkTotals(net.fabric);
    o.delivered = net.fabric.DeliveredBytes();
    inspect(net.fabric);
    return o;
}

inline uint64_t totalBytes(const std::vector<Flow>& flows) {
    uint64_t bytes = 0;
    for (const Flow& f : flows) {
        bytes += f.bytes;
    }
    return bytes;
}

}  // namespace mlnet::roce

#endif

#include "trace-run.h"

namespace mlnet::roce {

CcSelection applyPacketModel(const PacketModelSettings& settings, const ModelRules& rules,
                             const std::string& ccName, const std::string& preset, FabricSettings& fabric,
                             Diagnostics& diag) {
    const CcSelection selection =
        selectCongestionControl(settings.ccParameters, ccName.empty() ? settings.cc : ccName,
                                preset.empty() ? settings.ccPreset : preset, diag, rules);
    applyCongestionControl(fabric, selection);
    rules.ApplyTo(fabric, selection.algorithm);
    return selection;
}

std::vector<uint8_t> trafficClassesOf(const PacketModelSettings& settings) {
    return settings.priorityClasses.empty() ? std::vector<uint8_t>{settings.trafficClass}
                                            : settings.priorityClasses;
}

TraceRunWatch::TraceRunWatch(const RoceFabric& fabric, RoceNetworkApi& api, Simulation& simulation,
                             TimePs hangCheckPs)
    : m_api(api),
      m_simulation(simulation),
      m_hang(
          fabric, hangCheckPs,
          [&fabric, &api, &simulation] {
              return fabric.DeliveredBytes() + api.messagesAcknowledged() + simulation.ranksFinished();
          },
          [&api] { return api.messagesInFlight() > 0; },
          [&api, &simulation] { return simulation.outcome(api.now()).stallReport; },
          [&api, &simulation] {
              return api.messagesInFlight() == 0 && api.pendingEvents() == 0 && !simulation.finished();
          }) {}

void TraceRunWatch::Start() {
    m_simulation.start(Callback{&TraceRunWatch::StopWhenDrained, &m_api, 0});
    m_hang.Start();
}

void TraceRunWatch::StopWhenDrained(void* api, uint64_t) {
    static_cast<RoceNetworkApi*>(api)->StopWhenDrained();
}

TimePs fastForwardWindowPs(CcAlgorithm algorithm) {
    switch (algorithm) {
        case CcAlgorithm::None:
            return 10'000'000;
        case CcAlgorithm::Hpcc:
            return 20'000'000;
        case CcAlgorithm::Dctcp:
        case CcAlgorithm::Timely:
            return 40'000'000;
        case CcAlgorithm::Dcqcn:
            break;
    }
    return 100'000'000;
}

}  // namespace mlnet::roce

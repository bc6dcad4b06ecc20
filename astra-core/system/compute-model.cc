#include "compute-model.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace mlnet {

ComputeModel::ComputeModel(const SystemConfig& config)
    : m_roofline(config.rooflineEnabled),
      m_memBytesPerNs(config.localMemBwGBps),  // GB/s (1e9 B) = B/ns
      m_peakOpsPerNs(config.peakPerfTflops * 1e3) {}

TimeNs ComputeModel::durationNs(const TraceNode& node) const {
    if (m_roofline && node.type == NodeType::Compute && !node.isCpuOp()) {
        if (node.tensorSizeBytes == 0 || node.numOps == 0) {
            return 0;
        }
        const double intensity = static_cast<double>(node.numOps) / static_cast<double>(node.tensorSizeBytes);
        const double opsPerNs = std::min(m_memBytesPerNs * intensity, m_peakOpsPerNs);
        return saturatedNs(static_cast<double>(node.numOps) / opsPerNs);
    }
    return node.durationMicros == 0 ? 1 : node.durationMicros * 1000;
}

std::string ComputeModel::whyUntimeable(const TraceNode& node) const {
    if (!m_roofline || node.type != NodeType::Compute || node.isCpuOp()) {
        return {};
    }
    if (!(node.flags & TraceNode::kHasNumOps) || !(node.flags & TraceNode::kHasTensorSize)) {
        return "roofline-enabled needs attributes num_ops and tensor_size on every GPU COMP_NODE";
    }
    if (m_memBytesPerNs <= 0 || m_peakOpsPerNs <= 0) {
        return "roofline-enabled needs positive local-mem-bw and peak-perf in the system configuration";
    }
    return {};
}

MemoryModel::MemoryModel(const RemoteMemoryConfig& config, double localMemBwGBps, uint32_t numRanks)
    : m_config(config), m_localBytesPerNs(localMemBwGBps) {
    std::size_t devices = 0;
    switch (config.type) {
        case MemoryType::NoMemoryExpansion:
            break;
        case MemoryType::PerNpuMemoryExpansion:
            devices = numRanks;
            break;
        case MemoryType::PerNodeMemoryExpansion:
            devices = std::max<uint32_t>(config.numNodes, 1);
            break;
        case MemoryType::MemoryPool:
            devices = 1;
            break;
    }
    m_busyUntil.assign(devices, 0);
}

std::string MemoryModel::whyUnusable(uint32_t numRanks) const {
    if (m_config.type == MemoryType::NoMemoryExpansion) {
        return m_localBytesPerNs > 0 ? std::string() : "MEM_LOAD/MEM_STORE nodes need local-mem-bw > 0";
    }
    if (m_config.type == MemoryType::PerNodeMemoryExpansion &&
        uint64_t{m_config.numNodes} * m_config.numNpusPerNode < numRanks) {
        return "num-nodes x num-npus-per-node (" +
               std::to_string(uint64_t{m_config.numNodes} * m_config.numNpusPerNode) +
               ") is smaller than the number of NPUs (" + std::to_string(numRanks) + ")";
    }
    return {};
}

TimeNs MemoryModel::accessNs(Rank rank, uint64_t sizeBytes, TimeNs nowNs) {
    if (m_config.type == MemoryType::NoMemoryExpansion) {
        return saturatedNs(static_cast<double>(sizeBytes) / m_localBytesPerNs);
    }
    std::size_t device = 0;
    if (m_config.type == MemoryType::PerNpuMemoryExpansion) {
        device = rank;
    } else if (m_config.type == MemoryType::PerNodeMemoryExpansion) {
        device = rank / std::max<uint32_t>(m_config.numNpusPerNode, 1);
    }
    const TimeNs start = std::max(nowNs, m_busyUntil[device]);
    const TimeNs finish =
        start + saturatedNs(std::ceil(static_cast<double>(sizeBytes) / m_config.remoteMemBwGBps));
    m_busyUntil[device] = finish;
    return finish + m_config.remoteMemLatencyNs - nowNs;
}

}  // namespace mlnet

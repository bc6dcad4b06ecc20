// What NCCL's topology detection would find in our network description: which server (scale-up domain) each
// rank's GPU sits in and at which local index, the NVLink bandwidth per GPU, the NIC each GPU is closest to
// (its rail) and the NIC rate. Servers are the scale-up domains of the description (its "scale-up" switches,
// NVSwitch-class); without them every host is a server of one GPU.
#ifndef MLNET_SYSTEM_NCCL_NCCL_TOPOLOGY_H
#define MLNET_SYSTEM_NCCL_NCCL_TOPOLOGY_H

#include <cstdint>
#include <string>
#include <vector>

#include "network/topology-spec.h"
#include "system/nccl/nccl-tuner.h"
#include "util/diagnostics.h"
#include "workload/trace-types.h"

namespace mlnet::nccl {

// The GPU generation and the host side NCCL cannot see in a network description.
struct GpuPlatform {
    Arch arch = Arch::Hopper;
    double pcieGBps = 48;          // GPU to NIC (Hopper: PCIe Gen5 x16; Ampere: Gen4, 24)
    double nvlinkLinkGBps = 20.6;  // NCCL's application-level bandwidth of one NVLink (Ampere: 20.0)
};

class NcclTopology {
public:
    // Reads the servers from `spec` (ranks mapped to hosts by its rank map); errors to diag.
    NcclTopology(const TopologySpec& spec, const GpuPlatform& platform, Diagnostics& diag);

    uint32_t serverOf(Rank r) const { return m_server[r]; }
    uint32_t localIndexOf(Rank r) const { return m_local[r]; }
    // The communicator as NCCL sees it (nodes it spans, NVLink bandwidth, NICs).
    CommShape shapeOf(const std::vector<Rank>& members) const;
    // The rank on the same server as `r` with local index `local` (PXN: the GPU whose NIC is on a rail), or
    // `r` itself when there is none.
    Rank localPeer(Rank r, uint32_t local) const;
    // The reduction engine (index into TopologySpec::engines) of a server's scale-up switch; -1: none.
    int engineOf(uint32_t server) const { return m_engineOfServer[server]; }
    // The reduction engine of the scale-out switch a rank's NIC is cabled to (SHARP-class); -1: none.
    int netEngineOf(Rank r) const;
    // The root of a reduction tree over the given engines of NICs' switches (the engines the GPUs of one
    // local index reach): the engine itself when they are one, else an engine of the tier above cabled to
    // every one of them (the `pick`-th of those, mod their number, so that heads spread over the spines);
    // -1 when there is none.
    int reductionRoot(const std::vector<int>& leaves, uint32_t pick) const;

private:
    const GpuPlatform m_platform;
    std::vector<uint32_t> m_server, m_local;       // per rank
    std::vector<std::vector<Rank>> m_serverRanks;  // per server, by local index
    std::vector<double> m_nvlinkGBps, m_nicGBps;   // per rank
    std::vector<int> m_engineOfServer;
    std::vector<int> m_netEngine;  // per rank
    // Per SHARP-class engine: the engines of the reducing switches above its switch that it is cabled to.
    std::vector<std::vector<int>> m_engineParents;
    bool m_nvswitch = false;
};

}  // namespace mlnet::nccl

#endif

#include "nccl-topology.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

namespace mlnet::nccl {

namespace {

// An NVLink lane carries 25 GB/s each way (NVLink 3 and 4); NCCL counts each at its application rate.
constexpr double kNvlinkLaneGBps = 25.0;

}  // namespace

NcclTopology::NcclTopology(const TopologySpec& spec, const GpuPlatform& platform, Diagnostics& diag)
    : m_platform(platform) {
    const uint32_t ranks = spec.numRanks();
    m_server.resize(ranks);
    m_local.resize(ranks);
    m_nvlinkGBps.assign(ranks, 0);
    m_nicGBps.assign(ranks, 0);
    std::map<uint32_t, uint32_t> serverIndex;  // the description's server id -> ours, in rank order
    for (Rank r = 0; r < ranks; ++r) {
        const uint32_t host = spec.hostOfRank(r);
        const uint32_t described = spec.vertices[host].server;
        // Without a scale-up domain every GPU is a server of its own.
        const uint32_t key = described == UINT32_MAX ? UINT32_MAX - 1 - r : described;
        const auto [it, added] = serverIndex.emplace(key, static_cast<uint32_t>(m_serverRanks.size()));
        if (added) {
            m_serverRanks.emplace_back();
        }
        m_server[r] = it->second;
        m_local[r] = static_cast<uint32_t>(m_serverRanks[it->second].size());
        m_serverRanks[it->second].push_back(r);
        // Its NVLink: the cable to a scale-up switch; its NIC: the fastest other cable.
        for (uint32_t p = 0; p < spec.numPorts(host); ++p) {
            const SpecCable& c = spec.cables[spec.portCable(host, p)];
            const uint32_t peer = spec.portPeer(host, p);
            const double gbps = static_cast<double>(c.rateBps) / 8e9;
            if (spec.isSwitch(peer) && spec.tierName(peer) == "scale-up") {
                m_nvlinkGBps[r] = std::floor(gbps / kNvlinkLaneGBps + 0.5) * platform.nvlinkLinkGBps;
                m_nvswitch = true;
            } else {
                m_nicGBps[r] = std::max(m_nicGBps[r], gbps);
            }
        }
    }
    // Reduction engines: NVLink SHARP in a server's scale-up switch; SHARP-class in the switch a rank's NIC
    // is cabled to.
    m_engineOfServer.assign(m_serverRanks.size(), -1);
    m_netEngine.assign(ranks, -1);
    std::map<uint32_t, int> engineOfSwitch;
    for (std::size_t e = 0; e < spec.engines.size(); ++e) {
        const uint32_t sw = spec.engines[e].switchVertex;
        if (spec.tierName(sw) != "scale-up") {
            engineOfSwitch[sw] = static_cast<int>(e);
        } else if (const auto it = serverIndex.find(spec.vertices[spec.engines[e].host].server);
                   it != serverIndex.end()) {
            m_engineOfServer[it->second] = static_cast<int>(e);
        }
    }
    m_engineParents.assign(spec.engines.size(), {});
    for (const auto& [sw, e] : engineOfSwitch) {
        for (uint32_t p = 0; p < spec.numPorts(sw); ++p) {
            const uint32_t peer = spec.portPeer(sw, p);
            const auto up = engineOfSwitch.find(peer);
            std::vector<int>& parents = m_engineParents[static_cast<std::size_t>(e)];
            if (up != engineOfSwitch.end() && spec.vertices[peer].tier > spec.vertices[sw].tier &&
                std::find(parents.begin(), parents.end(), up->second) == parents.end()) {
                parents.push_back(up->second);
            }
        }
        std::sort(m_engineParents[static_cast<std::size_t>(e)].begin(),
                  m_engineParents[static_cast<std::size_t>(e)].end());
    }
    for (Rank r = 0; r < ranks && !engineOfSwitch.empty(); ++r) {
        const uint32_t host = spec.hostOfRank(r);
        for (uint32_t p = 0; p < spec.numPorts(host); ++p) {
            if (const auto it = engineOfSwitch.find(spec.portPeer(host, p)); it != engineOfSwitch.end()) {
                m_netEngine[r] = it->second;
            }
        }
    }
    for (Rank r = 0; r < ranks; ++r) {
        if (m_nicGBps[r] <= 0 && m_serverRanks[m_server[r]].size() == ranks && ranks > 1) {
            continue;  // one server and no NIC: NVLink only
        }
        if (m_nicGBps[r] <= 0 && m_nvlinkGBps[r] <= 0) {
            diag.error(spec.source + ": rank " + std::to_string(r) +
                       "'s host has neither a scale-up (NVLink) port nor a network port; the NCCL model "
                       "needs one of them");
            return;
        }
    }
}

CommShape NcclTopology::shapeOf(const std::vector<Rank>& members) const {
    CommShape s;
    s.nRanks = static_cast<uint32_t>(members.size());
    std::vector<uint32_t> servers;
    double nvlink = 1e30, nic = 1e30;
    s.nvlsSwitch = !members.empty();
    for (Rank r : members) {
        servers.push_back(m_server[r]);
        s.nvlsSwitch = s.nvlsSwitch && m_engineOfServer[m_server[r]] >= 0;
        nvlink = std::min(nvlink, m_nvlinkGBps[r]);
        nic = std::min(nic, m_nicGBps[r] > 0 ? m_nicGBps[r] : 1e30);
    }
    // CollNet: every member's NIC on a reducing switch, and the GPUs of one local index (NCCL's heads, one
    // per NIC) of every server on the same one or under a reducing switch above all of theirs.
    std::map<uint32_t, std::vector<int>> enginesOfLocal;
    s.switchesReduce = !members.empty();
    for (Rank r : members) {
        s.switchesReduce = s.switchesReduce && m_netEngine[r] >= 0;
        enginesOfLocal[m_local[r]].push_back(m_netEngine[r]);
    }
    for (const auto& [local, leaves] : enginesOfLocal) {
        s.switchesReduce = s.switchesReduce && reductionRoot(leaves, local) >= 0;
    }
    std::sort(servers.begin(), servers.end());
    s.nNodes = static_cast<uint32_t>(std::unique(servers.begin(), servers.end()) - servers.begin());
    s.arch = m_platform.arch;
    s.nvswitch = m_nvswitch && nvlink > 0;
    // Without NVLink the GPUs of a server talk over PCIe (NCCL's P2P/SHM path).
    s.nvlinkGBps = s.nvswitch ? nvlink : m_platform.pcieGBps;
    s.pcieGBps = m_platform.pcieGBps;
    s.nicGBps = nic >= 1e30 ? 0 : nic;
    s.nicsPerNode = s.nNodes > 0 ? std::max(1u, s.nRanks / s.nNodes) : 1;
    return s;
}

int NcclTopology::netEngineOf(Rank r) const {
    return m_netEngine[r];
}

int NcclTopology::reductionRoot(const std::vector<int>& leaves, uint32_t pick) const {
    if (leaves.empty() || leaves[0] < 0) {
        return -1;
    }
    if (std::all_of(leaves.begin(), leaves.end(), [&](int e) { return e == leaves[0]; })) {
        return leaves[0];
    }
    std::vector<int> common = m_engineParents[static_cast<std::size_t>(leaves[0])];
    for (int e : leaves) {
        if (e < 0) {
            return -1;
        }
        const std::vector<int>& parents = m_engineParents[static_cast<std::size_t>(e)];
        std::vector<int> both;
        std::set_intersection(common.begin(), common.end(), parents.begin(), parents.end(),
                              std::back_inserter(both));
        common.swap(both);
    }
    return common.empty() ? -1 : common[pick % common.size()];
}

Rank NcclTopology::localPeer(Rank r, uint32_t local) const {
    const std::vector<Rank>& ranks = m_serverRanks[m_server[r]];
    return local < ranks.size() ? ranks[local] : r;
}

}  // namespace mlnet::nccl

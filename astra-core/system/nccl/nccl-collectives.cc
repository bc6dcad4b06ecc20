#include "nccl-collectives.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "hardware/gpu-catalogue.h"
#include "nccl-op.h"

namespace mlnet::nccl {

namespace {

// The numeric NCCL_* settings: name, range, and where each goes.
struct NumericSetting {
    const char* name;
    long lo, hi;
    void (*apply)(NcclEnv&, long);
};
const NumericSetting kNumericSettings[] = {
    {"NCCL_MIN_NCHANNELS", 0, 32, [](NcclEnv& e, long n) { e.minChannels = static_cast<uint32_t>(n); }},
    {"NCCL_MAX_NCHANNELS", 1, 32, [](NcclEnv& e, long n) { e.maxChannels = static_cast<uint32_t>(n); }},
    {"NCCL_NCHANNELS_PER_NET_PEER", 1, 32,
     [](NcclEnv& e, long n) { e.channelsPerNetPeer = static_cast<int>(n); }},
    {"NCCL_IB_QPS_PER_CONNECTION", 1, 128,
     [](NcclEnv& e, long n) { e.qpsPerConnection = static_cast<uint32_t>(n); }},
    {"NCCL_IB_SPLIT_DATA_ON_QPS", 0, 1, [](NcclEnv& e, long n) { e.splitDataOnQps = n == 1; }},
    {"NCCL_PXN_DISABLE", 0, 1, [](NcclEnv& e, long n) { e.pxn = n == 0; }},
    {"NCCL_NVLS_ENABLE", 0, 2, [](NcclEnv& e, long n) { e.nvls = static_cast<int>(n); }},
    {"NCCL_COLLNET_ENABLE", 0, 1, [](NcclEnv& e, long n) { e.collNet = n == 1; }},
};

}  // namespace

const std::vector<const char*>& ncclSettingNames() {
    static const std::vector<const char*> names = [] {
        std::vector<const char*> v = {"NCCL_ALGO", "NCCL_PROTO"};
        for (const NumericSetting& k : kNumericSettings) {
            v.push_back(k.name);
        }
        return v;
    }();
    return names;
}

bool ncclConfigFrom(const SystemConfig& system, NcclConfig& config, Diagnostics& diag) {
    const std::size_t before = diag.errorCount();
    std::copy(std::begin(system.ncclFor), std::end(system.ncclFor), std::begin(config.forType));
    if (const hardware::GpuType* gpu = hardware::findGpuType(system.ncclGpu)) {
        // NCCL 2.23 knows no Blackwell class yet: it tunes Blackwell as Hopper.
        config.platform =
            GpuPlatform{gpu->generation == hardware::GpuGeneration::Ampere ? Arch::Ampere : Arch::Hopper,
                        gpu->pcieGBps, gpu->ncclNvlinkGBps};
    } else {
        diag.error(system.path + ": key 'nccl-gpu': '" + system.ncclGpu + "'; expected " +
                   hardware::gpuTypeNames());
    }
    NcclEnv& env = config.env;
    for (const auto& entry : system.ncclEnv) {
        const std::string &key = entry.first, &value = entry.second;  // (C++17 lambdas take no bindings)
        const std::string where = system.path + ": key '" + key + "': '" + value + "'";
        std::string bad;
        if (key == "NCCL_ALGO") {
            if (!env.setAlgos(value, bad)) {
                diag.error(where + ": unknown algorithm '" + bad +
                           "'; expected Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree or PAT");
            }
            continue;
        }
        if (key == "NCCL_PROTO") {
            if (!env.setProtos(value, bad)) {
                diag.error(where + ": unknown protocol '" + bad + "'; expected LL, LL128 or Simple");
            }
            continue;
        }
        const auto numeric = std::find_if(std::begin(kNumericSettings), std::end(kNumericSettings),
                                          [&](const NumericSetting& k) { return key == k.name; });
        if (numeric == std::end(kNumericSettings)) {
            std::string names;
            for (const char* name : ncclSettingNames()) {
                names += (names.empty() ? "" : ", ") + std::string(name);
            }
            diag.error(system.path + ": key '" + key + "' is not an NCCL setting the model reads (" + names +
                       ")");
            continue;
        }
        char* end = nullptr;
        const long n = std::strtol(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0' || n < numeric->lo || n > numeric->hi) {
            diag.error(where + " is not a whole number in " + std::to_string(numeric->lo) + ".." +
                       std::to_string(numeric->hi));
            continue;
        }
        numeric->apply(env, n);
    }
    if (env.minChannels > env.maxChannels) {
        diag.error(system.path + ": key 'NCCL_MIN_NCHANNELS' exceeds NCCL_MAX_NCHANNELS");
    }
    return diag.errorCount() == before;
}

NcclCollectives::NcclCollectives(NetworkApi& network, const NcclTopology& topology, const CommGroups& groups,
                                 NcclConfig config, CollectiveService& fallback)
    : m_network(network),
      m_topology(topology),
      m_groups(groups),
      m_config(std::move(config)),
      m_fallback(fallback),
      m_memo(m_config.memoize) {
    uint32_t dense = 0;
    for (const auto& [id, members] : groups.all()) {
        m_denseGroup[id] = dense++;
    }
}

NcclCollectives::~NcclCollectives() = default;

void NcclCollectives::issue(Rank rank, const TraceNode& node, Callback done) {
    const std::vector<Rank>* members = m_groups.members(node.group);
    bool supported = true;
    funcOf(node.collective, supported);
    supported = supported || node.collective == CollectiveType::AllToAll;
    if (!m_config.forType[static_cast<int>(node.collective)] || !supported || !members ||
        members->size() < 2) {
        m_fallback.issue(rank, node, done);
        return;
    }
    uint32_t& seq = m_nextSeq[uint64_t{rank} << 32 | node.group];
    const uint32_t sequence = seq++;
    const auto key = std::make_pair(node.group, sequence);
    auto it = m_ops.find(key);
    if (it == m_ops.end()) {
        m_retired.clear();  // ops finished before this issue have no event left
        it = m_ops
                 .emplace(key,
                          std::make_unique<Op>(*this, m_denseGroup.at(node.group), sequence, *members, node))
                 .first;
    }
    Op& op = *it->second;
    if (!op.matches(node)) {
        // NCCL needs every member to issue a communicator's collectives in one order; a trace (or a
        // scheduling policy) that does not would hang or corrupt data on a real cluster.
        throw std::runtime_error("NCCL: rank " + std::to_string(rank) + " issued " +
                                 std::string(toString(node.collective)) + " of " +
                                 std::to_string(node.commSizeBytes) + " B (node " + std::to_string(node.id) +
                                 ") as collective #" + std::to_string(sequence) + " on communicator " +
                                 std::to_string(node.group) + ", where another member issued " + op.what() +
                                 ": NCCL needs one order of collectives per communicator on every member");
    }
    const auto pos =
        static_cast<uint32_t>(std::lower_bound(members->begin(), members->end(), rank) - members->begin());
    m_records.push_back(
        {rank, node.id, node.collective, node.commSizeBytes, node.group, m_network.now(), 0, op.choice()});
    const uint32_t record = static_cast<uint32_t>(m_records.size() - 1);
    // The member's completion also retires the op once every member is done.
    m_done.push_back({key, done});
    const Callback wrapped = makeCallback<&NcclCollectives::memberDone>(this, m_done.size() - 1);
    op.isAllToAll() ? op.joinAllToAll(pos, wrapped, record) : op.join(pos, wrapped, record);
}

void NcclCollectives::memberDone(uint64_t index) {
    const DoneEntry entry = m_done[index];
    auto it = m_ops.find(entry.key);
    if (it != m_ops.end() && it->second->finished()) {
        // Destroyed after the events it scheduled: none remain once every member is done.
        m_retired.push_back(std::move(it->second));
        m_ops.erase(it);
    }
    entry.user();
}

std::string NcclCollectives::describeUnfinished(Rank rank) const {
    std::string out = m_fallback.describeUnfinished(rank);
    for (const auto& [key, op] : m_ops) {
        const std::vector<Rank>* members = m_groups.members(key.first);
        if (!members) {
            continue;
        }
        const auto it = std::lower_bound(members->begin(), members->end(), rank);
        if (it != members->end() && *it == rank) {
            out += "  NCCL " + op->describe(static_cast<uint32_t>(it - members->begin())) + "\n";
        }
    }
    return out;
}

}  // namespace mlnet::nccl

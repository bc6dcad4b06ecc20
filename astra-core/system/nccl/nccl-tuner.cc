#include "nccl-tuner.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

namespace mlnet::nccl {

namespace {

// NCCL 2.23's constants (src/graph/tuning.cc, search.cc). Indices: [algorithm][protocol] with protocols in
// the order LL, LL128, Simple.
constexpr double kBaseLatUs[kNumAlgos][kNumProtos] = {
    {6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
enum Hw { kNvlink, kPci, kNet };
constexpr double kHwLatUs[3][kNumAlgos][kNumProtos] = {
    // NVLink
    {{.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 0}},
    // PCI
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
    // network
    {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 14}, {0, 0, 0}},
};
// Caps by node count class (1 node, 2 nodes, 4 or more) and GPU generation.
constexpr double kLlMaxBw1Node[3] = {39.0, 87.7, 141.0};     // by Arch
constexpr double kLlMaxBwMultiNode[3] = {39.0, 39.0, 20.4};  // by node class (x86 hosts)
constexpr double kPerChMaxRingLL128[3] = {20, 20, 36.7};     // by Arch
constexpr double kPerChMaxTreeLL128[3][3] = {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}};
constexpr double kPerChMaxTree[3][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}};
// Tree all-reduce's correction by log2(bytes / 64), 64 B .. 256 MiB.
constexpr double kTreeCorrection[kNumProtos][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
// The graph search's speeds (GB/s per channel), tried from the first.
const std::vector<double> kSpeedIntra = {40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
const std::vector<double> kSpeedInter = {48, 30, 28, 24, 20, 18,  15,  12,  10, 9,
                                         7,  6,  5,  4,  3,  2.4, 1.2, .24, .12};
const std::vector<double> kSm90SpeedIntra = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
const std::vector<double> kSm90SpeedInter = {48, 45, 42, 40, 30,  24,  22,  20, 17.5,
                                             15, 12, 6,  3,  2.4, 1.2, .24, .12};
constexpr uint32_t kMaxSearchChannels = 16;
constexpr uint32_t kMaxChannels = 32;
constexpr uint32_t kNvlsChannels = 16;

int log2i(uint64_t n) {
    int l = 0;
    while (n >>= 1) {
        ++l;
    }
    return l;
}

uint32_t pow2Up(uint32_t n) {
    uint32_t p = 1;
    while (p < n) {
        p <<= 1;
    }
    return p;
}

int nodeClass(uint32_t nNodes) {
    return nNodes <= 2 ? static_cast<int>(nNodes) - 1 : 2;
}

// The first speed the search tries: at most maxBw, and minChannels of it within totalBw.
double firstSpeed(const std::vector<double>& speeds, double maxBw, double totalBw) {
    for (double s : speeds) {
        if (s <= maxBw && s <= totalBw) {
            return s;
        }
    }
    return speeds.back();
}

bool parseList(const std::string& list, const std::vector<std::string>& names, std::vector<bool>& allowed,
               std::string& bad) {
    std::string text = list;
    const bool except = !text.empty() && text[0] == '^';
    if (except) {
        text.erase(0, 1);
    }
    std::vector<bool> named(names.size(), false);
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        item.erase(0, item.find_first_not_of(' '));
        item.erase(item.find_last_not_of(' ') + 1);
        auto equal = [&](const std::string& n) {
            return n.size() == item.size() &&
                   std::equal(n.begin(), n.end(), item.begin(), [](char a, char b) {
                       return std::tolower(static_cast<unsigned char>(a)) ==
                              std::tolower(static_cast<unsigned char>(b));
                   });
        };
        const auto it = std::find_if(names.begin(), names.end(), equal);
        if (it == names.end()) {
            bad = item;
            return false;
        }
        named[static_cast<std::size_t>(it - names.begin())] = true;
    }
    for (std::size_t i = 0; i < names.size(); ++i) {
        allowed[i] = except ? !named[i] : named[i];
    }
    return true;
}

}  // namespace

const char* algoName(Algo a) {
    static const char* const kNames[] = {"Tree",     "Ring", "CollNetDirect", "CollNetChain", "NVLS",
                                         "NVLSTree", "PAT"};
    return kNames[static_cast<int>(a)];
}

const char* protoName(Proto p) {
    static const char* const kNames[] = {"LL", "LL128", "Simple"};
    return kNames[static_cast<int>(p)];
}

bool NcclEnv::setAlgos(const std::string& list, std::string& bad) {
    std::vector<std::string> names;
    for (int a = 0; a < kNumAlgos; ++a) {
        names.push_back(algoName(static_cast<Algo>(a)));
    }
    return parseList(list, names, algoAllowed, bad);
}

bool NcclEnv::setProtos(const std::string& list, std::string& bad) {
    return parseList(list, {"LL", "LL128", "Simple"}, protoAllowed, bad);
}

Channels computeChannels(const CommShape& shape, const NcclEnv& env) {
    Channels c;
    const bool hopper = shape.arch == Arch::Hopper;
    const uint32_t ppn = shape.nRanks / std::max(1u, shape.nNodes);
    Graph ring;
    if (shape.nNodes <= 1) {
        // Inside one server: as many channels of the highest speed as the GPU's NVLink bandwidth holds.
        const std::vector<double>& speeds = hopper ? kSm90SpeedIntra : kSpeedIntra;
        const double s = firstSpeed(speeds, shape.nvlinkGBps, shape.nvlinkGBps);
        ring = {std::max(1u, std::min(kMaxSearchChannels, static_cast<uint32_t>(shape.nvlinkGBps / s))), s,
                s};
    } else {
        // Between servers: a channel per NIC at the highest speed the GPU-to-NIC path and the NIC carry.
        const std::vector<double>& speeds = hopper ? kSm90SpeedInter : kSpeedInter;
        const double maxBw = std::min(shape.pcieGBps, shape.nicGBps);
        const double s = firstSpeed(speeds, maxBw, maxBw);
        const uint32_t perNic = std::max(1u, static_cast<uint32_t>(shape.nicGBps / s));
        ring = {std::max(1u, std::min(kMaxSearchChannels, shape.nicsPerNode * perNic)), s, s};
    }
    // ncclTopoDupChannels: twice the channels at half the speed, unless the speed is low.
    const bool dup = !(ring.bwIntra < 25 || (shape.arch != Arch::Volta && shape.arch != Arch::Ampere &&
                                             ring.bwIntra < 50 && ring.nChannels > 4));
    if (dup) {
        ring.nChannels = std::min(2 * ring.nChannels, kMaxSearchChannels);
        ring.bwIntra /= 2;
        ring.bwInter /= 2;
    }
    // NCCL_MAX_NCHANNELS bounds the search too (every search channel becomes two execution channels), so a
    // user's cap lowers the bus bandwidth with the channels: each channel is one SM's worth.
    ring.nChannels = std::min(ring.nChannels, std::max(1u, env.maxChannels / 2));
    c.ring = ring;
    c.tree = ring;  // the tree search is held to the ring's channel count
    c.collNet = ring;
    // Execution channels: every search channel doubled; on Hopper between servers, doubled again while below
    // 16 (NCCL 2.20+).
    uint32_t coll = std::min(kMaxChannels, 2 * ring.nChannels);
    if (hopper && shape.nNodes > 1 && ring.bwIntra > 45 && coll < 16) {
        coll *= 2;
    }
    coll = std::min(coll, env.maxChannels);
    coll = std::max(coll, std::min(env.minChannels, kMaxChannels));
    c.collChannels = std::max(1u, coll);
    // NVLS: Hopper, an NVSwitch, more than two GPUs per server; a head per GPU (one server) or per NIC.
    // (Between servers NVLS itself needs CollNet; NVLSTree does not: chooseAlgorithm applies those rules.)
    if (hopper && shape.nvswitch && shape.nvlsSwitch && ppn > 2 && env.nvls != 0) {
        c.nvlsHeads = shape.nNodes == 1 ? ppn : shape.nicsPerNode;
        c.nvls = {c.nvlsHeads, 40, shape.nNodes == 1 ? 40 : std::min(shape.pcieGBps, shape.nicGBps)};
        c.nvlsChannels = kNvlsChannels;
    }
    // Point-to-point channels (paths.cc): the collective channels rounded up to a power of two; per peer,
    // two per NVLink-sized share of the path inside a server, at least two (fewer for many peers) outside.
    c.p2pChannels = std::min(kMaxChannels, pow2Up(c.collChannels));
    uint32_t perPeer = 0;
    if (shape.nNodes <= 1) {
        perPeer =
            2 * std::max(1u, static_cast<uint32_t>(std::lround(shape.nvlinkGBps / (hopper ? 20.6 : 20.0))));
    } else {
        uint32_t nNet = env.channelsPerNetPeer > 0 ? static_cast<uint32_t>(env.channelsPerNetPeer) : 2;
        while (env.channelsPerNetPeer <= 0 && nNet * shape.nRanks > c.p2pChannels * 4 && nNet > 1) {
            nNet /= 2;
        }
        perPeer = nNet;
    }
    c.p2pChannelsPerPeer = std::min(pow2Up(perPeer), c.p2pChannels);
    return c;
}

double baseLatencyUs(Algo algo, Proto proto) {
    return kBaseLatUs[static_cast<int>(algo)][static_cast<int>(proto)];
}

double hopLatencyUs(Algo algo, Proto proto, Hop hop) {
    return kHwLatUs[static_cast<int>(hop)][static_cast<int>(algo)][static_cast<int>(proto)];
}

Choice estimate(Func func, Algo algo, Proto proto, uint64_t bytes, const CommShape& shape,
                const Channels& ch) {
    Choice none;
    none.algo = algo;
    none.proto = proto;
    const uint32_t n = shape.nRanks, nNodes = std::max(1u, shape.nNodes), ppn = n / nNodes;
    const int arch = static_cast<int>(shape.arch);
    const int a = static_cast<int>(algo), p = static_cast<int>(proto);
    // Which algorithm may run which function (enqueue.cc, tuning.cc).
    const bool rootedOrRing = func == Func::Broadcast || func == Func::Reduce;
    if ((rootedOrRing && algo != Algo::Ring) ||
        ((func == Func::AllGather || func == Func::ReduceScatter) && algo != Algo::Ring &&
         algo != Algo::Pat && algo != Algo::Nvls && algo != Algo::CollNetDirect) ||
        (func == Func::AllReduce && algo == Algo::Pat)) {
        return none;
    }
    if ((algo == Algo::Nvls || algo == Algo::NvlsTree || algo == Algo::CollNetDirect ||
         algo == Algo::CollNetChain || algo == Algo::Pat) &&
        proto != Proto::Simple) {
        return none;
    }
    const Graph* graph = &ch.ring;
    switch (algo) {
        case Algo::Tree:
            graph = &ch.tree;
            break;
        case Algo::Nvls:
        case Algo::NvlsTree:
            graph = &ch.nvls;
            break;
        case Algo::CollNetDirect:
        case Algo::CollNetChain:
            graph = &ch.collNet;
            break;
        default:
            break;
    }
    if (graph->nChannels == 0) {
        return none;
    }
    const uint32_t nsteps = func == Func::AllReduce                                  ? 2 * (n - 1)
                            : func == Func::AllGather || func == Func::ReduceScatter ? n - 1
                                                                                     : n;
    const bool collNet = algo == Algo::CollNetDirect || algo == Algo::CollNetChain;
    double bw = (nNodes <= 2 || collNet) ? graph->bwIntra : graph->bwInter;
    if (algo == Algo::Nvls) {
        bw = std::min(graph->bwIntra, graph->bwInter);
    } else if (algo == Algo::NvlsTree) {
        bw = std::min(graph->bwIntra, nNodes <= 2 ? graph->bwInter : graph->bwInter / 2);
    }
    double busBw = graph->nChannels * bw;
    const double llMaxBw = nNodes == 1 ? kLlMaxBw1Node[arch] : kLlMaxBwMultiNode[nodeClass(nNodes)];
    const uint32_t nCh = graph->nChannels;
    if (algo == Algo::Ring && proto == Proto::LL) {
        busBw = std::min(llMaxBw, 0.5 * busBw);
    } else if (algo == Algo::Ring && proto == Proto::LL128) {
        busBw = std::min(0.92 * busBw, nCh * kPerChMaxRingLL128[arch]);
    } else if (algo == Algo::Tree) {
        if (func == Func::AllReduce) {
            busBw = std::min(0.92 * busBw, nCh * kPerChMaxTree[arch][nodeClass(nNodes)]);
        }
        if (proto == Proto::LL) {
            busBw = std::min(busBw / 3.8, llMaxBw);
        } else if (proto == Proto::LL128) {
            busBw = std::min(busBw * (nNodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                             nCh * kPerChMaxTreeLL128[arch][nodeClass(nNodes)]);
        }
    } else if (algo == Algo::Pat) {
        busBw *= 0.85;
    } else if (algo == Algo::CollNetDirect) {
        if (func == Func::AllReduce) {
            double f = static_cast<double>(ppn) / nCh;
            f -= (f - 1) / 2;
            busBw /= std::max(f, 1e-9);
            if (shape.arch == Arch::Hopper) {
                busBw *= 0.85;
            }
        } else {
            const double w = (ppn - 1) / 7.0;
            busBw = ppn * bw * (0.85 * w + 0.95 * (1 - w));
        }
    }
    // To algorithm bandwidth.
    double algBw = busBw;
    if (algo == Algo::Ring) {
        algBw *= static_cast<double>(n) / nsteps;
    } else if ((algo == Algo::Nvls || algo == Algo::NvlsTree) &&
               !(func == Func::AllGather || func == Func::ReduceScatter)) {
        algBw *= 5.0 / 6.0;
    } else if ((algo == Algo::Tree || collNet) && !(func == Func::AllGather || func == Func::ReduceScatter)) {
        algBw *= 0.5;
    }
    // Latency.
    const Hw intraHw = shape.nvswitch ? kNvlink : kPci;
    double lat = kBaseLatUs[a][p];
    const double intraLat = kHwLatUs[intraHw][a][p];
    const double interLat = ppn == 1 ? kHwLatUs[kNet][static_cast<int>(Algo::Tree)][p] : kHwLatUs[kNet][a][p];
    switch (algo) {
        case Algo::Ring: {
            if (rootedOrRing) {
                const Hw hw = nNodes > 1 ? kNet : intraHw;
                const int hopAlgo = proto == Proto::Simple ? static_cast<int>(Algo::Tree) : a;
                lat += nsteps * kHwLatUs[hw][hopAlgo][p];
            } else {
                const double netOverhead = nNodes > 1 ? (proto == Proto::Simple ? 3.0 : 1.0) : 0;
                const double intra = std::max(intraLat, netOverhead);
                const uint32_t interSteps =
                    nNodes == 1 ? 0 : (func == Func::AllReduce ? 2 * (nNodes - 1) : nNodes - 1);
                lat += (nsteps - interSteps) * intra + interSteps * interLat;
            }
            break;
        }
        case Algo::Tree:
            lat += 2 * ((ppn - 1) * intraLat + log2i(nNodes) * interLat);
            break;
        case Algo::CollNetDirect:
            lat += 2 * (std::min(1u, ppn - 1) * intraLat + (ppn - 1) * 0.4) + interLat;
            break;
        case Algo::CollNetChain:
            lat += 2 * (ppn - 1) * intraLat + interLat;
            break;
        case Algo::Nvls:
            lat = intraLat + (nNodes > 1 ? interLat : 0);
            break;
        case Algo::NvlsTree:
            lat += intraLat + 2 * log2i(nNodes) * interLat;
            break;
        case Algo::Pat:
            lat = 8 + log2i(nNodes) * interLat / 3.5 + 2.8 * n;
            break;
    }
    if (algBw <= 0) {
        return none;
    }
    Choice c;
    c.algo = algo;
    c.proto = proto;
    c.latencyUs = lat;
    c.algBwGBps = algBw;
    c.busBwGBps = busBw;
    double effectiveBw = algBw;
    if (algo == Algo::Tree && func == Func::AllReduce) {
        const int idx = log2i(std::max<uint64_t>(bytes >> 6, 1));
        if (idx >= 0 && idx < 23) {
            effectiveBw *= kTreeCorrection[p][idx];
        }
    }
    double effectiveLat = lat;
    if (algo == Algo::Ring && proto == Proto::Simple && nNodes > 1 && func == Func::AllReduce &&
        bytes / (static_cast<uint64_t>(ch.collChannels) * n) >= 64) {
        effectiveLat *= shape.arch == Arch::Volta ? 1.9 : 1.4;  // the ring plateau
    }
    c.timeUs = effectiveLat + static_cast<double>(bytes) / (1000.0 * effectiveBw);
    // Channels and threads for this size (tuning.cc, enqueue.cc): small operations use fewer.
    const bool nvls = algo == Algo::Nvls || algo == Algo::NvlsTree;
    uint32_t nc = nvls ? ch.nvlsChannels : ch.collChannels;
    uint32_t nt = proto == Proto::LL ? 512 : proto == Proto::LL128 ? 640 : (nvls || collNet) ? 640 : 512;
    if (algo == Algo::Ring && proto == Proto::Simple && ch.ring.bwIntra * ch.ring.nChannels <= 12) {
        nt = 256;
    }
    const uint64_t threshold =
        (proto == Proto::Simple ? 64 : 8) * ((algo == Algo::Ring && proto == Proto::LL) ? n : 1);
    if (algo == Algo::Ring || algo == Algo::Tree) {
        while (bytes < uint64_t{nc} * nt * threshold && nc >= 2) {
            --nc;
        }
    }
    if (!nvls && algo != Algo::CollNetDirect) {
        while (bytes < uint64_t{nc} * nt * threshold && nt % 128 == 0) {
            nt /= 2;
        }
    }
    if (proto == Proto::Simple) {
        nt += algo == Algo::Ring ? 32 : algo == Algo::Tree ? 128 : 0;
    }
    if (algo == Algo::Tree || algo == Algo::Pat) {
        nt = 640;
    }
    c.nChannels = std::max(1u, nc);
    c.nThreads = std::max(96u, nt);
    return c;
}

Choice chooseAlgorithm(Func func, uint64_t bytes, const CommShape& shape, const Channels& ch,
                       const NcclEnv& env) {
    Choice best;
    const uint32_t nNodes = std::max(1u, shape.nNodes);
    for (int a = 0; a < kNumAlgos; ++a) {
        const Algo algo = static_cast<Algo>(a);
        if (!env.algoAllowed[a]) {
            continue;
        }
        const bool collNet = algo == Algo::CollNetDirect || algo == Algo::CollNetChain;
        if ((collNet && !(env.collNet && shape.switchesReduce && nNodes >= 2)) ||
            (algo == Algo::NvlsTree && nNodes == 1) || (algo == Algo::Nvls && nNodes > 1 && !env.collNet) ||
            ((algo == Algo::Nvls || algo == Algo::NvlsTree) && ch.nvlsChannels == 0) ||
            (algo == Algo::Pat && shape.nRanks != nNodes)) {
            continue;
        }
        for (int p = 0; p < kNumProtos; ++p) {
            if (!env.protoAllowed[p]) {
                continue;
            }
            const Choice c = estimate(func, algo, static_cast<Proto>(p), bytes, shape, ch);
            if (c.valid() && (!best.valid() || c.timeUs < best.timeUs)) {
                best = c;
            }
        }
    }
    return best;
}

}  // namespace mlnet::nccl

// NCCL's own view of a communicator and its choice of algorithm, protocol and channels, as NCCL 2.23 makes it
// (src/graph/search.cc, connect.cc, tuning.cc, enqueue.cc; the facts, restated, are in docs/nccl-model.md):
//   - the graph search's channels per pattern and their speeds (GB/s per channel inside and between
//     servers), from the GPU generation, the NVLink bandwidth per GPU, PCIe and NIC rates;
//   - the execution channels (search channels doubled, and Hopper's second doubling between servers);
//   - the tuning model: per (algorithm, protocol) a bus bandwidth and a latency, the time of an operation
//     lat + bytes / bw, the fastest allowed choice, then fewer channels and threads for small operations.
// Pure functions of their arguments, so that every rank of a communicator makes the same choice and tests can
// check them against NCCL's published numbers.
#ifndef MLNET_SYSTEM_NCCL_NCCL_TUNER_H
#define MLNET_SYSTEM_NCCL_NCCL_TUNER_H

#include <cstdint>
#include <string>
#include <vector>

namespace mlnet::nccl {

enum class Algo : uint8_t { Tree, Ring, CollNetDirect, CollNetChain, Nvls, NvlsTree, Pat };
inline constexpr int kNumAlgos = 7;
enum class Proto : uint8_t { LL, LL128, Simple };
inline constexpr int kNumProtos = 3;
enum class Func : uint8_t { Broadcast, Reduce, AllGather, ReduceScatter, AllReduce };
enum class Arch : uint8_t { Volta, Ampere, Hopper };  // NCCL's compute-capability classes (<80, 80-89, >=90)

const char* algoName(Algo a);    // NCCL's names: "Tree", "Ring", "CollNetDirect", ..., "PAT"
const char* protoName(Proto p);  // "LL", "LL128", "Simple"

// The knobs users set through the environment, as keys of the system JSON ("NCCL_ALGO": "Ring,Tree").
struct NcclEnv {
    std::vector<bool> algoAllowed = std::vector<bool>(kNumAlgos, true);    // NCCL_ALGO
    std::vector<bool> protoAllowed = std::vector<bool>(kNumProtos, true);  // NCCL_PROTO
    uint32_t minChannels = 0, maxChannels = 32;                            // NCCL_MIN/MAX_NCHANNELS
    int channelsPerNetPeer = -1;                                           // NCCL_NCHANNELS_PER_NET_PEER
    uint32_t qpsPerConnection = 1;                                         // NCCL_IB_QPS_PER_CONNECTION
    bool splitDataOnQps = false;                                           // NCCL_IB_SPLIT_DATA_ON_QPS
    bool pxn = true;                                                       // !NCCL_PXN_DISABLE
    int nvls = 2;          // NCCL_NVLS_ENABLE: 0 off, 1 on, 2 auto
    bool collNet = false;  // NCCL_COLLNET_ENABLE

    // Parses NCCL_ALGO / NCCL_PROTO's list syntax ("Ring,Tree", "^LL"); false with the unknown name in `bad`.
    bool setAlgos(const std::string& list, std::string& bad);
    bool setProtos(const std::string& list, std::string& bad);
};

// A communicator as NCCL's topology detection sees it.
struct CommShape {
    uint32_t nRanks = 0, nNodes = 0;  // nodes = servers (scale-up domains) the ranks span
    Arch arch = Arch::Hopper;
    bool nvswitch = true;   // the GPUs of a server meet on an NVSwitch
    double nvlinkGBps = 0;  // NCCL's NVLink bandwidth per GPU (app level: 20.6 GB/s per link on Hopper)
    double pcieGBps = 0;    // GPU to NIC (PCIe Gen4 x16: 24, Gen5: 48)
    double nicGBps = 0;     // per NIC (400 Gb/s: 50)
    uint32_t nicsPerNode = 0;
    bool switchesReduce = false;  // SHARP-class scale-out switches (CollNet possible)
    bool nvlsSwitch = true;       // the NVSwitches reduce and multicast (NVLink SHARP: NVLS possible)
};

// One graph search result.
struct Graph {
    uint32_t nChannels = 0;           // search channels
    double bwIntra = 0, bwInter = 0;  // GB/s per search channel
};

struct Channels {
    Graph ring, tree, nvls, collNet;
    uint32_t collChannels = 0;  // execution channels of ring and tree
    uint32_t nvlsChannels = 0;  // NVLS execution channels (16) when NVLS is usable, else 0
    uint32_t nvlsHeads = 0;
    uint32_t p2pChannels = 0, p2pChannelsPerPeer = 0;
};

Channels computeChannels(const CommShape& shape, const NcclEnv& env);

// The tuner's estimate of one operation and the launch it leads to.
struct Choice {
    Algo algo = Algo::Ring;
    Proto proto = Proto::Simple;
    uint32_t nChannels = 0;  // channels the operation runs on
    uint32_t nThreads = 0;
    double latencyUs = 0;  // the tuner's latency term
    double algBwGBps = 0;  // the tuner's bandwidth term (algorithm bandwidth)
    double busBwGBps = 0;  // the same as bus bandwidth: what the channels together move per GPU
    double timeUs = 0;     // latency + bytes / bandwidth: what the choice minimised
    bool valid() const { return nChannels > 0; }
};

// bytes: NCCL's nBytes (the whole buffer of the operation; for all-gather and reduce-scatter nRanks x the
// per-rank count). Invalid Choice when nothing is allowed (the caller reports it).
Choice chooseAlgorithm(Func func, uint64_t bytes, const CommShape& shape, const Channels& channels,
                       const NcclEnv& env);
// The tuner's latencies: once per operation (kernel launch and set-up) and per hop of one step.
enum class Hop : uint8_t { Nvlink, Pci, Net };
double baseLatencyUs(Algo algo, Proto proto);
double hopLatencyUs(Algo algo, Proto proto, Hop hop);

// The tuner's estimate of one (algorithm, protocol), 0 bandwidth when it cannot run the operation.
Choice estimate(Func func, Algo algo, Proto proto, uint64_t bytes, const CommShape& shape,
                const Channels& channels);

}  // namespace mlnet::nccl

#endif

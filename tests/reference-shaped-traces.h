// Trace sets shaped like the public ones the reader and the simulators must take (ASTRA-sim's microbenchmarks
// and its analytical example, the MSCCL converter's custom collectives, a PyTorch-derived Chakra trace),
// written at test time by our own trace writer with each one's quirks (node ids, versions, attribute
// encodings, missing attributes, ctrl_deps that are call-stack links), so the tests of those shapes need
// nothing from outside the repository. The published results that go with them (ASTRA-sim's 64,440 and
// 117,780 cycles) stay in the tests.
#ifndef MLNET_TESTS_REFERENCE_SHAPED_TRACES_H
#define MLNET_TESTS_REFERENCE_SHAPED_TRACES_H

#include <cstdint>
#include <string>
#include <vector>

#include "workload/trace-types.h"
#include "workload/trace-writer.h"

namespace mlnet::test {

// ASTRA-sim's microbenchmark generator (examples/workload/microbenchmarks/<kind>/<N>npus_1MB): one
// COMM_COLL_NODE per rank whose id is the rank, named "<kind>_<N>npus_1MB", comm_size 1 MiB, version "0.0.4".
TraceSetBuilder astraMicrobenchmark(CollectiveType type, uint32_t npus);
// Its file prefix's last part: all_reduce, all_gather, reduce_scatter, all_to_all.
std::string astraMicrobenchmarkName(CollectiveType type);

// Chakra's old generator as ASTRA-sim's examples/network_analytical/workload/AllReduce_1MB has it: one
// ALL_REDUCE of 1 MiB per rank, named "ALL_REDUCE", id 64 + rank (the generator's id counter ran across
// ranks), "0.0.4".
TraceSetBuilder chakraGeneratorAllReduce(uint32_t npus);

// The MSCCL converter's ring all-reduce (astra-sim/collectiveapi's et_converter on an MSCCL-lang XML), as
// ASTRA-sim reads it for all-reduce-implementation-custom: per rank one chain of 1/npus-of-the-buffer steps
// (a send, then npus-1 times receive, 7 us reduction, send, then npus-2 times receive, send, and a last
// receive), sends to rank+1 without comm_src, receives from rank-1 without comm_dst, both with comm_type 5 or
// 6 (the node type's number), int32 ranks and tags, no is_cpu_op, version "" and the XML's attributes in the
// metadata.
TraceSetBuilder mscclRingAllReduce(uint32_t npus, uint64_t sizeBytes);
inline constexpr uint32_t kMscclReductionMicros = 7;

// One rank of a PyTorch-derived trace (Chakra's converter on a PyTorch execution trace), with what makes
// those hard: ids that start high and skip, CPU-side c10d::* COMM_COLL_NODEs (is_cpu_op true, no comm_type or
// size), GPU NCCL kernels with comm_type, comm_size and an empty involved_dim, operator attributes and tensor
// info the simulation ignores, and ctrl_deps that are call-stack links: dangling ones, nodes listing
// themselves and a cycle. The data_deps alone are acyclic. Metadata: schema "1.0.1", pid, time, start_ts,
// finish_ts; version "".
struct PyTorchShape {
    uint32_t computeNodes = 0, gpuAllReduces = 0, gpuBroadcasts = 0, cpuCommNodes = 0;
    uint32_t danglingCtrlDeps = 0, selfCtrlDeps = 0;
    uint64_t computeMicros = 0;  // summed duration of the COMP_NODEs
    uint32_t nodes() const { return computeNodes + gpuAllReduces + gpuBroadcasts + cpuCommNodes; }
};
RankTraceBuilder pyTorchShapedRank(Rank rank, PyTorchShape& shape);

// Writes every shape above under dir (the microbenchmarks of 4, 8 and 16 ranks of each kind, the generator's
// all-reduce and the MSCCL ring on 8 ranks, the PyTorch rank replayed by two ranks) and returns their
// prefixes.
std::vector<std::string> writeReferenceShapedTraces(const std::string& dir);

}  // namespace mlnet::test

#endif

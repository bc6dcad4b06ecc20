#include "reference-shaped-traces.h"

#include <cctype>
#include <filesystem>
#include <stdexcept>

namespace mlnet::test {
namespace {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

AttributeProto* attribute(Node& node, const std::string& name) {
    AttributeProto* a = node.add_attr();
    a->set_name(name);
    return a;
}

void metadataString(RankTraceBuilder& rank, const std::string& name, const std::string& value) {
    AttributeProto* a = rank.metadata().add_attr();
    a->set_name(name);
    a->set_string_val(value);
}

void metadataUint(RankTraceBuilder& rank, const std::string& name, uint64_t value) {
    AttributeProto* a = rank.metadata().add_attr();
    a->set_name(name);
    a->set_uint64_val(value);
}

// The converter writes SEND and RECV nodes with its own attribute set, so the builder's are replaced.
void mscclAttributes(Node& node, bool send, Rank peer, uint64_t sizeBytes) {
    node.clear_attr();
    attribute(node, "comm_type")->set_int64_val(send ? 5 : 6);  // the node type's number, not a collective
    attribute(node, "comm_size")->set_int64_val(static_cast<int64_t>(sizeBytes));
    attribute(node, send ? "comm_dst" : "comm_src")->set_int32_val(static_cast<int32_t>(peer));
    attribute(node, "comm_tag")->set_int32_val(0);
}

}  // namespace

std::string astraMicrobenchmarkName(CollectiveType type) {
    std::string name(toString(type));
    for (char& c : name) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return name;
}

TraceSetBuilder astraMicrobenchmark(CollectiveType type, uint32_t npus) {
    TraceSetBuilder set(npus, "0.0.4");
    for (Rank r = 0; r < npus; ++r) {
        RankTraceBuilder& rank = set.rank(r);
        rank.addCollective(astraMicrobenchmarkName(type) + "_" + std::to_string(npus) + "npus_1MB", type,
                           1 << 20);
        rank.node(0).set_id(r);
    }
    return set;
}

TraceSetBuilder chakraGeneratorAllReduce(uint32_t npus) {
    TraceSetBuilder set(npus, "0.0.4");
    for (Rank r = 0; r < npus; ++r) {
        set.rank(r).addCollective("ALL_REDUCE", CollectiveType::AllReduce, 1 << 20);
        set.rank(r).node(0).set_id(64 + r);
    }
    return set;
}

TraceSetBuilder mscclRingAllReduce(uint32_t npus, uint64_t sizeBytes) {
    if (npus < 2) {
        throw std::invalid_argument("mscclRingAllReduce: needs 2 ranks or more");
    }
    const uint64_t step = sizeBytes / npus;
    TraceSetBuilder set(npus, "");
    for (Rank r = 0; r < npus; ++r) {
        RankTraceBuilder& rank = set.rank(r);
        metadataString(rank, "schema", "1.0.2-chakra.0.0.4");
        metadataString(rank, "input_file",
                       "<algo name=\"allreduce_ring\" ngpus=\"" + std::to_string(npus) +
                           "\" coll=\"allreduce\" nchannels=\"1\"/>");
        metadataString(rank, "collective", "allreduce");
        const Rank next = (r + 1) % npus, previous = (r + npus - 1) % npus;
        uint32_t index = 0;
        auto send = [&](std::vector<uint64_t> deps) {
            const uint64_t id = rank.addSend("COMM_SEND_NODE_tb0_step" + std::to_string(index++), next, step,
                                             0, std::move(deps));
            mscclAttributes(rank.node(id), true, next, step);
            return id;
        };
        auto receive = [&](uint64_t dep) {
            const uint64_t id =
                rank.addRecv("COMM_RECV_NODE_tb0_step" + std::to_string(index++), previous, step, 0, {dep});
            mscclAttributes(rank.node(id), false, previous, step);
            return id;
        };
        uint64_t last = send({});
        for (uint32_t s = 0; s + 1 < npus; ++s) {  // reduce-scatter: receive, reduce, pass on
            const uint64_t received = receive(last);
            const uint64_t reduced = rank.addCompute("COMP_NODE_tb0_step" + std::to_string(index - 1),
                                                     kMscclReductionMicros, {received});
            rank.node(reduced).clear_attr();
            last = send({reduced});
        }
        for (uint32_t s = 0; s + 2 < npus; ++s) {  // all-gather: receive, pass on
            last = send({receive(last)});
        }
        receive(last);
    }
    return set;
}

RankTraceBuilder pyTorchShapedRank(Rank rank, PyTorchShape& shape) {
    RankTraceBuilder trace(rank, "");
    metadataString(trace, "schema", "1.0.1");
    metadataUint(trace, "pid", 4242);
    metadataString(trace, "time", "2024-01-01 00:00:00");
    metadataUint(trace, "start_ts", 1000);
    metadataUint(trace, "finish_ts", 90000);
    shape = PyTorchShape{};
    auto operatorAttributes = [](Node& node, const std::string& schema) {
        attribute(node, "fw_parent")->set_int64_val(0);
        attribute(node, "op_schema")->set_string_val(schema);
        attribute(node, "seq_id")->set_int64_val(-1);
        attribute(node, "tid")->set_int64_val(1);
        node.mutable_inputs()->set_values("[[[4, 5, 0, 64, 4, 'cuda:0']]]");
        node.mutable_inputs()->set_shapes("[[[64]]]");
        node.mutable_inputs()->set_types("['GenericList[Tensor(float)]']");
    };
    auto compute = [&](const std::string& name, uint64_t micros, std::vector<uint64_t> deps) {
        const uint64_t id = trace.addCompute(name, micros, std::move(deps));
        trace.node(id).mutable_attr(0)->set_bool_val(true);  // is_cpu_op: the aten:: operators run on the CPU
        operatorAttributes(trace.node(id), name + "(Tensor self) -> Tensor");
        ++shape.computeNodes;
        shape.computeMicros += micros;
        return id;
    };
    // c10d::* launches the collective from the CPU: a COMM_COLL_NODE with no comm_type and no size.
    auto cpuCollective = [&](const std::string& name, std::vector<uint64_t> deps) {
        const uint64_t id = trace.addCompute(name, 80, std::move(deps));
        Node& node = trace.node(id);
        node.set_type(ChakraProtoMsg::COMM_COLL_NODE);
        node.mutable_attr(0)->set_bool_val(true);
        operatorAttributes(node, name + "(Tensor[] tensors, ProcessGroup process_group) -> Work");
        ++shape.cpuCommNodes;
        return id;
    };
    auto gpuCollective = [&](const std::string& name, CollectiveType type, uint64_t bytes,
                             std::vector<uint64_t> deps) {
        const uint64_t id = trace.addCollective(name, type, bytes, std::move(deps));
        Node& node = trace.node(id);
        node.set_duration_micros(25);
        attribute(node, "tid")->set_int64_val(14);
        attribute(node, "involved_dim")->mutable_bool_list();
        ++(type == CollectiveType::Broadcast ? shape.gpuBroadcasts : shape.gpuAllReduces);
        return id;
    };
    // Parameters broadcast from rank 0 at the start, then a few layers: forward, backward and a bucketed
    // gradient all-reduce launched from the CPU.
    uint64_t last = compute("aten::flatten_dense_tensors", 300, {});
    for (int b = 0; b < 2; ++b) {
        const uint64_t launch = cpuCollective("c10d::broadcast_", {last});
        last = gpuCollective("ncclKernel_Broadcast_RING_LL_Sum_int8_t", CollectiveType::Broadcast,
                             b == 0 ? 212480 : 424, {launch, last});
    }
    for (int layer = 0; layer < 5; ++layer) {
        for (const char* op :
             {"aten::linear", "aten::relu", "aten::linear_backward", "aten::threshold_backward"}) {
            last = compute(op, 20 + 7 * static_cast<uint64_t>(layer), {last});
        }
        const uint64_t launch = layer % 2 == 0 ? cpuCollective("c10d::allreduce_", {last}) : last;
        gpuCollective("ncclKernel_AllReduce_RING_LL_Sum_float", CollectiveType::AllReduce,
                      uint64_t{4} << (18 + layer), {launch});
    }
    last = compute("aten::_foreach_add_", 150, {last});
    // The converter renumbers: ids start where the profiler's did and skip the records it dropped.
    for (Node& node : trace.nodes()) {
        node.set_id(216 + 2 * node.id());
        for (int d = 0; d < node.data_deps_size(); ++d) {
            node.set_data_deps(d, 216 + 2 * node.data_deps(d));
        }
    }
    // ctrl_deps are the call stack: the root (id 3) is not in the file, some nodes name themselves, and two
    // name each other.
    std::vector<Node>& nodes = trace.nodes();
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (i % 3 == 0) {
            nodes[i].add_ctrl_deps(3);
            ++shape.danglingCtrlDeps;
        } else if (i % 3 == 1) {
            nodes[i].add_ctrl_deps(nodes[i].id());
            ++shape.selfCtrlDeps;
        }
    }
    nodes[2].add_ctrl_deps(nodes[5].id());
    nodes[5].add_ctrl_deps(nodes[2].id());
    return trace;
}

std::vector<std::string> writeReferenceShapedTraces(const std::string& dir) {
    std::vector<std::string> prefixes;
    for (CollectiveType type : {CollectiveType::AllReduce, CollectiveType::AllGather,
                                CollectiveType::ReduceScatter, CollectiveType::AllToAll}) {
        for (uint32_t npus : {4u, 8u, 16u}) {
            const std::string name = astraMicrobenchmarkName(type);
            prefixes.push_back(dir + "/microbenchmarks/" + name + "/" + std::to_string(npus) + "npus_1MB/" +
                               name);
            astraMicrobenchmark(type, npus).write(prefixes.back());
        }
    }
    prefixes.push_back(dir + "/network_analytical/AllReduce_1MB");
    chakraGeneratorAllReduce(8).write(prefixes.back());
    prefixes.push_back(dir + "/custom_collectives/custom_allreduce");
    mscclRingAllReduce(8, 1 << 20).write(prefixes.back());
    prefixes.push_back(dir + "/pytorch/chakra");
    PyTorchShape shape;
    const RankTraceBuilder rank0 = pyTorchShapedRank(0, shape);
    std::filesystem::create_directories(dir + "/pytorch");
    for (const char* path : {"/pytorch/chakra.0.et", "/pytorch/chakra.1.et"}) {
        rank0.write(dir + path);  // a data-parallel job: every rank's trace is rank 0's
    }
    return prefixes;
}

}  // namespace mlnet::test

// Builds Chakra ET bytes record by record, including deliberately broken ones, for the reader's tests.
#ifndef MLNET_TESTS_RAW_TRACE_H
#define MLNET_TESTS_RAW_TRACE_H

#include <cstdint>
#include <string>
#include <vector>

#include "et_def.pb.h"
#include "util/diagnostics.h"
#include "workload/rank-trace-reader.h"
#include "workload/trace-set.h"
#include "workload/trace-types.h"

namespace mlnet::test {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

inline std::string varint(uint64_t v) {
    std::string out;
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
    return out;
}

inline std::string frame(const std::string& payload) {
    return varint(payload.size()) + payload;
}

inline std::string metadataRecord(const std::string& version = "1.0.0") {
    ChakraProtoMsg::GlobalMetadata m;
    m.set_version(version);
    return frame(m.SerializeAsString());
}

inline std::string record(const Node& n) {
    return frame(n.SerializeAsString());
}

inline AttributeProto* attr(Node& n, const std::string& name) {
    AttributeProto* a = n.add_attr();
    a->set_name(name);
    return a;
}

inline Node makeNode(uint64_t id, NodeType type, std::vector<uint64_t> dataDeps = {}) {
    Node n;
    n.set_id(id);
    n.set_name("node" + std::to_string(id));
    n.set_type(static_cast<ChakraProtoMsg::NodeType>(type));
    for (uint64_t d : dataDeps) {
        n.add_data_deps(d);
    }
    if (type != NodeType::Metadata) {
        attr(n, "is_cpu_op")->set_bool_val(false);
    }
    return n;
}

inline Node comp(uint64_t id, uint64_t durationMicros, std::vector<uint64_t> deps = {}) {
    Node n = makeNode(id, NodeType::Compute, std::move(deps));
    n.set_duration_micros(durationMicros);
    return n;
}

inline Node coll(uint64_t id, CollectiveType type, int64_t sizeBytes, std::vector<uint64_t> deps = {},
                 const std::string& pgName = "") {
    Node n = makeNode(id, NodeType::Collective, std::move(deps));
    attr(n, "comm_type")->set_int64_val(static_cast<int64_t>(type));
    attr(n, "comm_size")->set_int64_val(sizeBytes);
    if (!pgName.empty()) {
        attr(n, "pg_name")->set_string_val(pgName);
    }
    return n;
}

inline Node send(uint64_t id, Rank src, Rank dst, int64_t sizeBytes, int32_t tag,
                 std::vector<uint64_t> deps = {}) {
    Node n = makeNode(id, NodeType::Send, std::move(deps));
    attr(n, "comm_src")->set_int32_val(static_cast<int32_t>(src));
    attr(n, "comm_dst")->set_int32_val(static_cast<int32_t>(dst));
    attr(n, "comm_size")->set_int64_val(sizeBytes);
    attr(n, "comm_tag")->set_int32_val(tag);
    return n;
}

inline Node recv(uint64_t id, Rank src, Rank dst, int64_t sizeBytes, int32_t tag,
                 std::vector<uint64_t> deps = {}) {
    Node n = makeNode(id, NodeType::Recv, std::move(deps));
    attr(n, "comm_src")->set_int32_val(static_cast<int32_t>(src));
    attr(n, "comm_dst")->set_int32_val(static_cast<int32_t>(dst));
    attr(n, "comm_size")->set_int64_val(sizeBytes);
    attr(n, "comm_tag")->set_int32_val(tag);
    return n;
}

// A whole file: metadata then the nodes.
inline std::string file(const std::vector<Node>& nodes, const std::string& version = "1.0.0") {
    std::string out = metadataRecord(version);
    for (const Node& n : nodes) {
        out += record(n);
    }
    return out;
}

struct Parsed {
    RankTrace trace;
    Diagnostics diag;
};

inline Parsed parse(const std::string& bytes, const TraceReadOptions& options = {}, Rank rank = 0,
                    uint32_t numRanks = 0) {
    Parsed p;
    p.trace = readRankTraceFromBuffer(std::vector<uint8_t>(bytes.begin(), bytes.end()), "mem.0.et", rank,
                                      numRanks, options, p.diag);
    return p;
}

}  // namespace mlnet::test

#endif

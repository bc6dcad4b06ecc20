// Shared by the trace writer and microbenchmark tests (test-trace-writer.cc, test-microbenchmarks.cc): files
// split into records with protobuf's own reader, attribute lookups, and the checks every generated set must
// pass (well-formed files, matching sends and receives, a schedule that runs to completion).
#ifndef MLNET_TESTS_TRACE_WRITER_TEST_UTIL_H
#define MLNET_TESTS_TRACE_WRITER_TEST_UTIL_H

#include <google/protobuf/io/coded_stream.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "trace-test-util.h"
#include "workload/trace-writer.h"

namespace mlnet::test {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

inline constexpr uint64_t kInt64Max = std::numeric_limits<int64_t>::max();

inline std::string bytes(std::initializer_list<int> values) {
    std::string out;
    for (int v : values) {
        out.push_back(static_cast<char>(v));
    }
    return out;
}

struct ParsedTrace {
    ChakraProtoMsg::GlobalMetadata metadata;
    std::vector<Node> nodes;
};

// Splits records with protobuf's own varint reader, independent of the writer's encoder.
inline ParsedTrace parseTrace(const std::string& data) {
    ParsedTrace trace;
    std::size_t offset = 0;
    bool first = true;
    while (offset < data.size()) {
        google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(data.data()) + offset,
                                                  static_cast<int>(data.size() - offset));
        uint32_t length = 0;
        std::string record;
        if (!in.ReadVarint32(&length) || !in.ReadString(&record, static_cast<int>(length))) {
            throw std::runtime_error("truncated record at byte " + std::to_string(offset));
        }
        offset += static_cast<std::size_t>(in.CurrentPosition());
        const bool parsed = first ? trace.metadata.ParseFromString(record)
                                  : trace.nodes.emplace_back().ParseFromString(record);
        if (!parsed) {
            throw std::runtime_error("unparsable record ending at byte " + std::to_string(offset));
        }
        first = false;
    }
    if (first) {
        throw std::runtime_error("no GlobalMetadata record");
    }
    return trace;
}

inline std::vector<ParsedTrace> parseFiles(const std::vector<std::string>& paths) {
    std::vector<ParsedTrace> traces;
    for (const std::string& path : paths) {
        traces.push_back(parseTrace(readFileBytes(path)));
    }
    return traces;
}

inline std::vector<ParsedTrace> writeAndParse(const TraceSetBuilder& set, const std::string& tag) {
    const std::vector<std::string> paths = set.write(makeTempDir(tag) + "/trace");
    EXPECT_EQ(paths.size(), set.size());
    return parseFiles(paths);
}

inline const AttributeProto& attr(const Node& node, const std::string& name) {
    for (const AttributeProto& a : node.attr()) {
        if (a.name() == name) {
            return a;
        }
    }
    throw std::runtime_error("node " + std::to_string(node.id()) + " has no attribute " + name);
}

inline bool hasAttr(const Node& node, const std::string& name) {
    return std::any_of(node.attr().begin(), node.attr().end(),
                       [&](const AttributeProto& a) { return a.name() == name; });
}

inline int64_t int64Attr(const Node& node, const std::string& name) {
    const AttributeProto& a = attr(node, name);
    if (a.value_case() != AttributeProto::kInt64Val) {
        throw std::runtime_error(name + " of node " + std::to_string(node.id()) + " is not an int64_val");
    }
    return a.int64_val();
}

inline std::vector<uint64_t> deps(const Node& node) {
    return {node.data_deps().begin(), node.data_deps().end()};
}

inline std::map<ChakraProtoMsg::NodeType, int> countTypes(const ParsedTrace& trace) {
    std::map<ChakraProtoMsg::NodeType, int> counts;
    for (const Node& node : trace.nodes) {
        ++counts[node.type()];
    }
    return counts;
}

// What every builder-made file must satisfy: version 1.0.0, dense ids, dependencies only on earlier nodes,
// is_cpu_op false on every non-METADATA node, and the point-to-point endpoint that is the file's own rank.
inline void expectWellFormed(const ParsedTrace& trace, int64_t rank) {
    EXPECT_EQ(trace.metadata.version(), "1.0.0");
    for (std::size_t i = 0; i < trace.nodes.size(); ++i) {
        const Node& node = trace.nodes[i];
        EXPECT_EQ(node.id(), i);
        for (uint64_t dep : node.data_deps()) {
            EXPECT_LT(dep, node.id());
        }
        EXPECT_EQ(attr(node, "is_cpu_op").value_case(), AttributeProto::kBoolVal);
        EXPECT_FALSE(attr(node, "is_cpu_op").bool_val());
        if (node.type() == ChakraProtoMsg::COMM_SEND_NODE) {
            EXPECT_EQ(int64Attr(node, "comm_src"), rank);
        }
        if (node.type() == ChakraProtoMsg::COMM_RECV_NODE) {
            EXPECT_EQ(int64Attr(node, "comm_dst"), rank);
        }
    }
}

using Message = std::tuple<int64_t, int64_t, int64_t, int64_t>;  // src, dst, tag, size

inline Message messageOf(const Node& node) {
    return {int64Attr(node, "comm_src"), int64Attr(node, "comm_dst"), int64Attr(node, "comm_tag"),
            int64Attr(node, "comm_size")};
}

inline void expectSendsMatchRecvs(const std::vector<ParsedTrace>& traces) {
    std::multiset<Message> sends;
    std::multiset<Message> recvs;
    for (const ParsedTrace& trace : traces) {
        for (const Node& node : trace.nodes) {
            if (node.type() == ChakraProtoMsg::COMM_SEND_NODE) {
                sends.insert(messageOf(node));
            } else if (node.type() == ChakraProtoMsg::COMM_RECV_NODE) {
                recvs.insert(messageOf(node));
            }
        }
    }
    EXPECT_FALSE(sends.empty());
    EXPECT_EQ(sends, recvs);
    // A repeated (src, dst, tag) would let a receive match the wrong message.
    std::set<Message> distinct(sends.begin(), sends.end());
    EXPECT_EQ(distinct.size(), sends.size());
}

// Replays a set with unlimited resources: a node completes once its data deps have; a RECV also needs its
// SEND to have completed, and the k-th collective of every rank completes together once all of them are
// ready. Any node left over means the generated schedule can deadlock.
inline void expectRunsToCompletion(const std::vector<ParsedTrace>& traces) {
    const std::size_t n = traces.size();
    std::vector<std::vector<bool>> done(n);
    std::vector<std::vector<uint64_t>> collectives(n);
    std::vector<std::size_t> nextCollective(n, 0);
    for (std::size_t r = 0; r < n; ++r) {
        done[r].assign(traces[r].nodes.size(), false);
        for (const Node& node : traces[r].nodes) {
            if (node.type() == ChakraProtoMsg::COMM_COLL_NODE) {
                collectives[r].push_back(node.id());
            }
        }
    }
    auto ready = [&](std::size_t r, const Node& node) {
        return !done[r][node.id()] && std::all_of(node.data_deps().begin(), node.data_deps().end(),
                                                  [&](uint64_t dep) { return done[r][dep]; });
    };
    std::multiset<Message> delivered;
    for (bool progress = true; progress;) {
        progress = false;
        for (std::size_t r = 0; r < n; ++r) {
            for (const Node& node : traces[r].nodes) {
                if (!ready(r, node) || node.type() == ChakraProtoMsg::COMM_COLL_NODE) {
                    continue;
                }
                if (node.type() == ChakraProtoMsg::COMM_SEND_NODE) {
                    delivered.insert(messageOf(node));
                } else if (node.type() == ChakraProtoMsg::COMM_RECV_NODE) {
                    auto it = delivered.find(messageOf(node));
                    if (it == delivered.end()) {
                        continue;
                    }
                    delivered.erase(it);
                }
                done[r][node.id()] = progress = true;
            }
        }
        bool allReady = true;
        for (std::size_t r = 0; r < n; ++r) {
            allReady = allReady && nextCollective[r] < collectives[r].size() &&
                       ready(r, traces[r].nodes[collectives[r][nextCollective[r]]]);
        }
        if (allReady) {
            for (std::size_t r = 0; r < n; ++r) {
                done[r][collectives[r][nextCollective[r]++]] = progress = true;
            }
        }
    }
    for (std::size_t r = 0; r < n; ++r) {
        EXPECT_EQ(std::count(done[r].begin(), done[r].end(), false), 0) << "rank " << r << " stalls";
    }
}

}  // namespace mlnet::test

#endif

#include "trace-writer.h"

#include "util/atomic-file.h"

#define ZLIB_CONST
#include <zlib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>
#include <stdexcept>

namespace mlnet {

namespace {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

std::string describe(Rank rank, const Node& node) {
    return "rank " + std::to_string(rank) + " node " + std::to_string(node.id()) + " '" + node.name() + "'";
}

AttributeProto* addAttr(Node& node, const char* name) {
    AttributeProto* attr = node.add_attr();
    attr->set_name(name);
    return attr;
}

// Chakra tools write sizes, ranks and tags as int64_val; a value that does not fit would be read back
// negative.
void addInt64Attr(Node& node, const char* name, uint64_t value, Rank rank) {
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        throw std::invalid_argument(describe(rank, node) + ": " + name + " = " + std::to_string(value) +
                                    " exceeds INT64_MAX, the range of its int64_val encoding");
    }
    addAttr(node, name)->set_int64_val(static_cast<int64_t>(value));
}

void appendVarint32(std::string& out, uint32_t value) {
    while (value >= 0x80) {
        out.push_back(static_cast<char>((value & 0x7f) | 0x80));
        value >>= 7;
    }
    out.push_back(static_cast<char>(value));
}

void appendRecord(std::string& out, const google::protobuf::MessageLite& message, const std::string& what) {
    const std::size_t sizeBytes = message.ByteSizeLong();
    if (sizeBytes > std::numeric_limits<uint32_t>::max()) {
        throw std::runtime_error(what + ": record of " + std::to_string(sizeBytes) +
                                 " bytes exceeds the 2^32-1 byte limit of the varint32 length prefix");
    }
    appendVarint32(out, static_cast<uint32_t>(sizeBytes));
    if (!message.AppendToString(&out)) {
        throw std::runtime_error(what + ": protobuf serialization failed");
    }
}

std::string gzipCompress(const std::string& data) {
    z_stream stream{};
    // windowBits 15 + 16 selects the gzip wrapper, which is what Chakra's readers detect by its magic bytes.
    if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        throw std::runtime_error("zlib deflateInit2 failed");
    }
    std::string out;
    char buffer[1 << 16];
    std::size_t consumed = 0;
    int flush = Z_NO_FLUSH;
    // avail_in is 32 bits wide, so inputs over 4 GiB are fed in slices.
    while (flush != Z_FINISH) {
        const std::size_t slice = std::min<std::size_t>(data.size() - consumed, std::size_t{1} << 30);
        stream.next_in = reinterpret_cast<const Bytef*>(data.data() + consumed);
        stream.avail_in = static_cast<uInt>(slice);
        consumed += slice;
        flush = consumed == data.size() ? Z_FINISH : Z_NO_FLUSH;
        do {
            stream.next_out = reinterpret_cast<Bytef*>(buffer);
            stream.avail_out = sizeof(buffer);
            deflate(&stream, flush);
            out.append(buffer, sizeof(buffer) - stream.avail_out);
        } while (stream.avail_out == 0);
    }
    deflateEnd(&stream);
    return out;
}

void writeAtomically(const std::string& path, const std::string& bytes) {
    Diagnostics diag;
    if (!writeFileAtomically(path, bytes, diag)) {
        throw std::runtime_error("cannot write trace file: " + diag.firstError());
    }
}

// Python's json.dumps layout (", " and ": " separators), which the PyTorch converter's payloads use.
std::string pythonJsonDump(const nlohmann::ordered_json& value) {
    std::string out;
    if (value.is_array()) {
        out = "[";
        for (std::size_t i = 0; i < value.size(); ++i) {
            out += (i ? ", " : "") + pythonJsonDump(value[i]);
        }
        return out + "]";
    }
    if (value.is_object()) {
        out = "{";
        for (auto it = value.begin(); it != value.end(); ++it) {
            out += (it == value.begin() ? "" : ", ") + nlohmann::ordered_json(it.key()).dump() + ": " +
                   pythonJsonDump(it.value());
        }
        return out + "}";
    }
    return value.dump();
}

}  // namespace

RankTraceBuilder::RankTraceBuilder(Rank rank, std::string version) : m_rank(rank) {
    m_metadata.set_version(std::move(version));
}

Node RankTraceBuilder::makeNode(std::string name, NodeType type, std::vector<uint64_t> dataDeps) const {
    Node node;
    node.set_id(m_nextId);
    node.set_name(std::move(name));
    node.set_type(static_cast<ChakraProtoMsg::NodeType>(type));
    for (uint64_t dep : dataDeps) {
        if (dep >= m_nextId) {
            throw std::invalid_argument(describe(m_rank, node) + ": data dependency on node " +
                                        std::to_string(dep) + ", which has not been added yet");
        }
        node.add_data_deps(dep);
    }
    if (type != NodeType::Metadata) {
        addAttr(node, "is_cpu_op")->set_bool_val(false);
    }
    return node;
}

uint64_t RankTraceBuilder::append(Node node) {
    m_nodes.push_back(std::move(node));
    return m_nextId++;
}

uint64_t RankTraceBuilder::addCompute(std::string name, uint64_t durationMicros,
                                      std::vector<uint64_t> dataDeps) {
    Node node = makeNode(std::move(name), NodeType::Compute, std::move(dataDeps));
    node.set_duration_micros(durationMicros);
    return append(std::move(node));
}

uint64_t RankTraceBuilder::addRooflineCompute(std::string name, uint64_t numOps, uint64_t tensorSizeBytes,
                                              std::vector<uint64_t> dataDeps) {
    Node node = makeNode(std::move(name), NodeType::Compute, std::move(dataDeps));
    addInt64Attr(node, "num_ops", numOps, m_rank);
    addAttr(node, "tensor_size")->set_uint64_val(tensorSizeBytes);
    return append(std::move(node));
}

uint64_t RankTraceBuilder::addCollective(std::string name, CollectiveType type, uint64_t commSizeBytes,
                                         std::vector<uint64_t> dataDeps, GroupId group) {
    Node node = makeNode(std::move(name), NodeType::Collective, std::move(dataDeps));
    addAttr(node, "comm_type")->set_int64_val(static_cast<int64_t>(type));
    addInt64Attr(node, "comm_size", commSizeBytes, m_rank);
    // The PyTorch converter omits pg_name for the world group; readers default to it.
    if (group != kWorldGroup) {
        addAttr(node, "pg_name")->set_string_val(std::to_string(group));
    }
    return append(std::move(node));
}

uint64_t RankTraceBuilder::addSend(std::string name, Rank dst, uint64_t sizeBytes, uint64_t tag,
                                   std::vector<uint64_t> dataDeps) {
    Node node = makeNode(std::move(name), NodeType::Send, std::move(dataDeps));
    addInt64Attr(node, "comm_src", m_rank, m_rank);
    addInt64Attr(node, "comm_dst", dst, m_rank);
    addInt64Attr(node, "comm_size", sizeBytes, m_rank);
    addInt64Attr(node, "comm_tag", tag, m_rank);
    return append(std::move(node));
}

uint64_t RankTraceBuilder::addRecv(std::string name, Rank src, uint64_t sizeBytes, uint64_t tag,
                                   std::vector<uint64_t> dataDeps) {
    Node node = makeNode(std::move(name), NodeType::Recv, std::move(dataDeps));
    addInt64Attr(node, "comm_src", src, m_rank);
    addInt64Attr(node, "comm_dst", m_rank, m_rank);
    addInt64Attr(node, "comm_size", sizeBytes, m_rank);
    addInt64Attr(node, "comm_tag", tag, m_rank);
    return append(std::move(node));
}

uint64_t RankTraceBuilder::addMemory(NodeType loadOrStore, std::string name, uint64_t tensorSizeBytes,
                                     std::vector<uint64_t> dataDeps) {
    if (loadOrStore != NodeType::MemLoad && loadOrStore != NodeType::MemStore) {
        throw std::invalid_argument("rank " + std::to_string(m_rank) + ": addMemory('" + name + "') needs " +
                                    "MEM_LOAD_NODE or MEM_STORE_NODE, not " +
                                    std::string(toString(loadOrStore)));
    }
    Node node = makeNode(std::move(name), loadOrStore, std::move(dataDeps));
    addAttr(node, "tensor_size")->set_uint64_val(tensorSizeBytes);
    return append(std::move(node));
}

uint64_t RankTraceBuilder::addProcessGroups(const std::vector<DeclaredGroup>& groups) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    std::set<GroupId> seen;
    for (const DeclaredGroup& group : groups) {
        if (!seen.insert(group.id).second) {
            throw std::invalid_argument("rank " + std::to_string(m_rank) + ": process group " +
                                        std::to_string(group.id) + " declared twice");
        }
        nlohmann::ordered_json entry;
        entry["pg_name"] = std::to_string(group.id);
        entry["backend_id"] = 0;
        entry["backend_config"] = "cuda:nccl";
        entry["ranks"] = group.ranks;
        // A rank's builder does not know the world size, so an every-rank group carries no group_size;
        // readers take membership from "ranks" alone.
        if (!group.ranks.empty()) {
            entry["group_size"] = group.ranks.size();
        }
        entry["group_count"] = groups.size();
        list.push_back(std::move(entry));
    }
    Node node = makeNode("## process_group:init ##", NodeType::Metadata, {});
    // Python's repr of a one-element list holding the JSON text; the JSON never contains a single quote.
    node.mutable_inputs()->set_values("['" + pythonJsonDump(list) + "']");
    return append(std::move(node));
}

Node& RankTraceBuilder::node(uint64_t id) {
    return const_cast<Node&>(static_cast<const RankTraceBuilder&>(*this).node(id));
}

const Node& RankTraceBuilder::node(uint64_t id) const {
    // Ids equal positions unless a test has inserted or removed records.
    if (id < m_nodes.size() && m_nodes[id].id() == id) {
        return m_nodes[id];
    }
    auto it = std::find_if(m_nodes.begin(), m_nodes.end(), [id](const Node& n) { return n.id() == id; });
    if (it == m_nodes.end()) {
        throw std::out_of_range("rank " + std::to_string(m_rank) + ": no node with id " + std::to_string(id));
    }
    return *it;
}

std::string RankTraceBuilder::serialize() const {
    std::string out;
    appendRecord(out, m_metadata, "rank " + std::to_string(m_rank) + " global metadata");
    for (const Node& node : m_nodes) {
        appendRecord(out, node, describe(m_rank, node));
    }
    return out;
}

std::string RankTraceBuilder::fileBytes(const std::string& path) const {
    const bool gzip = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    try {
        return gzip ? gzipCompress(serialize()) : serialize();
    } catch (const std::runtime_error& e) {
        throw std::runtime_error("cannot write trace file '" + path + "': " + e.what());
    }
}

void RankTraceBuilder::write(const std::string& path) const {
    writeAtomically(path, fileBytes(path));
}

TraceSetBuilder::TraceSetBuilder(uint32_t numRanks, std::string version) {
    if (numRanks == 0) {
        throw std::invalid_argument("a trace set needs at least one rank");
    }
    m_ranks.reserve(numRanks);
    for (Rank r = 0; r < numRanks; ++r) {
        m_ranks.emplace_back(r, version);
    }
}

RankTraceBuilder& TraceSetBuilder::rank(Rank r) {
    return const_cast<RankTraceBuilder&>(static_cast<const TraceSetBuilder&>(*this).rank(r));
}

const RankTraceBuilder& TraceSetBuilder::rank(Rank r) const {
    if (r >= m_ranks.size()) {
        throw std::out_of_range("rank " + std::to_string(r) + " is outside a trace set of " +
                                std::to_string(m_ranks.size()) + " ranks");
    }
    return m_ranks[r];
}

std::vector<std::string> TraceSetBuilder::write(const std::string& prefix, bool gzip) const {
    const std::filesystem::path parent = std::filesystem::path(prefix).parent_path();
    std::error_code error;
    if (!parent.empty() && !std::filesystem::create_directories(parent, error) && error) {
        throw std::runtime_error("cannot create directory '" + parent.string() + "' for trace set '" +
                                 prefix + "': " + error.message());
    }
    // The ranks appear together or not at all: a set cut short by a failure or a signal would read as a
    // valid, smaller one.
    Diagnostics diag;
    AtomicFileSet files(diag);
    std::vector<std::string> paths;
    for (const RankTraceBuilder& builder : m_ranks) {
        paths.push_back(prefix + "." + std::to_string(builder.rank()) + (gzip ? ".et.gz" : ".et"));
        if (!files.add(paths.back(), builder.fileBytes(paths.back()))) {
            throw std::runtime_error("cannot write trace file: " + diag.firstError());
        }
    }
    if (!files.commit()) {
        throw std::runtime_error("cannot write trace set '" + prefix + "': " + diag.firstError());
    }
    return paths;
}

}  // namespace mlnet

// Writes Chakra execution traces: one rank's records are built in memory, then written as
// [varint32 len][GlobalMetadata]([varint32 len][Node])*, optionally gzip-compressed. The attribute encodings
// are the ones current Chakra tools write, so the files are readable by ASTRA-sim and Chakra as well as by
// our reader.
#ifndef MLNET_WORKLOAD_TRACE_WRITER_H
#define MLNET_WORKLOAD_TRACE_WRITER_H

#include "trace-types.h"

#include "et_def.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlnet {

// Builds one rank's trace. Node ids are per rank, dense, starting at 0, in call order; data dependencies must
// name nodes added earlier, so a builder can only produce acyclic graphs unless a test edits the records
// directly. Every add* throws std::invalid_argument, leaving the builder unchanged, when an argument cannot
// be encoded.
class RankTraceBuilder {
public:
    explicit RankTraceBuilder(Rank rank, std::string version = "1.0.0");

    Rank rank() const { return m_rank; }

    uint64_t addCompute(std::string name, uint64_t durationMicros, std::vector<uint64_t> dataDeps = {});
    // A COMP node without a duration, timed by a roofline model from its operation count and bytes touched.
    uint64_t addRooflineCompute(std::string name, uint64_t numOps, uint64_t tensorSizeBytes,
                                std::vector<uint64_t> dataDeps = {});
    // commSizeBytes is Chakra's comm_size: the full per-rank buffer, except for ALL_GATHER where it is the
    // per-rank input shard.
    uint64_t addCollective(std::string name, CollectiveType type, uint64_t commSizeBytes,
                           std::vector<uint64_t> dataDeps = {}, GroupId group = kWorldGroup);
    uint64_t addSend(std::string name, Rank dst, uint64_t sizeBytes, uint64_t tag,
                     std::vector<uint64_t> dataDeps = {});
    uint64_t addRecv(std::string name, Rank src, uint64_t sizeBytes, uint64_t tag,
                     std::vector<uint64_t> dataDeps = {});
    // loadOrStore is NodeType::MemLoad or NodeType::MemStore.
    uint64_t addMemory(NodeType loadOrStore, std::string name, uint64_t tensorSizeBytes,
                       std::vector<uint64_t> dataDeps = {});
    // The PyTorch converter's "## process_group:init ##" METADATA node declaring communicators (ranks empty:
    // every rank). Group ids must be unique; DeclaredGroup::nodeId is ignored.
    uint64_t addProcessGroups(const std::vector<DeclaredGroup>& groups);

    // Direct access to the records, so tests can add what the add* functions never write (ctrl_deps, odd
    // attribute encodings, dangling references). node() throws std::out_of_range for an unknown id.
    ChakraProtoMsg::Node& node(uint64_t id);
    const ChakraProtoMsg::Node& node(uint64_t id) const;
    std::vector<ChakraProtoMsg::Node>& nodes() { return m_nodes; }
    const std::vector<ChakraProtoMsg::Node>& nodes() const { return m_nodes; }
    ChakraProtoMsg::GlobalMetadata& metadata() { return m_metadata; }
    const ChakraProtoMsg::GlobalMetadata& metadata() const { return m_metadata; }

    // The uncompressed file bytes. Throws std::runtime_error if a record cannot be serialized or exceeds
    // 2^32-1 bytes, the limit of the varint32 length prefix.
    std::string serialize() const;
    // Writes "<path>.tmp.<pid>" and renames it over path, so readers never see a partial file;
    // gzip-compresses when path ends in ".gz". Throws std::runtime_error naming path on failure.
    // The file's bytes for `path` (gzip-compressed when it ends in .gz).
    std::string fileBytes(const std::string& path) const;
    void write(const std::string& path) const;

private:
    ChakraProtoMsg::Node makeNode(std::string name, NodeType type, std::vector<uint64_t> dataDeps) const;
    uint64_t append(ChakraProtoMsg::Node node);

    Rank m_rank;
    uint64_t m_nextId = 0;
    ChakraProtoMsg::GlobalMetadata m_metadata;
    std::vector<ChakraProtoMsg::Node> m_nodes;
};

// One builder per rank of a run.
class TraceSetBuilder {
public:
    // Throws std::invalid_argument when numRanks is 0.
    explicit TraceSetBuilder(uint32_t numRanks, std::string version = "1.0.0");

    uint32_t size() const { return static_cast<uint32_t>(m_ranks.size()); }
    // Throw std::out_of_range for r >= size().
    RankTraceBuilder& rank(Rank r);
    const RankTraceBuilder& rank(Rank r) const;

    // Writes prefix.<r>.et (prefix.<r>.et.gz when gzip) for every rank, creating the parent directory, and
    // returns the paths in rank order.
    std::vector<std::string> write(const std::string& prefix, bool gzip = false) const;

private:
    std::vector<RankTraceBuilder> m_ranks;
};

}  // namespace mlnet

#endif

#include "rank-trace-reader.h"

#include <algorithm>

#include "et_def.pb.h"
#include "node-decoder.h"
#include "record-stream.h"
#include "wire-check.h"

namespace mlnet {

namespace {

// Dependencies as written in the file, kept only until the graph is built.
struct RawDeps {
    std::vector<uint32_t> dataBegin{0};
    std::vector<uint64_t> data;
    std::vector<uint32_t> ctrlBegin{0};
    std::vector<uint64_t> ctrl;
    std::vector<uint64_t> offsets;  // byte offset of each decoded node's record
};

bool versionLooksLikeText(const std::string& version) {
    return std::none_of(version.begin(), version.end(),
                        [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

void readMetadata(RecordStream& stream, RankTrace& trace, Diagnostics& diag, bool& ok) {
    Record record;
    RecordStream::Status status = stream.next(record, diag);
    if (status == RecordStream::Status::End) {
        diag.error(atOffset(trace.path, 0) + ": no complete GlobalMetadata record");
    }
    if (status != RecordStream::Status::Record) {
        ok = false;
        return;
    }
    ChakraProtoMsg::GlobalMetadata metadata;
    std::string why =
        explainWireError(record.data, record.sizeBytes, ChakraProtoMsg::GlobalMetadata::descriptor());
    if (!why.empty() || !metadata.ParseFromArray(record.data, static_cast<int>(record.sizeBytes))) {
        diag.error(atOffset(trace.path, record.offset) +
                   ": undecodable GlobalMetadata record: " + (why.empty() ? "rejected by protobuf" : why) +
                   " (a pre-2023 Chakra schema file also fails here)");
        ok = false;
        return;
    }
    trace.version = metadata.version();
    if (!versionLooksLikeText(trace.version)) {
        diag.error(
            atOffset(trace.path, record.offset) +
            ": GlobalMetadata.version holds binary data; this looks like a pre-2023 Chakra schema file, "
            "which the current schema would misread");
        ok = false;
    } else if (!trace.version.empty() && trace.version != "0.0.4" && trace.version != "1.0.0") {
        diag.warning(atOffset(trace.path, record.offset) + ": unknown GlobalMetadata.version '" +
                     trace.version +
                     "' (known: \"\", \"0.0.4\", \"1.0.0\"); reading it with the 1.0.0 schema");
    }
}

bool hasUnknownField(const google::protobuf::Message& message, int number) {
    const auto& unknown = message.GetReflection()->GetUnknownFields(message);
    for (int i = 0; i < unknown.field_count(); ++i) {
        if (unknown.field(i).number() == number) {
            return true;
        }
    }
    return false;
}

std::string describeCycle(const RankTrace& trace, const std::vector<NodeIndex>& cycle) {
    std::string text;
    const std::size_t shown = std::min<std::size_t>(cycle.size(), 8);
    for (std::size_t i = 0; i < shown; ++i) {
        text += std::to_string(trace.nodes[cycle[i]].id) + " -> ";
    }
    text += shown < cycle.size() ? "... -> " : "";
    text += std::to_string(trace.nodes[cycle[0]].id);
    return text;
}

// Sorts and removes repeated parents so that the parent count equals the number of distinct edges.
void normaliseCsr(std::vector<uint32_t>& begin, std::vector<NodeIndex>& parents) {
    std::size_t out = 0;
    for (std::size_t i = 0; i + 1 < begin.size(); ++i) {
        auto first = parents.begin() + begin[i];
        auto last = parents.begin() + begin[i + 1];
        std::sort(first, last);
        auto uniqueEnd = std::unique(first, last);
        begin[i] = static_cast<uint32_t>(out);
        for (auto it = first; it != uniqueEnd; ++it) {
            parents[out++] = *it;
        }
    }
    begin.back() = static_cast<uint32_t>(out);
    parents.resize(out);
}

void buildGraph(RankTrace& trace, const RawDeps& raw, const TraceReadOptions& options, Diagnostics& diag) {
    const std::size_t n = trace.nodes.size();
    trace.idIndex.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        trace.idIndex[i] = {trace.nodes[i].id, static_cast<NodeIndex>(i)};
    }
    std::sort(trace.idIndex.begin(), trace.idIndex.end());
    bool ok = true;
    for (std::size_t i = 1; i < n; ++i) {
        if (trace.idIndex[i].first == trace.idIndex[i - 1].first) {
            diag.error(atNode(trace.path, trace.idIndex[i].first) +
                       ": duplicate node id (records at byte offsets " +
                       std::to_string(raw.offsets[trace.idIndex[i - 1].second]) + " and " +
                       std::to_string(raw.offsets[trace.idIndex[i].second]) + ")");
            ok = false;
        }
    }
    if (!ok) {
        return;
    }

    std::vector<uint32_t> begin(n + 1, 0);
    std::vector<NodeIndex> parents;
    parents.reserve(raw.data.size());
    for (std::size_t i = 0; i < n; ++i) {
        const uint64_t id = trace.nodes[i].id;
        for (uint32_t k = raw.dataBegin[i]; k < raw.dataBegin[i + 1]; ++k) {
            const uint64_t dep = raw.data[k];
            if (dep == id) {
                diag.error(atNode(trace.path, id) + ": data_deps lists the node itself");
                ok = false;
            } else if (auto parent = trace.find(dep)) {
                parents.push_back(*parent);
            } else {
                diag.error(atNode(trace.path, id) + ": data_deps names node " + std::to_string(dep) +
                           ", which is not in the file");
                ok = false;
            }
        }
        begin[i + 1] = static_cast<uint32_t>(parents.size());
    }
    if (!ok) {
        return;
    }
    normaliseCsr(begin, parents);
    if (auto cycle = findDependencyCycle(begin, parents); !cycle.empty()) {
        diag.error(atNode(trace.path, trace.nodes[cycle[0]].id) +
                   ": data_deps form a cycle: " + describeCycle(trace, cycle));
        return;
    }

    // ctrl_deps: PyTorch-derived traces use them for the caller operator, so they may dangle, point at the
    // node itself or close cycles. Enforce them only when they are a consistent order.
    std::vector<uint32_t> fullBegin(n + 1, 0);
    std::vector<NodeIndex> fullParents;
    fullParents.reserve(parents.size() + raw.ctrl.size());
    uint64_t selfCtrl = 0, firstSelf = 0, firstDanglingNode = 0, firstDanglingTarget = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const uint64_t id = trace.nodes[i].id;
        fullParents.insert(fullParents.end(), parents.begin() + begin[i], parents.begin() + begin[i + 1]);
        for (uint32_t k = raw.ctrlBegin[i]; k < raw.ctrlBegin[i + 1]; ++k) {
            const uint64_t dep = raw.ctrl[k];
            if (dep == id) {
                if (selfCtrl++ == 0) {
                    firstSelf = id;
                }
            } else if (auto parent = trace.find(dep)) {
                fullParents.push_back(*parent);
            } else if (trace.danglingCtrlDeps++ == 0) {
                firstDanglingNode = id;
                firstDanglingTarget = dep;
            }
        }
        fullBegin[i + 1] = static_cast<uint32_t>(fullParents.size());
    }
    auto report = [&](const std::string& text) {
        if (options.strict) {
            diag.error(text + " (strict mode)");
        } else {
            diag.warning(text + "; ignored");
        }
    };
    if (trace.danglingCtrlDeps > 0) {
        report(atNode(trace.path, firstDanglingNode) + ": ctrl_deps names node " +
               std::to_string(firstDanglingTarget) + ", which is not in the file (" +
               std::to_string(trace.danglingCtrlDeps) + " dangling ctrl_deps in this file)");
    }
    if (selfCtrl > 0) {
        report(atNode(trace.path, firstSelf) + ": ctrl_deps lists the node itself (" +
               std::to_string(selfCtrl) + " such nodes in this file)");
    }
    normaliseCsr(fullBegin, fullParents);
    if (auto cycle = findDependencyCycle(fullBegin, fullParents); !cycle.empty()) {
        const std::string text = atNode(trace.path, trace.nodes[cycle[0]].id) +
                                 ": ctrl_deps close a dependency cycle (" + describeCycle(trace, cycle) +
                                 "), so they cannot be an execution order";
        if (options.strict) {
            diag.error(text + " (strict mode)");
            return;
        }
        diag.warning(text + "; every ctrl_dep of this file is ignored");
        trace.ctrlDepsIgnored = true;
        trace.parentBegin = std::move(begin);
        trace.parents = std::move(parents);
        return;
    }
    trace.parentBegin = std::move(fullBegin);
    trace.parents = std::move(fullParents);
}

}  // namespace

std::vector<uint32_t> childrenCsr(const std::vector<uint32_t>& begin, const std::vector<NodeIndex>& parents,
                                  std::vector<NodeIndex>& children) {
    const std::size_t n = begin.empty() ? 0 : begin.size() - 1;
    std::vector<uint32_t> childBegin(n + 1, 0);
    for (NodeIndex p : parents) {
        ++childBegin[p + 1];
    }
    for (std::size_t i = 0; i < n; ++i) {
        childBegin[i + 1] += childBegin[i];
    }
    children.assign(parents.size(), 0);
    std::vector<uint32_t> fill(childBegin.begin(), childBegin.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
        for (uint32_t k = begin[i]; k < begin[i + 1]; ++k) {
            children[fill[parents[k]]++] = static_cast<NodeIndex>(i);
        }
    }
    return childBegin;
}

std::vector<NodeIndex> findDependencyCycle(const std::vector<uint32_t>& begin,
                                           const std::vector<NodeIndex>& parents) {
    const std::size_t n = begin.size() - 1;
    std::vector<NodeIndex> children;
    std::vector<uint32_t> childBegin = childrenCsr(begin, parents, children);
    std::vector<uint32_t> pending(n);
    std::vector<NodeIndex> ready;
    for (std::size_t i = 0; i < n; ++i) {
        pending[i] = begin[i + 1] - begin[i];
        if (pending[i] == 0) {
            ready.push_back(static_cast<NodeIndex>(i));
        }
    }
    std::size_t done = 0;
    while (!ready.empty()) {
        NodeIndex v = ready.back();
        ready.pop_back();
        ++done;
        for (uint32_t k = childBegin[v]; k < childBegin[v + 1]; ++k) {
            if (--pending[children[k]] == 0) {
                ready.push_back(children[k]);
            }
        }
    }
    if (done == n) {
        return {};
    }
    // Every node left has a parent that is also left, so walking parents must revisit a node: that closes a
    // cycle.
    NodeIndex v = 0;
    while (pending[v] == 0) {
        ++v;
    }
    std::vector<uint32_t> seenAt(n, UINT32_MAX);
    std::vector<NodeIndex> walk;
    while (seenAt[v] == UINT32_MAX) {
        seenAt[v] = static_cast<uint32_t>(walk.size());
        walk.push_back(v);
        for (uint32_t k = begin[v]; k < begin[v + 1]; ++k) {
            if (pending[parents[k]] != 0) {
                v = parents[k];
                break;
            }
        }
    }
    std::vector<NodeIndex> cycle(walk.begin() + seenAt[v], walk.end());
    std::reverse(cycle.begin(),
                 cycle.end());  // parent walk runs against the edges; report in execution order
    return cycle;
}

RankTrace readRankTraceFromBuffer(std::vector<uint8_t> bytes, const std::string& label, Rank rank,
                                  uint32_t numRanks, const TraceReadOptions& options, Diagnostics& diag) {
    RankTrace trace;
    trace.path = label;
    trace.rank = rank;
    trace.fileBytes = bytes.size();
    RecordStream stream;
    RecordStream::Options streamOptions;
    streamOptions.allowGzip = options.allowGzip;
    streamOptions.maxRecordBytes = options.maxRecordBytes;
    if (!stream.openBuffer(std::move(bytes), label, streamOptions, diag)) {
        return trace;
    }
    bool ok = true;
    readMetadata(stream, trace, diag, ok);
    if (!ok) {
        return trace;
    }

    NodeDecoder decoder(trace, numRanks, options, diag);
    RawDeps raw;
    ChakraProtoMsg::Node record;
    Record bytesOfRecord;
    RecordStream::Status status;
    while ((status = stream.next(bytesOfRecord, diag)) == RecordStream::Status::Record) {
        // protobuf keeps a known field sent with the wrong wire type as an unknown field instead of failing,
        // so the record is checked against the schema first; the walk costs a fraction of the parse.
        std::string why =
            explainWireError(bytesOfRecord.data, bytesOfRecord.sizeBytes, ChakraProtoMsg::Node::descriptor());
        if (!why.empty() ||
            !record.ParseFromArray(bytesOfRecord.data, static_cast<int>(bytesOfRecord.sizeBytes))) {
            diag.error(atOffset(label, bytesOfRecord.offset) +
                       ": undecodable node record: " + (why.empty() ? "rejected by protobuf" : why));
            ok = false;
            continue;
        }
        if (hasUnknownField(record, 11)) {
            diag.error(
                atOffset(label, bytesOfRecord.offset) + ": node " + std::to_string(record.id()) +
                " has field 11, which only the pre-2023 Chakra schema uses; such files are misread by the "
                "current schema (convert them with a current Chakra converter)");
            ok = false;
            continue;
        }
        if (!decoder.decode(record)) {
            ok = false;
            continue;
        }
        raw.offsets.push_back(bytesOfRecord.offset);
        raw.data.insert(raw.data.end(), record.data_deps().begin(), record.data_deps().end());
        raw.dataBegin.push_back(static_cast<uint32_t>(raw.data.size()));
        raw.ctrl.insert(raw.ctrl.end(), record.ctrl_deps().begin(), record.ctrl_deps().end());
        raw.ctrlBegin.push_back(static_cast<uint32_t>(raw.ctrl.size()));
    }
    if (decoder.cpuSideCommNodes() > 0) {
        diag.warning(
            atNode(label, decoder.firstCpuSideCommNode()) + ": communication node with is_cpu_op true (" +
            std::to_string(decoder.cpuSideCommNodes()) +
            " such CPU-side records in this file, e.g. PyTorch's c10d::* operators); replayed as CPU "
            "operations of their duration");
    }
    if (status == RecordStream::Status::Error || !ok) {
        return trace;  // graph checks on a partial node set would only repeat the errors above
    }
    buildGraph(trace, raw, options, diag);
    return trace;
}

RankTrace readRankTrace(const std::string& path, Rank rank, uint32_t numRanks,
                        const TraceReadOptions& options, Diagnostics& diag) {
    std::vector<uint8_t> bytes;
    if (!loadFileBytes(path, bytes, diag)) {
        RankTrace trace;
        trace.path = path;
        trace.rank = rank;
        return trace;
    }
    return readRankTraceFromBuffer(std::move(bytes), path, rank, numRanks, options, diag);
}

}  // namespace mlnet

#include "trace-set.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <queue>
#include <tuple>

#include "rank-trace-reader.h"

namespace mlnet {

namespace {

bool fileExists(const std::string& path) {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
}

// The rank of "<base>.<rank>.et" or "<base>.<rank>.et.gz" (decimal, no leading zeros), or -1.
int64_t rankOfName(const std::string& name, const std::string& base, bool& gz) {
    if (name.size() <= base.size() + 1 || name.compare(0, base.size(), base) != 0 ||
        name[base.size()] != '.') {
        return -1;
    }
    std::string rest = name.substr(base.size() + 1);
    gz = rest.size() > 6 && rest.compare(rest.size() - 6, 6, ".et.gz") == 0;
    const std::size_t suffix = gz ? 6 : 3;
    if (rest.size() <= suffix || (!gz && rest.compare(rest.size() - 3, 3, ".et") != 0)) {
        return -1;
    }
    rest.resize(rest.size() - suffix);
    if (rest.empty() || rest.size() > 9 || rest.find_first_not_of("0123456789") != std::string::npos ||
        (rest.size() > 1 && rest[0] == '0')) {
        return -1;
    }
    return std::stoll(rest);
}

// The ranks of the trace set `prefix` as its directory holds them: 0..N-1 with no gap, each a regular file
// and each either .et or .et.gz, not both. Every problem is an error naming the file; 0 when there are any.
uint32_t discoverRanks(const std::string& prefix, Diagnostics& diag) {
    const std::filesystem::path p(prefix);
    const std::string base = p.filename().string();
    const std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
    std::map<int64_t, std::vector<std::filesystem::directory_entry>> found;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        bool gz = false;
        const int64_t rank = rankOfName(entry.path().filename().string(), base, gz);
        if (rank >= 0) {
            found[rank].push_back(entry);
        }
    }
    const std::size_t errorsBefore = diag.errorCount();
    for (const auto& [rank, entries] : found) {
        for (const auto& entry : entries) {
            std::error_code e;
            if (!entry.is_regular_file(e)) {
                diag.error(entry.path().string() + ": named like the trace file of rank " +
                           std::to_string(rank) + " but " +
                           (entry.is_directory(e) ? "is a directory" : "is not a regular file"));
            }
        }
        if (entries.size() > 1) {
            diag.error(rankTracePath(prefix, static_cast<Rank>(rank)) + ": rank " + std::to_string(rank) +
                       " has both a .et and a .et.gz file; expected one file per rank (remove one)");
        }
    }
    if (found.empty()) {
        diag.error(prefix + ".0.et: no trace file for rank 0 (expected files <prefix>.<rank>.et)");
        return 0;
    }
    const int64_t last = found.rbegin()->first;
    for (int64_t r = 0; r <= last; ++r) {
        if (!found.count(r)) {
            diag.error(prefix + "." + std::to_string(r) + ".et: missing, but files up to rank " +
                       std::to_string(last) + " exist; expected the ranks 0.." + std::to_string(last) +
                       " without a gap (or --npus to take fewer)");
            break;
        }
    }
    return diag.errorCount() == errorsBefore ? static_cast<uint32_t>(last + 1) : 0;
}

struct CollectiveCall {
    CollectiveType type;
    uint64_t sizeBytes;
    uint64_t nodeId;
};

std::string describe(const CollectiveCall& c) {
    return std::string(toString(c.type)) + " of " + std::to_string(c.sizeBytes) + " B (node " +
           std::to_string(c.nodeId) + ")";
}

void checkCollectives(const TraceSet& set, Diagnostics& diag) {
    // Per group, per member rank: the collectives in issue order.
    std::map<GroupId, std::map<Rank, std::vector<CollectiveCall>>> calls;
    for (const RankTrace& trace : set.ranks) {
        for (NodeIndex i : issueOrder(trace)) {
            const TraceNode& node = trace.nodes[i];
            if (!node.isSimulatedCollective()) {
                continue;
            }
            const std::vector<Rank>* members = set.groups.members(node.group);
            if (!members) {
                diag.error(atAttribute(trace.path, node.id, "pg_name") + ": communicator group " +
                           std::to_string(node.group) +
                           " not found (define it in the comm-group configuration or a process-group "
                           "METADATA node)");
                continue;
            }
            if (!std::binary_search(members->begin(), members->end(), trace.rank)) {
                diag.error(atAttribute(trace.path, node.id, "pg_name") + ": rank " +
                           std::to_string(trace.rank) + " issues a collective on communicator " +
                           std::to_string(node.group) + ", which it is not a member of");
                continue;
            }
            calls[node.group][trace.rank].push_back({node.collective, node.commSizeBytes, node.id});
        }
    }
    for (const auto& entry : calls) {
        const GroupId group = entry.first;
        const auto& byRank = entry.second;  // not a structured binding: C++17 lambdas cannot capture those
        const std::vector<Rank>& members = *set.groups.members(group);
        const Rank first = members.front();
        static const std::vector<CollectiveCall> kNone;
        auto sequenceOf = [&](Rank r) -> const std::vector<CollectiveCall>& {
            auto it = byRank.find(r);
            return it == byRank.end() ? kNone : it->second;
        };
        const auto& reference = sequenceOf(first);
        for (Rank r : members) {
            const auto& seq = sequenceOf(r);
            const std::string head = "communicator " + std::to_string(group) + ": rank " + std::to_string(r) +
                                     " (" + set.ranks[r].path + ")";
            std::size_t common = std::min(seq.size(), reference.size());
            std::size_t k = 0;
            while (k < common && seq[k].type == reference[k].type &&
                   seq[k].sizeBytes == reference[k].sizeBytes) {
                ++k;
            }
            if (k < common) {
                diag.error(head + ": collective #" + std::to_string(k + 1) + " is " + describe(seq[k]) +
                           ", but rank " + std::to_string(first) + "'s is " + describe(reference[k]) +
                           "; every member must issue the same collectives in the same order");
            } else if (seq.size() != reference.size()) {
                diag.error(
                    head + ": issues " + std::to_string(seq.size()) + " collectives, but rank " +
                    std::to_string(first) + " issues " + std::to_string(reference.size()) +
                    " (first extra: " + describe(seq.size() > reference.size() ? seq[k] : reference[k]) +
                    " on rank " + std::to_string(seq.size() > reference.size() ? r : first) + ")");
            }
        }
    }
}

struct P2pEnd {
    Rank src, dst;
    uint64_t tag, sizeBytes;
    Rank rank;  // the issuing rank
    uint64_t nodeId;
    bool operator<(const P2pEnd& o) const {
        return std::tie(src, dst, tag, sizeBytes, rank, nodeId) <
               std::tie(o.src, o.dst, o.tag, o.sizeBytes, o.rank, o.nodeId);
    }
};

void checkPointToPoint(const TraceSet& set, Diagnostics& diag) {
    std::vector<P2pEnd> sends, recvs;
    for (const RankTrace& trace : set.ranks) {
        for (const TraceNode& node : trace.nodes) {
            if (node.isCpuSideComm()) {
                continue;
            }
            if (node.type == NodeType::Send) {
                sends.push_back({trace.rank, node.peer, node.tag, node.commSizeBytes, trace.rank, node.id});
            } else if (node.type == NodeType::Recv) {
                recvs.push_back({node.peer, trace.rank, node.tag, node.commSizeBytes, trace.rank, node.id});
            }
        }
    }
    std::sort(sends.begin(), sends.end());
    std::sort(recvs.begin(), recvs.end());
    auto sameChannel = [](const P2pEnd& a, const P2pEnd& b) {
        return a.src == b.src && a.dst == b.dst && a.tag == b.tag;
    };
    auto channelLess = [](const P2pEnd& a, const P2pEnd& b) {
        return std::tie(a.src, a.dst, a.tag) < std::tie(b.src, b.dst, b.tag);
    };
    auto endText = [&](const P2pEnd& e, bool isSend) {
        return set.ranks[e.rank].path + ": node " + std::to_string(e.nodeId) + ": " +
               (isSend ? "SEND" : "RECV") + " " + std::to_string(e.src) + "->" + std::to_string(e.dst) +
               " tag " + std::to_string(e.tag) + " of " + std::to_string(e.sizeBytes) + " B";
    };
    // Walk both sorted lists one (src, dst, tag) channel at a time.
    std::size_t s = 0, r = 0;
    while (s < sends.size() || r < recvs.size()) {
        const P2pEnd& key = (r == recvs.size() || (s < sends.size() && !channelLess(recvs[r], sends[s])))
                                ? sends[s]
                                : recvs[r];
        std::size_t s1 = s, r1 = r;
        while (s1 < sends.size() && sameChannel(sends[s1], key)) {
            ++s1;
        }
        while (r1 < recvs.size() && sameChannel(recvs[r1], key)) {
            ++r1;
        }
        // Within a channel both lists are sorted by size: merge to find unmatched ends.
        std::vector<const P2pEnd*> lonelySends, lonelyRecvs;
        std::size_t i = s, j = r;
        while (i < s1 || j < r1) {
            if (j == r1 || (i < s1 && sends[i].sizeBytes < recvs[j].sizeBytes)) {
                lonelySends.push_back(&sends[i++]);
            } else if (i == s1 || recvs[j].sizeBytes < sends[i].sizeBytes) {
                lonelyRecvs.push_back(&recvs[j++]);
            } else {
                ++i;
                ++j;
            }
        }
        if (!lonelySends.empty() && !lonelyRecvs.empty()) {
            diag.error(endText(*lonelySends.front(), true) + " does not match " +
                       endText(*lonelyRecvs.front(), false) + ": size mismatch on the same (src, dst, tag)");
        } else if (!lonelySends.empty()) {
            diag.error(endText(*lonelySends.front(), true) + " has no matching RECV on rank " +
                       std::to_string(key.dst) + " (" + std::to_string(lonelySends.size()) +
                       " unmatched on this channel)");
        } else if (!lonelyRecvs.empty()) {
            diag.error(endText(*lonelyRecvs.front(), false) + " has no matching SEND on rank " +
                       std::to_string(key.src) + " (" + std::to_string(lonelyRecvs.size()) +
                       " unmatched on this channel)");
        }
        s = s1;
        r = r1;
    }
}

}  // namespace

// Communicators from the JSON file and the traces' METADATA nodes, then the cross-rank checks.
static void finishTraceSet(TraceSet& set, const TraceSetOptions& options, Diagnostics& diag) {
    bool groupsOk = true;
    if (!options.commGroupFile.empty()) {
        groupsOk = set.groups.loadJson(options.commGroupFile, diag);
    }
    for (const RankTrace& trace : set.ranks) {
        for (const DeclaredGroup& group : trace.declaredGroups) {
            groupsOk &= set.groups.declare(group, atNode(trace.path, group.nodeId), diag);
        }
    }
    if (!diag.hasErrors() && groupsOk) {
        checkAcrossRanks(set, diag);
    }
}

std::string rankTracePath(const std::string& prefix, Rank rank) {
    std::string path = prefix + "." + std::to_string(rank) + ".et";
    if (!fileExists(path) && fileExists(path + ".gz")) {
        return path + ".gz";
    }
    return path;
}

std::vector<NodeIndex> issueOrder(const RankTrace& trace) {
    const std::size_t n = trace.nodes.size();
    std::vector<uint32_t> pending(n);
    std::vector<NodeIndex> children;
    const std::vector<uint32_t> childBegin = childrenCsr(trace.parentBegin, trace.parents, children);
    using Entry = std::pair<uint64_t, NodeIndex>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
    for (std::size_t i = 0; i < n; ++i) {
        pending[i] = static_cast<uint32_t>(trace.parentCount(static_cast<NodeIndex>(i)));
        if (pending[i] == 0) {
            ready.push({trace.nodes[i].id, static_cast<NodeIndex>(i)});
        }
    }
    std::vector<NodeIndex> order;
    order.reserve(n);
    while (!ready.empty()) {
        NodeIndex v = ready.top().second;
        ready.pop();
        order.push_back(v);
        for (uint32_t k = childBegin[v]; k < childBegin[v + 1]; ++k) {
            const NodeIndex c = children[k];
            if (--pending[c] == 0) {
                ready.push({trace.nodes[c].id, c});
            }
        }
    }
    return order;
}

void checkAcrossRanks(const TraceSet& set, Diagnostics& diag) {
    checkCollectives(set, diag);
    checkPointToPoint(set, diag);
}

TraceSet loadTraceSet(const std::string& prefix, const TraceSetOptions& options, Diagnostics& diag) {
    TraceSet set;
    set.prefix = prefix;
    uint32_t numRanks = options.numRanks;
    if (numRanks == 0) {
        numRanks = discoverRanks(prefix, diag);
        if (numRanks == 0) {
            return set;
        }
    } else if (fileExists(rankTracePath(prefix, numRanks))) {
        diag.warning(rankTracePath(prefix, numRanks) + ": exists, but only " + std::to_string(numRanks) +
                     " ranks were requested; extra files are ignored");
    }
    set.groups = CommGroups(numRanks);
    for (Rank r = 0; r < numRanks; ++r) {
        std::string path = rankTracePath(prefix, r);
        if (!fileExists(path)) {
            diag.error(path + ": missing trace file for rank " + std::to_string(r) + " of " +
                       std::to_string(numRanks));
            set.ranks.emplace_back();
            set.ranks.back().path = path;
            set.ranks.back().rank = r;
            continue;
        }
        set.ranks.push_back(readRankTrace(path, r, numRanks, options.read, diag));
    }
    finishTraceSet(set, options, diag);
    return set;
}

TraceSet loadTraceSetFromMemory(const std::string& label, const std::vector<std::string>& rankBytes,
                                const TraceSetOptions& options, Diagnostics& diag) {
    return loadTraceSetFromRanks(
        label, static_cast<uint32_t>(rankBytes.size()), [&](Rank r) { return rankBytes[r]; },
        [&](Rank r) { return label + "." + std::to_string(r) + ".et"; }, options, diag);
}

TraceSet loadTraceSetFromRanks(const std::string& label, uint32_t numRanks,
                               const std::function<std::string(Rank)>& rankBytes,
                               const std::function<std::string(Rank)>& rankName,
                               const TraceSetOptions& options, Diagnostics& diag) {
    TraceSet set;
    set.prefix = label;
    set.groups = CommGroups(numRanks);
    set.ranks.reserve(numRanks);
    for (Rank r = 0; r < numRanks; ++r) {
        const std::string bytes = rankBytes(r);
        set.ranks.push_back(readRankTraceFromBuffer(std::vector<uint8_t>(bytes.begin(), bytes.end()),
                                                    rankName(r), r, numRanks, options.read, diag));
    }
    finishTraceSet(set, options, diag);
    return set;
}

TraceSet loadTraceSetOrThrow(const std::string& prefix, const TraceSetOptions& options,
                             Diagnostics* warnings) {
    Diagnostics diag;
    TraceSet set = loadTraceSet(prefix, options, diag);
    if (diag.hasErrors()) {
        throw TraceError(diag.format(Severity::Error));
    }
    if (warnings) {
        *warnings = std::move(diag);
    }
    return set;
}

}  // namespace mlnet

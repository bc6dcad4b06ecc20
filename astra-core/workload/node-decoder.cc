#include "node-decoder.h"
#include "util/decimal.h"
#include "util/json-text.h"

#include <nlohmann/json.hpp>

#include <limits>

#include "et_def.pb.h"

namespace mlnet {

using ChakraProtoMsg::AttributeProto;

namespace {

constexpr const char* kAttrNames[] = {"is_cpu_op",  "comm_type",    "comm_size",     "comm_src",
                                      "comm_dst",   "comm_tag",     "comm_priority", "pg_name",
                                      "comm_group", "involved_dim", "tensor_size",   "num_ops"};

std::string valueCaseName(const AttributeProto& a) {
    if (a.value_case() == AttributeProto::VALUE_NOT_SET) {
        return "no value";
    }
    const auto* field = AttributeProto::descriptor()->FindFieldByNumber(a.value_case());
    return field ? field->name() : "unknown value case " + std::to_string(a.value_case());
}

enum class IntKind { Signed, Unsigned, NotIntegral };

// Any integral oneof case, widened: real producers write the same attribute as int32, int64, uint64, ...
IntKind integralValue(const AttributeProto& a, int64_t& s, uint64_t& u) {
    switch (a.value_case()) {
        case AttributeProto::kInt32Val:
            s = a.int32_val();
            return IntKind::Signed;
        case AttributeProto::kInt64Val:
            s = a.int64_val();
            return IntKind::Signed;
        case AttributeProto::kSint32Val:
            s = a.sint32_val();
            return IntKind::Signed;
        case AttributeProto::kSint64Val:
            s = a.sint64_val();
            return IntKind::Signed;
        case AttributeProto::kSfixed32Val:
            s = a.sfixed32_val();
            return IntKind::Signed;
        case AttributeProto::kSfixed64Val:
            s = a.sfixed64_val();
            return IntKind::Signed;
        case AttributeProto::kUint32Val:
            u = a.uint32_val();
            return IntKind::Unsigned;
        case AttributeProto::kUint64Val:
            u = a.uint64_val();
            return IntKind::Unsigned;
        case AttributeProto::kFixed32Val:
            u = a.fixed32_val();
            return IntKind::Unsigned;
        case AttributeProto::kFixed64Val:
            u = a.fixed64_val();
            return IntKind::Unsigned;
        default:
            return IntKind::NotIntegral;
    }
}

}  // namespace

NodeDecoder::NodeDecoder(RankTrace& trace, uint32_t numRanks, const TraceReadOptions& options,
                         Diagnostics& diag)
    : m_trace(trace), m_numRanks(numRanks), m_options(options), m_diag(diag) {}

std::string NodeDecoder::where(Attr attr) const {
    return atAttribute(m_trace.path, m_nodeId, kAttrNames[attr]);
}

bool NodeDecoder::readUnsigned(Attr attr, uint64_t max, uint64_t& value) {
    const AttributeProto* a = m_attrs[attr];
    if (!a) {
        return true;
    }
    int64_t s = 0;
    uint64_t u = 0;
    switch (integralValue(*a, s, u)) {
        case IntKind::Signed:
            if (s < 0) {
                m_diag.error(where(attr) + ": negative value " + std::to_string(s) + "; expected 0.." +
                             std::to_string(max));
                return false;
            }
            u = static_cast<uint64_t>(s);
            break;
        case IntKind::Unsigned:
            break;
        case IntKind::NotIntegral:
            m_diag.error(where(attr) + ": expected an integer, found " + valueCaseName(*a));
            return false;
    }
    if (u > max) {
        m_diag.error(where(attr) + ": value " + std::to_string(u) + " out of range; expected 0.." +
                     std::to_string(max));
        return false;
    }
    value = u;
    return true;
}

bool NodeDecoder::requireUnsigned(Attr attr, uint64_t max, uint64_t& value) {
    if (!m_attrs[attr]) {
        m_diag.error(where(attr) + ": missing; " + std::string(toString(m_nodeType)) +
                     " requires it (an integer 0.." + std::to_string(max) + ")");
        return false;
    }
    return readUnsigned(attr, max, value);
}

bool NodeDecoder::readFlag(Attr attr, bool& value) {
    const AttributeProto* a = m_attrs[attr];
    if (!a) {
        return true;
    }
    if (a->value_case() == AttributeProto::kBoolVal) {
        value = a->bool_val();
        return true;
    }
    int64_t s = 0;
    uint64_t u = 0;
    switch (integralValue(*a, s, u)) {
        case IntKind::Signed:
            if (s == 0 || s == 1) {
                value = s == 1;
                return true;
            }
            m_diag.error(where(attr) + ": value " + std::to_string(s) +
                         "; expected bool_val or an integer 0/1");
            return false;
        case IntKind::Unsigned:
            if (u <= 1) {
                value = u == 1;
                return true;
            }
            m_diag.error(where(attr) + ": value " + std::to_string(u) +
                         "; expected bool_val or an integer 0/1");
            return false;
        case IntKind::NotIntegral:
            break;
    }
    m_diag.error(where(attr) + ": expected bool_val or an integer 0/1, found " + valueCaseName(*a));
    return false;
}

bool NodeDecoder::readGroup(GroupId& group) {
    group = kWorldGroup;
    if (const AttributeProto* a = m_attrs[kPgName]) {
        if (a->value_case() != AttributeProto::kStringVal) {
            m_diag.error(where(kPgName) + ": expected string_val holding a decimal group id, found " +
                         valueCaseName(*a));
            return false;
        }
        GroupId id = 0;
        if (!a->string_val().empty() && !parseDecimal(a->string_val(), id)) {
            m_diag.error(
                where(kPgName) + ": '" + a->string_val() +
                "' is not a decimal communicator id (expected e.g. \"0\" for the world group or \"1\")");
            return false;
        }
        group = static_cast<GroupId>(id);
        return true;
    }
    if (m_attrs[kCommGroup] && m_options.commGroupAlias) {
        uint64_t id = 0;
        if (!readUnsigned(kCommGroup, std::numeric_limits<GroupId>::max(), id)) {
            return false;
        }
        group = static_cast<GroupId>(id);
    }
    return true;
}

bool NodeDecoder::readInvolvedDims(uint32_t& mask) {
    mask = std::numeric_limits<uint32_t>::max();
    const AttributeProto* a = m_attrs[kInvolvedDim];
    if (!a) {
        return true;
    }
    if (a->value_case() != AttributeProto::kBoolList) {
        m_diag.error(where(kInvolvedDim) + ": expected bool_list, found " + valueCaseName(*a));
        return false;
    }
    const auto& values = a->bool_list().values();
    if (values.size() > 32) {
        m_diag.error(where(kInvolvedDim) + ": " + std::to_string(values.size()) +
                     " entries; at most 32 dimensions are supported");
        return false;
    }
    mask = 0;
    for (int d = 0; d < values.size(); ++d) {
        if (values[d]) {
            mask |= 1u << d;
        }
    }
    // Dimensions beyond the list are not involved, as an explicit list names every dimension.
    return true;
}

bool NodeDecoder::readPeer(Attr attr, Rank& peer) {
    uint64_t value = 0;
    if (!requireUnsigned(attr, std::numeric_limits<Rank>::max(), value)) {
        return false;
    }
    if (m_numRanks != 0 && value >= m_numRanks) {
        m_diag.error(where(attr) + ": rank " + std::to_string(value) + " does not exist; expected 0.." +
                     std::to_string(m_numRanks - 1));
        return false;
    }
    peer = static_cast<Rank>(value);
    return true;
}

bool NodeDecoder::checkOwnRank(Attr attr) {
    uint64_t value = m_trace.rank;
    if (!readUnsigned(attr, std::numeric_limits<Rank>::max(), value)) {
        return false;
    }
    if (value != m_trace.rank) {
        m_diag.error(where(attr) + ": is " + std::to_string(value) + " but this file is rank " +
                     std::to_string(m_trace.rank) + " (a " + (attr == kCommSrc ? "SEND" : "RECV") +
                     " must be issued by its " + (attr == kCommSrc ? "source" : "destination") + ")");
        return false;
    }
    return true;
}

bool NodeDecoder::decodeProcessGroups(const ChakraProtoMsg::Node& record) {
    const std::string& payload = record.inputs().values();
    if (payload.empty()) {
        return true;
    }
    const std::string where = atNode(m_trace.path, m_nodeId) + ": process-group payload (inputs.values)";
    // The PyTorch converter stores the JSON list as a Python repr of a one-element list of strings:
    // ['<json>'].
    if (payload.size() < 4 || payload.compare(0, 2, "['") != 0 ||
        payload.compare(payload.size() - 2, 2, "']") != 0) {
        m_diag.error(where + ": expected the form ['[{\"pg_name\": ..., \"ranks\": [...]}, ...]']");
        return false;
    }
    nlohmann::json groups = nlohmann::json::parse(payload.begin() + 2, payload.end() - 2, nullptr, false);
    if (groups.is_discarded() || !groups.is_array()) {
        m_diag.error(where + ": the text inside ['...'] is not a JSON list");
        return false;
    }
    bool ok = true;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const auto& entry = groups[i];
        const std::string item = where + ": entry " + std::to_string(i);
        if (!entry.is_object() || !entry.contains("pg_name") || !entry["pg_name"].is_string() ||
            !entry.contains("ranks") || !entry["ranks"].is_array()) {
            m_diag.error(item + ": expected an object with string \"pg_name\" and list \"ranks\"");
            ok = false;
            continue;
        }
        GroupId id = 0;
        if (!parseDecimal(entry["pg_name"].get<std::string>(), id)) {
            m_diag.error(item + ": pg_name '" + entry["pg_name"].get<std::string>() +
                         "' is not a decimal id");
            ok = false;
            continue;
        }
        DeclaredGroup group{static_cast<GroupId>(id), {}, m_nodeId};
        for (const auto& r : entry["ranks"]) {
            if (!r.is_number_unsigned() || r.get<uint64_t>() > std::numeric_limits<Rank>::max()) {
                m_diag.error(item + ": ranks must be non-negative integers, found " + briefJson(r));
                ok = false;
                break;
            }
            group.ranks.push_back(r.get<Rank>());
        }
        m_trace.declaredGroups.push_back(std::move(group));
    }
    return ok;
}

bool NodeDecoder::decode(const ChakraProtoMsg::Node& record) {
    m_nodeId = record.id();
    TraceNode node;
    node.id = record.id();
    node.durationMicros = record.duration_micros();

    const int rawType = record.type();
    if (rawType < 0 || rawType >= kNumNodeTypes) {
        if (!m_options.skipUnknownNodeTypes) {
            m_diag.error(atNode(m_trace.path, m_nodeId) + ": unknown node type " + std::to_string(rawType) +
                         " (expected 0..7, INVALID_NODE..COMM_COLL_NODE)");
            return false;
        }
        m_diag.warning(atNode(m_trace.path, m_nodeId) + ": unknown node type " + std::to_string(rawType) +
                       " treated as INVALID_NODE");
        node.type = NodeType::Invalid;
    } else {
        node.type = static_cast<NodeType>(rawType);
    }
    m_nodeType = node.type;

    std::fill(std::begin(m_attrs), std::end(m_attrs), nullptr);
    for (const AttributeProto& a : record.attr()) {
        for (int k = 0; k < kNumAttrs; ++k) {
            // The first attribute of a name wins, as in ASTRA-sim's linear lookup.
            if (!m_attrs[k] && a.name() == kAttrNames[k]) {
                m_attrs[k] = &a;
                break;
            }
        }
    }

    bool ok = true;
    bool cpuOp = false;
    ok &= readFlag(kIsCpuOp, cpuOp);
    if (cpuOp) {
        node.flags |= TraceNode::kCpuOp;
    }

    const bool isComm =
        node.type == NodeType::Send || node.type == NodeType::Recv || node.type == NodeType::Collective;
    if (isComm && cpuOp) {
        if (m_options.strict) {
            m_diag.error(atNode(m_trace.path, m_nodeId) + ": " + std::string(toString(node.type)) +
                         " with is_cpu_op true; communication must run on the GPU (strict mode)");
            ok = false;
        } else {
            if (m_cpuSideCommNodes++ == 0) {
                m_firstCpuSideCommNode = m_nodeId;
            }
            node.flags |= TraceNode::kCpuSideComm;
        }
    }

    uint64_t value = 0;
    if (m_attrs[kTensorSize]) {
        ok &= readUnsigned(kTensorSize, std::numeric_limits<uint64_t>::max(), node.tensorSizeBytes);
        node.flags |= TraceNode::kHasTensorSize;
    }
    if (m_attrs[kNumOps]) {
        ok &= readUnsigned(kNumOps, std::numeric_limits<uint64_t>::max(), node.numOps);
        node.flags |= TraceNode::kHasNumOps;
    }

    if (!node.isCpuSideComm()) {
        switch (node.type) {
            case NodeType::MemLoad:
            case NodeType::MemStore:
                ok &=
                    requireUnsigned(kTensorSize, std::numeric_limits<uint64_t>::max(), node.tensorSizeBytes);
                break;
            case NodeType::Collective:
                if (requireUnsigned(kCommType, kNumCollectiveTypes - 1, value)) {
                    node.collective = static_cast<CollectiveType>(value);
                    if (m_options.strict && node.collective != CollectiveType::AllReduce &&
                        node.collective != CollectiveType::AllGather &&
                        node.collective != CollectiveType::ReduceScatter &&
                        node.collective != CollectiveType::AllToAll &&
                        node.collective != CollectiveType::Broadcast) {
                        m_diag.error(where(kCommType) + ": " + std::string(toString(node.collective)) +
                                     " is not supported by ASTRA-sim (strict mode)");
                        ok = false;
                    }
                } else {
                    ok = false;
                }
                ok &= requireUnsigned(kCommSize, std::numeric_limits<uint64_t>::max(), node.commSizeBytes);
                if (readUnsigned(kCommPriority, std::numeric_limits<uint32_t>::max(), value)) {
                    node.priority = static_cast<uint32_t>(value);
                } else {
                    ok = false;
                }
                ok &= readGroup(node.group);
                ok &= readInvolvedDims(node.involvedDims);
                if (m_attrs[kCommGroup] && !m_attrs[kPgName] && !m_options.commGroupAlias) {
                    m_diag.warning(where(kCommGroup) +
                                   ": legacy communicator attribute ignored (world group used); "
                                   "enable the comm_group alias to honour it");
                }
                break;
            case NodeType::Send:
                ok &= checkOwnRank(kCommSrc);
                ok &= readPeer(kCommDst, node.peer);
                ok &= requireUnsigned(kCommSize, std::numeric_limits<uint64_t>::max(), node.commSizeBytes);
                ok &= requireUnsigned(kCommTag, std::numeric_limits<uint64_t>::max(), node.tag);
                break;
            case NodeType::Recv:
                ok &= checkOwnRank(kCommDst);
                ok &= readPeer(kCommSrc, node.peer);
                ok &= requireUnsigned(kCommSize, std::numeric_limits<uint64_t>::max(), node.commSizeBytes);
                ok &= requireUnsigned(kCommTag, std::numeric_limits<uint64_t>::max(), node.tag);
                break;
            case NodeType::Metadata:
                ok &= decodeProcessGroups(record);
                break;
            case NodeType::Invalid:
            case NodeType::Compute:
                break;
        }
    }

    if (m_options.keepNames && !record.name().empty()) {
        if (m_trace.names.size() + record.name().size() > std::numeric_limits<uint32_t>::max()) {
            m_diag.error(atNode(m_trace.path, m_nodeId) + ": node names exceed 4 GiB in total");
            return false;
        }
        node.nameOffset = static_cast<uint32_t>(m_trace.names.size());
        node.nameLength = static_cast<uint32_t>(record.name().size());
        m_trace.names += record.name();
    }
    if (ok) {
        m_trace.nodes.push_back(node);
    }
    return ok;
}

}  // namespace mlnet

#include "timeline.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace mlnet {

namespace {

enum Thread : int { kCompute = 1, kCommunication = 2, kMemory = 3, kCpu = 4, kMessages = 5 };

const char* threadName(int thread) {
    switch (thread) {
        case kCompute:
            return "compute";
        case kCommunication:
            return "communication";
        case kMemory:
            return "memory";
        case kCpu:
            return "cpu";
        default:
            return "messages sent";
    }
}

// Trace-event times are microseconds; three decimals keep every nanosecond.
std::string micros(TimeNs ns) {
    char text[32];
    std::snprintf(text, sizeof text, "%llu.%03llu", static_cast<unsigned long long>(ns / 1000),
                  static_cast<unsigned long long>(ns % 1000));
    return text;
}

}  // namespace

Timeline::Timeline(const std::string& path, const TraceSet& traces, uint64_t maxMessages, Diagnostics& diag)
    : m_traces(traces), m_file(path, diag), m_maxMessages(maxMessages) {
    m_buffer = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
    m_startNs.resize(traces.numRanks());
    for (Rank r = 0; r < traces.numRanks(); ++r) {
        m_startNs[r].assign(traces.ranks[r].nodes.size(), 0);
        emit("{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " + std::to_string(r) +
             ", \"args\": {\"name\": \"rank " + std::to_string(r) + "\"}}");
        emit("{\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": " + std::to_string(r) +
             ", \"args\": {\"sort_index\": " + std::to_string(r) + "}}");
        for (int t = kCompute; t <= kMessages; ++t) {
            emit("{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " + std::to_string(r) +
                 ", \"tid\": " + std::to_string(t) + ", \"args\": {\"name\": \"" + threadName(t) + "\"}}");
        }
    }
}

Timeline::~Timeline() = default;

void Timeline::emit(const std::string& event) {
    if (!m_first) {
        m_buffer += ",\n";
    }
    m_first = false;
    m_buffer += event;
    if (m_buffer.size() > (1u << 20)) {
        m_file.write(m_buffer);
        m_buffer.clear();
    }
}

void Timeline::slice(Rank rank, int thread, const std::string& name, const char* category, TimeNs startNs,
                     TimeNs endNs, const std::string& args) {
    emit("{\"ph\": \"X\", \"pid\": " + std::to_string(rank) + ", \"tid\": " + std::to_string(thread) +
         ", \"name\": " + nlohmann::json(name).dump() + ", \"cat\": \"" + category +
         "\", \"ts\": " + micros(startNs) + ", \"dur\": " + micros(endNs - startNs) +
         (args.empty() ? "" : ", \"args\": {" + args + "}") + "}");
}

void Timeline::nodeStarted(Rank rank, const TraceNode& node, TimeNs atNs) {
    m_startNs[rank][&node - m_traces.ranks[rank].nodes.data()] = atNs;
}

void Timeline::nodeFinished(Rank rank, const TraceNode& node, TimeNs atNs) {
    const RankTrace& trace = m_traces.ranks[rank];
    const TimeNs start = m_startNs[rank][&node - trace.nodes.data()];
    std::string name(trace.names.data() + node.nameOffset, node.nameLength);
    std::string args = "\"node\": " + std::to_string(node.id);
    int thread = kCompute;
    const char* category = "compute";
    if (node.isCpuOp() || node.isCpuSideComm()) {
        thread = kCpu;
        category = "cpu";
    } else if (node.type == NodeType::Collective || node.type == NodeType::Send ||
               node.type == NodeType::Recv) {
        thread = kCommunication;
        category = "communication";
        args += ", \"bytes\": " + std::to_string(node.commSizeBytes);
        if (node.type == NodeType::Collective) {
            args += ", \"collective\": \"" + std::string(toString(node.collective)) +
                    "\", \"communicator\": " + std::to_string(node.group);
        } else {
            args += std::string(", \"") + (node.type == NodeType::Send ? "to" : "from") +
                    "\": " + std::to_string(node.peer) + ", \"tag\": " + std::to_string(node.tag);
        }
    } else if (node.type == NodeType::MemLoad || node.type == NodeType::MemStore) {
        thread = kMemory;
        category = "memory";
        args += ", \"bytes\": " + std::to_string(node.tensorSizeBytes);
    } else if (node.type != NodeType::Compute) {
        return;  // metadata and invalid nodes take no time
    }
    if (name.empty()) {
        name = std::string(toString(node.type));
    }
    slice(rank, thread, name, category, start, atNs, args);
}

void Timeline::message(Rank rank, Rank peer, uint64_t sizeBytes, TimeNs startNs, TimeNs endNs) {
    const uint32_t ranks = m_traces.numRanks();
    if (rank >= ranks) {
        return;  // a switch's reduction engine sends: the ranks' own rows show the exchange
    }
    if (m_messages++ >= m_maxMessages) {
        ++m_messagesLeftOut;
        return;
    }
    const std::string to = peer < ranks ? "to rank " + std::to_string(peer)
                                        : "to reduction engine " + std::to_string(peer - ranks);
    slice(rank, kMessages, to, "message", startNs, endNs, "\"bytes\": " + std::to_string(sizeBytes));
}

void Timeline::networkSpan(const std::string& name, TimeNs startNs, TimeNs endNs, const std::string& args) {
    const std::string pid = std::to_string(m_traces.numRanks());
    if (!m_networkNamed) {
        m_networkNamed = true;
        emit("{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " + pid +
             ", \"args\": {\"name\": \"network\"}}");
        emit("{\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": " + pid +
             ", \"args\": {\"sort_index\": " + pid + "}}");
    }
    emit("{\"ph\": \"X\", \"pid\": " + pid + ", \"tid\": 0, \"name\": " + nlohmann::json(name).dump() +
         ", \"cat\": \"network\", \"ts\": " + micros(startNs) + ", \"dur\": " + micros(endNs - startNs) +
         (args.empty() ? "" : ", \"args\": {" + args + "}") + "}");
}

bool Timeline::close() {
    m_buffer += "\n]}\n";
    const bool ok = m_file.write(m_buffer) && m_file.commit();
    m_buffer.clear();
    return ok;
}

}  // namespace mlnet

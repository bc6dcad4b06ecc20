// Outputs of the packet runs in the HPCC reference simulator's formats (fct.txt: sip dip sport dport size
// start_ns fct_ns ideal_fct_ns with hex IPv4 addresses; pfc.txt: time_ns node node_type port pause), so the
// reference's analysis scripts (analysis/fct_analysis.py) read them unchanged, and our queue-sample and rate
// lines. Every file is streamed while the run goes (nothing kept per record) through an AtomicFile: it
// appears whole at commit(), and an interrupted run never leaves a truncated file that looks complete.
#ifndef MLNET_ROCE_RESULT_WRITERS_H
#define MLNET_ROCE_RESULT_WRITERS_H

#include <cstdint>
#include <string>
#include <string_view>

#include "util/atomic-file.h"
#include "util/diagnostics.h"

namespace mlnet::roce {

struct FctRecord {
    uint32_t srcNode, dstNode;  // node ids of the topology file
    uint16_t sport, dport;
    uint64_t sizeBytes, startNs, fctNs, idealFctNs;
};

struct PfcRecord {
    uint64_t timeNs;
    uint32_t nodeId;
    uint8_t nodeType;  // 0 host, 1 switch
    uint32_t ifIndex;  // the reference's: 1-based (its device 0 is the loopback)
    bool pause;        // false: resume
};

// "sip dip sport dport size start_ns fct_ns standalone_fct_ns\n" with the addresses as %08x, e.g.
// "0b000001 0b000101 10000 100 4000000 2000000000 345678 331234\n".
// Written into `out` (kMaxLineBytes at least), without printf or allocation: one line per message of a run.
// Each write*Line returns the line's length.
std::size_t writeFctLine(const FctRecord& record, char* out);
// "time_ns node_id node_type ifindex 1|0\n" (1 pause, 0 resume).
std::size_t writePfcLine(const PfcRecord& record, char* out);

// "time_ns switch_node_id port queue_bytes\n": a switch port's egress queue (all classes) at a dequeue.
struct QueueSampleRecord {
    uint64_t timeNs;
    uint32_t nodeId, port;
    uint64_t bytes;
};
std::size_t writeQueueSampleLine(const QueueSampleRecord& record, char* out);
// Room enough for any line above.
inline constexpr std::size_t kMaxLineBytes = 192;

// Lines written as they come, in 1 MiB batches, to an AtomicFile: the file appears at commit() only.
class LineStream {
public:
    LineStream(const std::string& path, Diagnostics& diag) : m_file(path, diag) {}
    void add(std::string_view line);
    // Writes what is buffered and renames the file into place; false (reported) on any failure.
    bool commit();
    uint64_t lines() const { return m_lines; }

private:
    AtomicFile m_file;
    std::string m_buffer;
    uint64_t m_lines = 0;
};

template <typename Record, std::size_t (*Write)(const Record&, char*)>
class RecordStream : public LineStream {
public:
    using LineStream::LineStream;
    void add(const Record& record) {
        char line[kMaxLineBytes];
        LineStream::add(std::string_view(line, Write(record, line)));
    }
};
using FctStream = RecordStream<FctRecord, writeFctLine>;                          // completion order
using PfcStream = RecordStream<PfcRecord, writePfcLine>;                          // event order
using QueueSampleStream = RecordStream<QueueSampleRecord, writeQueueSampleLine>;  // time order

// As writeFileAtomically, for JSON summaries: the text must parse as JSON (an error otherwise, and nothing is
// written), and a final newline is added when missing.
bool writeJsonAtomically(const std::string& path, std::string jsonText, Diagnostics& diag);

// One link of a path, in the direction of the data.
struct PathHop {
    uint64_t rateBps;
    uint64_t delayNs;
};

// Base RTT of a path: its propagation delay both ways plus one frame of frameBytes serialized at every hop
// (the store-and-forward delay of the first packet). ACK serialization is not counted, as in the reference;
// frameBytes should be the full on-wire size of an MTU frame (payload plus all per-packet overhead).
uint64_t baseRttNs(const std::vector<PathHop>& path, uint64_t frameBytes);

// The slowest link rate of a path (0 for an empty path).
uint64_t bottleneckRateBps(const std::vector<PathHop>& path);

// Standalone ("ideal") FCT of fct.txt: baseRttNs + (size + packets × overhead) × 8 / bottleneck rate, with
// packets = ceil(size / payload). The overhead is a parameter because we use real RoCEv2 per-packet
// overheads, not the reference's 36 B (PPP framing). 64/128-bit arithmetic throughout (the reference
// overflows at 4 GiB); the division rounds down as in the reference; the result saturates at UINT64_MAX,
// which is also returned for a zero rate or a zero payload.
uint64_t idealFctNs(uint64_t sizeBytes, uint64_t baseRttNs, uint64_t bottleneckRateBps,
                    uint32_t payloadBytesPerPacket, uint32_t overheadBytesPerPacket);

}  // namespace mlnet::roce

#endif

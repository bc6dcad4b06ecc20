// Nanosecond pcap (magic 0xa1b23c4d, DLT_EN10MB) of serialized frames, readable by Wireshark and tshark. The
// capture is written to "<path>.tmp" and renamed to path only by close(), so a run that dies never leaves a
// file that looks complete.
#ifndef MLNET_ROCE_PCAP_WRITER_H
#define MLNET_ROCE_PCAP_WRITER_H

#include <cstdint>
#include <cstdio>
#include <string>

#include "wire-format.h"

namespace mlnet::roce {

class PcapWriter {
public:
    // Frames are cut to snapLen bytes (their original length is kept in the record). Throws
    // std::runtime_error naming the path if the file cannot be created.
    explicit PcapWriter(const std::string& path, uint32_t snapLen = 256);
    PcapWriter(const PcapWriter&) = delete;
    PcapWriter& operator=(const PcapWriter&) = delete;
    // Without close(), the temporary file is removed: an unwinding run must not publish a partial capture.
    ~PcapWriter();

    // timeNs is simulated time since the start of the run. Throws std::runtime_error on a write error and
    // std::logic_error after close().
    void write(TimeNs timeNs, const SerializedFrame& frame);
    // Flushes and renames the capture into place; throws std::runtime_error naming the path on failure.
    void close();

    const std::string& path() const { return m_path; }
    uint64_t frames() const { return m_frames; }

private:
    void put(const void* data, std::size_t bytes);
    void fail(const std::string& what);

    std::string m_path;
    std::string m_tmpPath;
    uint32_t m_snapLen;
    std::FILE* m_file = nullptr;
    uint64_t m_frames = 0;
};

}  // namespace mlnet::roce

#endif

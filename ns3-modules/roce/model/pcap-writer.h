// Nanosecond pcap (magic 0xa1b23c4d, DLT_EN10MB) of serialized frames, readable by Wireshark and tshark,
// written through an AtomicFile: the capture appears at its path only when close() succeeds, never half
// written after a failure or a termination signal.
#ifndef MLNET_ROCE_PCAP_WRITER_H
#define MLNET_ROCE_PCAP_WRITER_H

#include <cstdint>
#include <string>

#include "util/atomic-file.h"
#include "util/diagnostics.h"
#include "wire-format.h"

namespace mlnet::roce {

class PcapWriter {
public:
    // Frames are cut to snapLen bytes (their original length is kept in the record). Errors (creating,
    // writing, committing the file) go to diag naming the path; after one, frames are dropped and close()
    // returns false.
    PcapWriter(const std::string& path, Diagnostics& diag, uint32_t snapLen = 256);
    PcapWriter(const PcapWriter&) = delete;
    PcapWriter& operator=(const PcapWriter&) = delete;

    bool ok() const { return m_file.ok(); }
    // timeNs is simulated time since the start of the run.
    void write(TimeNs timeNs, const SerializedFrame& frame);
    // Writes what is buffered and puts the capture in place; false (reported) on failure. Without it the
    // capture is discarded.
    bool close();

    uint64_t frames() const { return m_frames; }

private:
    void flush();

    AtomicFile m_file;
    uint32_t m_snapLen;
    std::string m_buffer;
    uint64_t m_frames = 0;
    bool m_closed = false;
};

}  // namespace mlnet::roce

#endif

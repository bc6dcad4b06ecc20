// Splits a Chakra ET file into its varint-length-prefixed records. The whole file is loaded (and gunzipped
// when it starts with the gzip magic) into memory once; records are then views into that buffer, so reading
// costs no per-record allocation.
#ifndef MLNET_WORKLOAD_RECORD_STREAM_H
#define MLNET_WORKLOAD_RECORD_STREAM_H

#include <cstdint>
#include <string>
#include <vector>

#include "util/diagnostics.h"

namespace mlnet {

struct Record {
    const uint8_t* data = nullptr;
    uint32_t sizeBytes = 0;
    uint64_t offset = 0;  // byte offset of the length prefix (in the decompressed stream for gzip input)
};

// Reads a whole file. On failure reports an error naming the file and returns false.
bool loadFileBytes(const std::string& path, std::vector<uint8_t>& bytes, Diagnostics& diag);

class RecordStream {
public:
    struct Options {
        bool allowGzip = true;
        uint32_t maxRecordBytes = 256u << 20;
        uint64_t maxDecompressedBytes = 64ull << 30;
    };

    // Takes the file's bytes; `label` names the source in messages. Returns false (reported) if they are
    // unusable.
    bool openBuffer(std::vector<uint8_t> bytes, const std::string& label, const Options& options,
                    Diagnostics& diag);

    enum class Status { Record, End, Error };
    // Next record, End at a clean end of input, or Error (reported, naming the byte offset) on bad framing.
    Status next(Record& record, Diagnostics& diag);

    const std::string& label() const { return m_label; }
    bool wasGzip() const { return m_gzip; }
    uint64_t sizeBytes() const { return m_bytes.size(); }

private:
    std::vector<uint8_t> m_bytes;
    std::string m_label;
    Options m_options;
    uint64_t m_pos = 0;
    bool m_gzip = false;
};

}  // namespace mlnet

#endif

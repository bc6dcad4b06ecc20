#include "record-stream.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace mlnet {

namespace {

bool isGzip(const std::vector<uint8_t>& bytes) {
    return bytes.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
}

// Inflates a complete gzip stream (concatenated members included). Returns an empty string on success, else
// why not.
std::string gunzip(const std::vector<uint8_t>& in, uint64_t maxOutBytes, std::vector<uint8_t>& out) {
    z_stream zs{};
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
        return "cannot initialise zlib";
    }
    out.clear();
    out.resize(std::max<std::size_t>(in.size() * 4, 1 << 16));
    std::size_t inPos = 0;
    std::size_t outPos = 0;
    std::string failure;
    while (true) {
        if (outPos == out.size()) {
            if (out.size() >= maxOutBytes) {
                failure = "decompressed size exceeds the limit of " + std::to_string(maxOutBytes) + " bytes";
                break;
            }
            out.resize(std::min<uint64_t>(out.size() * 2, maxOutBytes));
        }
        // zlib counts in uInt: feed at most 1 GiB per call.
        zs.next_in = const_cast<Bytef*>(in.data() + inPos);
        zs.avail_in = static_cast<uInt>(std::min<std::size_t>(in.size() - inPos, 1u << 30));
        zs.next_out = out.data() + outPos;
        zs.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size() - outPos, 1u << 30));
        uInt availIn = zs.avail_in;
        uInt availOut = zs.avail_out;
        int rc = inflate(&zs, Z_NO_FLUSH);
        inPos += availIn - zs.avail_in;
        outPos += availOut - zs.avail_out;
        if (rc == Z_STREAM_END) {
            if (inPos == in.size()) {
                break;
            }
            inflateReset(&zs);  // another gzip member follows
            continue;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            failure = std::string("corrupt gzip data near compressed byte ") + std::to_string(inPos) + " (" +
                      (zs.msg ? zs.msg : "zlib error") + ")";
            break;
        }
        if (inPos == in.size() && zs.avail_out != 0) {
            failure = "gzip stream ends early (truncated at compressed byte " + std::to_string(inPos) + ")";
            break;
        }
    }
    inflateEnd(&zs);
    out.resize(outPos);
    return failure;
}

}  // namespace

bool loadFileBytes(const std::string& path, std::vector<uint8_t>& bytes, Diagnostics& diag) {
    if (!checkReadableFile(path, diag, "trace")) {
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        diag.error(path + ": cannot open trace file (" + std::strerror(errno) + ")");
        return false;
    }
    in.seekg(0, std::ios::end);
    std::streamoff size = in.tellg();
    in.seekg(0, std::ios::beg);
    if (size < 0) {
        diag.error(path + ": cannot determine the file size (not a regular file?)");
        return false;
    }
    bytes.resize(static_cast<std::size_t>(size));
    if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size)) {
        diag.error(path + ": read error");
        return false;
    }
    return true;
}

bool RecordStream::openBuffer(std::vector<uint8_t> bytes, const std::string& label, const Options& options,
                              Diagnostics& diag) {
    m_label = label;
    m_options = options;
    m_pos = 0;
    m_gzip = isGzip(bytes);
    if (m_gzip) {
        if (!options.allowGzip) {
            diag.error(atOffset(label, 0) +
                       ": gzip-compressed trace (magic 1f 8b) but gzip input is disabled");
            return false;
        }
        std::string failure = gunzip(bytes, options.maxDecompressedBytes, m_bytes);
        if (!failure.empty()) {
            diag.error(label + ": " + failure);
            return false;
        }
    } else {
        m_bytes = std::move(bytes);
    }
    if (m_bytes.empty()) {
        diag.error(atOffset(label, 0) + ": empty trace file; expected a GlobalMetadata record first");
        return false;
    }
    return true;
}

RecordStream::Status RecordStream::next(Record& record, Diagnostics& diag) {
    const uint64_t size = m_bytes.size();
    if (m_pos == size) {
        return Status::End;
    }
    const uint64_t start = m_pos;
    uint64_t length = 0;
    int shift = 0;
    uint64_t pos = m_pos;
    while (true) {
        if (pos == size) {
            diag.error(atOffset(m_label, start) + ": truncated record length (file ends inside the varint)");
            return Status::Error;
        }
        if (pos - start == 5) {
            diag.error(atOffset(m_label, start) + ": record length varint longer than 5 bytes");
            return Status::Error;
        }
        uint8_t byte = m_bytes[pos++];
        length |= static_cast<uint64_t>(byte & 0x7f) << shift;
        shift += 7;
        if (!(byte & 0x80)) {
            break;
        }
    }
    if (length > 0xffffffffull) {
        diag.error(atOffset(m_label, start) + ": record length " + std::to_string(length) +
                   " does not fit in 32 bits");
        return Status::Error;
    }
    if (length > m_options.maxRecordBytes) {
        diag.error(atOffset(m_label, start) + ": record length " + std::to_string(length) +
                   " bytes exceeds the limit of " + std::to_string(m_options.maxRecordBytes) + " bytes");
        return Status::Error;
    }
    if (length > size - pos) {
        diag.error(atOffset(m_label, start) + ": truncated record: length " + std::to_string(length) +
                   " but only " + std::to_string(size - pos) + " bytes remain in the file");
        return Status::Error;
    }
    record.data = m_bytes.data() + pos;
    record.sizeBytes = static_cast<uint32_t>(length);
    record.offset = start;
    m_pos = pos + length;
    return Status::Record;
}

}  // namespace mlnet

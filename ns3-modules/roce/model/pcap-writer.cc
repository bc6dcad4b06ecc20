#include "pcap-writer.h"

#include <algorithm>

namespace mlnet::roce {

namespace {

constexpr uint32_t kPcapMagicNs = 0xA1B23C4D;
constexpr uint16_t kPcapVersionMajor = 2;
constexpr uint16_t kPcapVersionMinor = 4;
constexpr uint32_t kLinkTypeEthernet = 1;
constexpr std::size_t kBufferBytes = 1 << 20;

// Fields are written little-endian whatever the host, so captures are byte-identical across machines.
void le16(std::string& out, uint16_t v) {
    out.push_back(static_cast<char>(v));
    out.push_back(static_cast<char>(v >> 8));
}
void le32(std::string& out, uint32_t v) {
    le16(out, static_cast<uint16_t>(v));
    le16(out, static_cast<uint16_t>(v >> 16));
}

}  // namespace

PcapWriter::PcapWriter(const std::string& path, Diagnostics& diag, uint32_t snapLen)
    : m_file(path, diag), m_snapLen(std::max<uint32_t>(snapLen, 1)) {
    m_buffer.reserve(kBufferBytes + 512);
    le32(m_buffer, kPcapMagicNs);
    le16(m_buffer, kPcapVersionMajor);
    le16(m_buffer, kPcapVersionMinor);
    le32(m_buffer, 0);  // thiszone
    le32(m_buffer, 0);  // sigfigs
    le32(m_buffer, m_snapLen);
    le32(m_buffer, kLinkTypeEthernet);
}

void PcapWriter::write(TimeNs timeNs, const SerializedFrame& frame) {
    if (m_closed || !m_file.ok()) {
        return;
    }
    const uint32_t captured = std::min<uint32_t>(static_cast<uint32_t>(frame.bytes.size()), m_snapLen);
    le32(m_buffer, static_cast<uint32_t>(timeNs / 1'000'000'000ULL));
    le32(m_buffer, static_cast<uint32_t>(timeNs % 1'000'000'000ULL));
    le32(m_buffer, captured);
    le32(m_buffer, std::max<uint32_t>(frame.originalLength, captured));
    m_buffer.append(reinterpret_cast<const char*>(frame.bytes.data()), captured);
    ++m_frames;
    if (m_buffer.size() >= kBufferBytes) {
        flush();
    }
}

void PcapWriter::flush() {
    m_file.write(m_buffer);  // a failure is reported once and remembered by the file
    m_buffer.clear();
}

bool PcapWriter::close() {
    if (m_closed) {
        return m_file.ok();
    }
    m_closed = true;
    flush();
    return m_file.commit();
}

}  // namespace mlnet::roce

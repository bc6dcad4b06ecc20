#include "pcap-writer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace mlnet::roce {

namespace {

constexpr uint32_t kPcapMagicNs = 0xA1B23C4D;
constexpr uint16_t kPcapVersionMajor = 2;
constexpr uint16_t kPcapVersionMinor = 4;
constexpr uint32_t kLinkTypeEthernet = 1;

// Fields are written little-endian whatever the host, so captures are byte-identical across machines.
void le16(uint8_t* out, uint16_t v) {
    out[0] = static_cast<uint8_t>(v);
    out[1] = static_cast<uint8_t>(v >> 8);
}
void le32(uint8_t* out, uint32_t v) {
    le16(out, static_cast<uint16_t>(v));
    le16(out + 2, static_cast<uint16_t>(v >> 16));
}

}  // namespace

PcapWriter::PcapWriter(const std::string& path, uint32_t snapLen)
    : m_path(path), m_tmpPath(path + ".tmp"), m_snapLen(snapLen) {
    if (snapLen == 0) {
        throw std::invalid_argument("pcap '" + path + "': snapLen must be > 0");
    }
    m_file = std::fopen(m_tmpPath.c_str(), "wb");
    if (!m_file) {
        throw std::runtime_error("cannot create pcap '" + m_tmpPath + "': " + std::strerror(errno));
    }
    uint8_t header[24];
    le32(header, kPcapMagicNs);
    le16(header + 4, kPcapVersionMajor);
    le16(header + 6, kPcapVersionMinor);
    le32(header + 8, 0);   // thiszone
    le32(header + 12, 0);  // sigfigs
    le32(header + 16, snapLen);
    le32(header + 20, kLinkTypeEthernet);
    put(header, sizeof header);
}

PcapWriter::~PcapWriter() {
    if (m_file) {
        std::fclose(m_file);
        std::remove(m_tmpPath.c_str());
    }
}

void PcapWriter::write(TimeNs timeNs, const SerializedFrame& frame) {
    if (!m_file) {
        throw std::logic_error("pcap '" + m_path + "': write after close or a failed write");
    }
    const uint32_t captured = std::min<uint32_t>(static_cast<uint32_t>(frame.bytes.size()), m_snapLen);
    uint8_t record[16];
    le32(record, static_cast<uint32_t>(timeNs / 1'000'000'000ULL));
    le32(record + 4, static_cast<uint32_t>(timeNs % 1'000'000'000ULL));
    le32(record + 8, captured);
    le32(record + 12, std::max<uint32_t>(frame.originalLength, captured));
    put(record, sizeof record);
    put(frame.bytes.data(), captured);
    ++m_frames;
}

void PcapWriter::close() {
    if (!m_file) {
        throw std::logic_error("pcap '" + m_path + "': closed twice");
    }
    std::FILE* f = m_file;
    m_file = nullptr;
    if (std::fclose(f) != 0) {
        const std::string err = std::strerror(errno);
        std::remove(m_tmpPath.c_str());
        throw std::runtime_error("cannot write pcap '" + m_tmpPath + "': " + err);
    }
    if (std::rename(m_tmpPath.c_str(), m_path.c_str()) != 0) {
        const std::string err = std::strerror(errno);
        std::remove(m_tmpPath.c_str());
        throw std::runtime_error("cannot rename '" + m_tmpPath + "' to '" + m_path + "': " + err);
    }
}

void PcapWriter::put(const void* data, std::size_t bytes) {
    if (bytes != 0 && std::fwrite(data, 1, bytes, m_file) != bytes) {
        fail("cannot write pcap '" + m_tmpPath + "': " + std::strerror(errno));
    }
}

void PcapWriter::fail(const std::string& what) {
    std::fclose(m_file);
    m_file = nullptr;
    std::remove(m_tmpPath.c_str());
    throw std::runtime_error(what);
}

}  // namespace mlnet::roce

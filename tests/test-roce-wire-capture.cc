// RoCEv2 frames in pcap files, and tshark's decoding of every frame kind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "pcap-writer.h"
#include "roce-wire-test-util.h"
#include "trace-test-util.h"
#include "wire-format.h"

namespace mlnet::roce {
namespace {

uint32_t le32(const std::string& b, std::size_t at) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) {
        v = (v << 8) | static_cast<uint8_t>(b[at + i]);
    }
    return v;
}

TEST(RoceWirePcap, NanosecondHeaderAndRecords) {
    const std::string path = makeTempDir("roce-wire") + "/trace.pcap";
    Diagnostics diag;
    PcapWriter w(path, diag, 100);
    const SerializedFrame big = serializeFrame(dataPacket(0, 1000), [] {
        FrameContext ctx = context();
        ctx.maxPayloadInCapture = 1000;
        return ctx;
    }());
    w.write(3'000'000'123ULL, big);
    w.write(3'000'001'000ULL, serializeFrame(pausePacket(), context()));
    EXPECT_EQ(w.frames(), 2u);
    ASSERT_TRUE(w.close()) << diag.format(Severity::Error);

    const std::string f = readFileBytes(path);
    ASSERT_EQ(f.size(), 24u + 16 + 100 + 16 + 60);
    EXPECT_EQ(le32(f, 0), 0xA1B23C4Du);
    EXPECT_EQ(le32(f, 4), 0x00040002u);  // version 2.4
    EXPECT_EQ(le32(f, 16), 100u);        // snaplen
    EXPECT_EQ(le32(f, 20), 1u);          // Ethernet
    EXPECT_EQ(le32(f, 24), 3u);          // seconds
    EXPECT_EQ(le32(f, 28), 123u);        // nanoseconds
    EXPECT_EQ(le32(f, 32), 100u);        // captured, cut to snaplen
    EXPECT_EQ(le32(f, 36), 1058u);       // original
    EXPECT_EQ(f.substr(40, 100), std::string(big.bytes.begin(), big.bytes.begin() + 100));
    EXPECT_EQ(le32(f, 140 + 8), 60u);
    EXPECT_EQ(le32(f, 140 + 12), 60u);
}

TEST(RoceWirePcap, AppearsOnlyWhenClosed) {
    const std::string dir = makeTempDir("roce-wire");
    const std::string path = dir + "/a.pcap";
    Diagnostics diag;
    {
        PcapWriter w(path, diag);
        w.write(0, serializeFrame(cnpPacket(), context()));
        EXPECT_FALSE(std::filesystem::exists(path));
        ASSERT_TRUE(w.close()) << diag.format(Severity::Error);
        w.write(1, serializeFrame(cnpPacket(), context()));  // after close: dropped
        EXPECT_EQ(w.frames(), 1u);
    }
    EXPECT_TRUE(std::filesystem::exists(path));
    const std::string abandoned = dir + "/b.pcap";
    {
        PcapWriter w(abandoned, diag);
        w.write(0, serializeFrame(cnpPacket(), context()));
    }
    EXPECT_FALSE(std::filesystem::exists(abandoned));
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        (void)entry;
        ++files;
    }
    EXPECT_EQ(files, 1u) << "no temporary file is left";
}

TEST(RoceWirePcap, FailureNamesThePath) {
    const std::string dir = makeTempDir("roce-wire");
    Diagnostics missing;
    PcapWriter w(dir + "/missing/dir/c.pcap", missing);
    EXPECT_FALSE(w.ok());
    EXPECT_FALSE(w.close());
    EXPECT_THAT(missing.firstError(), ::testing::HasSubstr(dir + "/missing/dir/c.pcap: cannot create"));
    Diagnostics directory;
    PcapWriter d(dir, directory);
    EXPECT_FALSE(d.close());
    EXPECT_THAT(directory.firstError(), ::testing::HasSubstr("is a directory"));
}

// Runs a shell command and returns its standard output; fails the test on a non-zero exit.
std::string run(const std::string& command) {
    std::FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) {
        throw std::runtime_error("popen failed: " + command);
    }
    std::string out;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) {
        out.append(buf, n);
    }
    const int status = ::pclose(pipe);
    if (status != 0) {
        throw std::runtime_error("command failed (" + std::to_string(status) + "): " + command);
    }
    return out;
}

TEST(RoceWireTshark, DecodesEveryFrameKind) {
    if (std::system("command -v tshark >/dev/null 2>&1") != 0) {
        GTEST_SKIP() << "tshark is not installed";
    }
    const std::string dir = makeTempDir("roce-wire-tshark");
    const std::string path = dir + "/kinds.pcap";
    const FrameContext ctx = context();
    const SerializedFrame data = serializeFrame(dataPacket(7 * kMtu, 30), ctx);
    const SerializedFrame ack = serializeFrame(ackPacket(PacketKind::Ack, 8 * kMtu), ctx);
    const SerializedFrame nak = serializeFrame(ackPacket(PacketKind::Nack, 8 * kMtu), ctx);
    const SerializedFrame cnp = serializeFrame(cnpPacket(), ctx);
    const SerializedFrame big = serializeFrame(dataPacket((uint64_t{1} << 24) * kMtu + 5 * kMtu, kMtu), ctx);
    {
        Diagnostics diag;
        PcapWriter w(path, diag);
        w.write(1000, data);
        w.write(2000, ack);
        w.write(3000, nak);
        w.write(4000, cnp);
        w.write(5000, serializeFrame(pausePacket(), ctx));
        w.write(6000, big);
        ASSERT_TRUE(w.close()) << diag.format(Severity::Error);
    }

    const std::vector<std::string> fields = {"frame.protocols",
                                             "frame.len",
                                             "frame.cap_len",
                                             "ip.src",
                                             "ip.dst",
                                             "ip.dsfield.dscp",
                                             "ip.dsfield.ecn",
                                             "ip.checksum.status",
                                             "udp.dstport",
                                             "infiniband.bth.opcode",
                                             "infiniband.bth.destqp",
                                             "infiniband.bth.psn",
                                             "infiniband.bth.a",
                                             "infiniband.bth.padcnt",
                                             "infiniband.aeth.syndrome",
                                             "infiniband.aeth.msn",
                                             "infiniband.invariant.crc",
                                             "macc.opcode",
                                             "macc.cbfc.enbv",
                                             "macc.cbfc.pause_time.c3",
                                             "eth.dst"};
    std::string command =
        "tshark -r '" + path + "' -o ip.check_checksum:TRUE -T fields -E separator=, -E aggregator='|'";
    for (const std::string& f : fields) {
        command += " -e " + f;
    }
    const std::string errPath = dir + "/tshark.err";
    command += " 2>'" + errPath + "'";
    std::string printed;
    try {
        printed = run(command);
    } catch (const std::runtime_error& e) {
        FAIL() << e.what() << "\n" << readFileBytes(errPath);
    }
    std::istringstream out(printed);

    std::vector<std::map<std::string, std::string>> rows;
    std::string line;
    while (std::getline(out, line)) {
        std::map<std::string, std::string> row;
        std::istringstream cells(line);
        std::string cell;
        for (const std::string& f : fields) {
            std::getline(cells, cell, ',');
            row[f] = cell;
            cell.clear();
        }
        rows.push_back(row);
    }
    ASSERT_EQ(rows.size(), 6u) << "tshark printed:\n" << printed;

    auto crcText = [](const SerializedFrame& s) {
        char text[16];
        const uint32_t icrc = trailingIcrc(s.bytes);
        // tshark reads the four ICRC bytes as a big-endian number.
        std::snprintf(text, sizeof text, "0x%08x",
                      ((icrc & 0xFF) << 24) | ((icrc & 0xFF00) << 8) | ((icrc >> 8) & 0xFF00) | (icrc >> 24));
        return std::string(text);
    };

    const auto& d = rows[0];
    EXPECT_EQ(d.at("frame.protocols"), "eth:ethertype:ip:udp:infiniband");
    EXPECT_EQ(d.at("frame.len"), "90");
    EXPECT_EQ(d.at("ip.src"), "11.0.1.1");
    EXPECT_EQ(d.at("ip.dst"), "11.1.1.1");
    EXPECT_EQ(d.at("ip.dsfield.dscp"), "24");
    EXPECT_EQ(d.at("ip.dsfield.ecn"), "3");
    EXPECT_EQ(d.at("ip.checksum.status"), "1");  // good
    EXPECT_EQ(d.at("udp.dstport"), "4791");
    EXPECT_EQ(d.at("infiniband.bth.opcode"), "4");  // RC SEND Only
    EXPECT_EQ(d.at("infiniband.bth.destqp"), "0x123456");
    EXPECT_EQ(d.at("infiniband.bth.psn"), "7");
    EXPECT_EQ(d.at("infiniband.bth.a"), "1");
    EXPECT_EQ(d.at("infiniband.bth.padcnt"), "2");
    EXPECT_EQ(d.at("infiniband.invariant.crc"), crcText(data));
    EXPECT_EQ(d.at("eth.dst"), "02:00:01:2c:00:05");

    for (const auto* row : {&rows[1], &rows[2]}) {
        EXPECT_EQ(row->at("frame.protocols"), "eth:ethertype:ip:udp:infiniband");
        EXPECT_EQ(row->at("frame.len"), "62");
        EXPECT_EQ(row->at("ip.src"), "11.1.1.1");
        EXPECT_EQ(row->at("infiniband.bth.opcode"), "17");  // RC Acknowledge
        EXPECT_EQ(row->at("infiniband.bth.destqp"), "0x00000b");
        EXPECT_EQ(row->at("infiniband.aeth.msn"), "8");
    }
    EXPECT_EQ(rows[1].at("infiniband.bth.psn"), "7");
    EXPECT_EQ(rows[1].at("infiniband.aeth.syndrome"), "31");  // ACK, credit count 0x1F
    EXPECT_EQ(rows[1].at("infiniband.invariant.crc"), crcText(ack));
    EXPECT_EQ(rows[2].at("infiniband.bth.psn"), "8");
    EXPECT_EQ(rows[2].at("infiniband.aeth.syndrome"), "96");  // NAK, PSN sequence error
    EXPECT_EQ(rows[2].at("infiniband.invariant.crc"), crcText(nak));

    const auto& c = rows[3];
    EXPECT_EQ(c.at("frame.protocols"), "eth:ethertype:ip:udp:infiniband");
    EXPECT_EQ(c.at("frame.len"), "74");
    EXPECT_EQ(c.at("infiniband.bth.opcode"), "129");  // CNP
    EXPECT_EQ(c.at("infiniband.bth.destqp"), "0x00000b");
    EXPECT_EQ(c.at("ip.dsfield.dscp"), "48");
    EXPECT_EQ(c.at("ip.dsfield.ecn"), "2");
    EXPECT_EQ(c.at("ip.checksum.status"), "1");

    const auto& p = rows[4];
    EXPECT_EQ(p.at("frame.protocols"), "eth:ethertype:macc");
    EXPECT_EQ(p.at("frame.len"), "60");
    EXPECT_EQ(p.at("eth.dst"), "01:80:c2:00:00:01");
    EXPECT_EQ(p.at("macc.opcode"), "0x0101");  // class-based flow control (PFC)
    EXPECT_EQ(p.at("macc.cbfc.enbv"), "0x0008");
    EXPECT_EQ(p.at("macc.cbfc.pause_time.c3"), "65535");

    const auto& b = rows[5];  // truncated capture of a full packet after a PSN wrap
    EXPECT_EQ(b.at("frame.len"), "1058");
    EXPECT_EQ(b.at("frame.cap_len"), std::to_string(kBthOffset + kBthBytes + 64));
    EXPECT_EQ(b.at("infiniband.bth.psn"), "5");
    EXPECT_EQ(b.at("infiniband.invariant.crc"), "");
}

}  // namespace
}  // namespace mlnet::roce

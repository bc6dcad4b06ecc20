// Proves the wiring to Debian's stock ns-3: two hosts on a point-to-point link, a UDP client sends a fixed
// number of packets and the server counts them. Exits non-zero unless every byte arrives.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <iostream>

using namespace ns3;

int main(int argc, char** argv) {
    uint32_t packets = 100;
    uint32_t packetBytes = 1024;
    std::string rate = "10Gbps";
    std::string delay = "1us";
    CommandLine cmd(__FILE__);
    cmd.AddValue("packets", "number of UDP packets to send", packets);
    cmd.AddValue("packetBytes", "UDP payload bytes per packet (at least 12, the sequence header)",
                 packetBytes);
    cmd.AddValue("rate", "link data rate", rate);
    cmd.AddValue("delay", "link propagation delay", delay);
    cmd.Parse(argc, argv);
    if (packetBytes < 12) {
        std::cerr << "ns3-smoke: packetBytes must be at least 12\n";
        return 1;
    }

    NodeContainer hosts;
    hosts.Create(2);
    PointToPointHelper link;
    link.SetDeviceAttribute("DataRate", StringValue(rate));
    link.SetChannelAttribute("Delay", StringValue(delay));
    NetDeviceContainer devices = link.Install(hosts);

    InternetStackHelper internet;
    internet.Install(hosts);
    Ipv4AddressHelper addresses("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer interfaces = addresses.Assign(devices);

    const uint16_t port = 4000;
    UdpServerHelper server(port);
    ApplicationContainer serverApp = server.Install(hosts.Get(1));
    UdpClientHelper client(interfaces.GetAddress(1), port);
    client.SetAttribute("MaxPackets", UintegerValue(packets));
    client.SetAttribute("Interval", TimeValue(MicroSeconds(1)));
    client.SetAttribute("PacketSize", UintegerValue(packetBytes));
    client.Install(hosts.Get(0));

    Simulator::Stop(Seconds(1));
    Simulator::Run();
    const uint64_t received = DynamicCast<UdpServer>(serverApp.Get(0))->GetReceived();
    Simulator::Destroy();

    const uint64_t sentBytes = uint64_t{packets} * packetBytes;
    const uint64_t deliveredBytes = received * packetBytes;
    std::cout << "ns3-smoke: delivered " << deliveredBytes << " of " << sentBytes << " bytes\n";
    return deliveredBytes == sentBytes ? 0 : 1;
}

// mlnet-typeids: every ns-3 TypeId the RoCE module registers, with its attributes (type, default, what, unit)
// and trace sources (the sink's signature, what each argument is), as the markdown tables of
// docs/scenario-scripts.md. Read from ns-3's own TypeId registry of the shared library (every registration of
// the module runs when it loads), so the tables cannot drift from the code: tests compare the committed ones
// with this output. Exit status: 0 printed, 1 usage, 2 a registered type or trace-sink type this tool has no
// entry for (add it to the tables below).
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ns3/object.h"
#include "ns3/type-id.h"

#include "mlnet/roce-module.h"

namespace {

using namespace mlnet::roce;

// A sink's C++ signature from its callback typedef: the argument types, as the sink declares them.
template <typename T>
struct TypeName;
#define MLNET_TYPE_NAME(T, text)                  \
    template <>                                   \
    struct TypeName<T> {                          \
        static std::string Get() { return text; } \
    }
MLNET_TYPE_NAME(bool, "bool");
MLNET_TYPE_NAME(uint8_t, "uint8_t");
MLNET_TYPE_NAME(uint32_t, "uint32_t");
MLNET_TYPE_NAME(uint64_t, "uint64_t");
MLNET_TYPE_NAME(const RocePacket*, "const mlnet::roce::RocePacket*");
MLNET_TYPE_NAME(DropReason, "mlnet::roce::DropReason");
#undef MLNET_TYPE_NAME

template <typename Callback>
struct Signature;
template <typename... Args>
struct Signature<void (*)(Args...)> {
    static std::string Get() {
        std::vector<std::string> names{TypeName<Args>::Get()...};
        std::string out = "void (";
        for (std::size_t i = 0; i < names.size(); ++i) {
            out += (i ? ", " : "") + names[i];
        }
        return out + ")";
    }
};

// Every trace-sink type the module's trace sources name.
const std::map<std::string, std::string>& SinkSignatures() {
    static const std::map<std::string, std::string> signatures = {
        {"mlnet::roce::RoceNetDevice::PauseCallback", Signature<RoceNetDevice::PauseCallback>::Get()},
        {"mlnet::roce::RoceNetDevice::TxCallback", Signature<RoceNetDevice::TxCallback>::Get()},
        {"mlnet::roce::RoceNic::RateCallback", Signature<RoceNic::RateCallback>::Get()},
        {"mlnet::roce::RoceSwitch::PfcCallback", Signature<RoceSwitch::PfcCallback>::Get()},
        {"mlnet::roce::RoceSwitch::DropCallback", Signature<RoceSwitch::DropCallback>::Get()},
        {"mlnet::roce::RoceSwitch::MarkCallback", Signature<RoceSwitch::MarkCallback>::Get()},
        {"mlnet::roce::RoceSwitch::QueueSampleCallback", Signature<RoceSwitch::QueueSampleCallback>::Get()},
        {"mlnet::roce::RoceChannel::DropCallback", Signature<RoceChannel::DropCallback>::Get()},
    };
    return signatures;
}

// Where each type's objects are in a running scenario: how attributes and trace sources are reached.
struct Place {
    ns3::TypeId (*typeId)();
    const char* where;
};
const std::map<std::string, Place>& Places() {
    static const std::map<std::string, Place> places = {
        {"mlnet::roce::RoceCcConfig",
         {&RoceCcConfig::GetTypeId,
          "No objects: the congestion controls' parameters are its attributes' defaults, read when a fabric "
          "is built with the `attributes` preset. Set them with `Config::SetDefault(\"mlnet::roce::"
          "RoceCcConfig::<name>\", ...)` or `--mlnet::roce::RoceCcConfig::<name>=...`."}},
        {"mlnet::roce::RoceChannel",
         {&RoceChannel::GetTypeId,
          "A cable, one per link of the topology, in cable order: "
          "`/ChannelList/*/$mlnet::roce::RoceChannel`. "
          "The fabric sets each cable's `Delay` and `ErrorRate` from the topology, over any default."}},
        {"mlnet::roce::RoceNetDevice",
         {&RoceNetDevice::GetTypeId,
          "A port: one at each end of every cable, `/NodeList/<vertex>/DeviceList/<port>/$mlnet::roce::"
          "RoceNetDevice`, node ids being the topology's vertices (hosts first) when the fabric is the first "
          "to create nodes. The fabric sets each port's `DataRate` from its cable."}},
        {"mlnet::roce::RoceNic",
         {&RoceNic::GetTypeId,
          "A host's NIC, aggregated to the host's node: `/NodeList/<host>/$mlnet::roce::RoceNic`."}},
        {"mlnet::roce::RoceSimulatorImpl",
         {&RoceSimulatorImpl::GetTypeId,
          "The simulator implementation the fabric selects (`SimulatorImplementationType`) unless "
          "`NS_GLOBAL_VALUE` names another; no attributes or trace sources."}},
        {"mlnet::roce::RoceSwitch",
         {&RoceSwitch::GetTypeId,
          "A switch, itself a node (and an NPU that forwards, with its NIC inside): "
          "`/NodeList/<vertex>/$mlnet::roce::RoceSwitch`."}},
    };
    return places;
}

std::string Cell(std::string text) {
    for (std::size_t at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2)) {
        text.replace(at, 1, "\\|");
    }
    return text;
}

int Print() {
    for (const auto& [name, place] : Places()) {
        place.typeId();  // registered even if no object of the type was made
    }
    std::map<std::string, ns3::TypeId> ours;
    for (uint16_t i = 0; i < ns3::TypeId::GetRegisteredN(); ++i) {
        const ns3::TypeId tid = ns3::TypeId::GetRegistered(i);
        if (tid.GetName().rfind("mlnet::", 0) == 0) {
            ours.emplace(tid.GetName(), tid);
        }
    }
    std::ostringstream out;
    int status = 0;
    for (const auto& [name, tid] : ours) {
        const auto place = Places().find(name);
        if (place == Places().end()) {
            std::fprintf(stderr,
                         "mlnet-typeids: %s is registered but has no entry in mlnet-typeids.cc's Places()\n",
                         name.c_str());
            status = 2;
            continue;
        }
        out << "### `" << name << "`\n\nParent `" << tid.GetParent().GetName() << "`. " << place->second.where
            << "\n\n";
        if (tid.GetAttributeN() > 0) {
            out << "| attribute | value | default | what |\n|---|---|---|---|\n";
            for (std::size_t a = 0; a < tid.GetAttributeN(); ++a) {
                const ns3::TypeId::AttributeInformation info = tid.GetAttribute(a);
                // ns-3 names some value types with their namespace and some without; Config::SetDefault
                // takes an ns3::<Type>Value either way.
                std::string type = info.checker->GetValueTypeName();
                if (type.rfind("ns3::", 0) != 0) {
                    type = "ns3::" + type;
                }
                out << "| `" << info.name << "` | `" << type << "` | `"
                    << Cell(info.initialValue->SerializeToString(info.checker)) << "` | " << Cell(info.help)
                    << " |\n";
            }
            out << "\n";
        }
        if (tid.GetTraceSourceN() > 0) {
            out << "| trace source | sink | what |\n|---|---|---|\n";
            for (std::size_t t = 0; t < tid.GetTraceSourceN(); ++t) {
                const ns3::TypeId::TraceSourceInformation info = tid.GetTraceSource(t);
                const auto signature = SinkSignatures().find(info.callback);
                if (signature == SinkSignatures().end()) {
                    std::fprintf(stderr,
                                 "mlnet-typeids: %s::%s names the sink type %s, which has no entry in "
                                 "mlnet-typeids.cc's SinkSignatures()\n",
                                 name.c_str(), info.name.c_str(), info.callback.c_str());
                    status = 2;
                    continue;
                }
                out << "| `" << info.name << "` | `" << signature->second << "` | " << Cell(info.help)
                    << " |\n";
            }
            out << "\n";
        }
    }
    if (status == 0) {
        std::fputs(out.str().c_str(), stdout);
    }
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1) {
        std::fprintf(
            stderr,
            "usage: mlnet-typeids\nPrints the RoCE module's TypeIds, attributes and trace sources as "
            "the markdown of docs/scenario-scripts.md.\n");
        return std::strcmp(argv[1], "--help") == 0 ? 0 : 1;
    }
    return Print();
}

#include "tool-command-line.h"

#include "ns3/config.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include "util/units.h"

namespace mlnet::roce {

namespace {

bool findAttribute(const std::string& fullName, ns3::TypeId::AttributeInformation& info) {
    const std::size_t split = fullName.rfind("::");
    ns3::TypeId tid;
    return split != std::string::npos && ns3::TypeId::LookupByNameFailSafe(fullName.substr(0, split), &tid) &&
           tid.LookupAttributeByName(fullName.substr(split + 2), &info);
}

// ns-3 aborts (NS_ABORT in the value's DeserializeFromString) on malformed numbers, so the common value types
// are read by our own parsers first; ns-3's checker then applies the attribute's range.
bool wellFormed(const ns3::TypeId::AttributeInformation& info, const std::string& value) {
    const std::string type = info.checker->GetValueTypeName();
    uint64_t u = 0;
    double d = 0;
    if (type == "ns3::DoubleValue") {
        return parsePlainReal(value, d);
    }
    if (type == "ns3::UintegerValue") {
        return parseUnsignedInteger(value, u) == NumberStatus::Ok;
    }
    if (type == "ns3::IntegerValue") {
        return parseUnsignedInteger(value[0] == '-' ? value.substr(1) : value, u) == NumberStatus::Ok;
    }
    if (type == "ns3::BooleanValue") {
        return value == "0" || value == "1" || value == "true" || value == "false";
    }
    if (type == "ns3::TimeValue") {
        return parseTimePs(value, u) == NumberStatus::Ok;
    }
    if (type == "ns3::DataRateValue") {
        return parseDataRateBps(value, u, true) == NumberStatus::Ok;  // ns-3's DataRate: bare is b/s
    }
    return true;  // other types parse without aborting
}

// "Type (help)" of an attribute, for messages: what a valid value looks like.
std::string describeAttribute(const ns3::TypeId::AttributeInformation& info) {
    const std::string type = info.checker->GetValueTypeName();
    std::string what;
    if (type == "ns3::TimeValue") {
        what = "a time with a unit, e.g. 55us";
    } else if (type == "ns3::DataRateValue") {
        what = "a data rate, e.g. 100Gbps";
    } else if (type == "ns3::BooleanValue") {
        what = "0, 1, false or true";
    } else {
        what = info.checker->HasUnderlyingTypeInformation() ? info.checker->GetUnderlyingTypeInformation()
                                                            : type;
    }
    return what + (info.help.empty() ? "" : " (" + info.help + ")");
}

}  // namespace

bool ToolCommandLine::TakeAttributes(int& argc, char** argv) {
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const std::size_t eq = arg.find('=');
        const std::string name = arg.substr(0, eq).substr(arg.rfind("--", 0) == 0 ? 2 : 0);
        if (arg.rfind("--", 0) != 0 || name.find("::") == std::string::npos) {
            argv[kept++] = argv[i];
            continue;
        }
        if (eq == std::string::npos) {
            m_error = m_tool + ": " + arg + ": an attribute takes its value after '=': --" + name + "=VALUE";
            return false;
        }
        const std::string value = arg.substr(eq + 1);
        ns3::TypeId::AttributeInformation info;
        if (!findAttribute(name, info)) {
            m_error = m_tool + ": " + arg + ": no attribute " + name +
                      " (expected --Namespace::Class::Attribute=VALUE)";
            return false;
        }
        const std::string described = describeAttribute(info);
        if (!wellFormed(info, value) || !ns3::Config::SetDefaultFailSafe(name, ns3::StringValue(value))) {
            m_error = m_tool + ": " + arg + ": '" + value + "' is not a valid value for " + name +
                      "; expected " + described;
            return false;
        }
        m_attributes.push_back(name + "=" + value);
    }
    argc = kept;
    argv[argc] = nullptr;
    return true;
}

bool ToolCommandLine::CheckFlags(int argc, char** argv, const std::vector<std::string>& flags) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const std::size_t eq = arg.find('=');
        if (arg.rfind("--", 0) != 0 || eq == std::string::npos) {
            continue;
        }
        const std::string name = arg.substr(2, eq - 2), value = arg.substr(eq + 1);
        for (const std::string& flag : flags) {
            if (name == flag && value != "0" && value != "1" && value != "true" && value != "false") {
                m_error = m_tool + ": " + arg + ": '" + value +
                          "' is not a truth value; expected 0, 1, false or true";
                return false;
            }
        }
    }
    return true;
}

bool ToolCommandLine::AnyAttributeOf(const std::string& typeName) const {
    for (const std::string& a : m_attributes) {
        if (a.rfind(typeName + "::", 0) == 0) {
            return true;
        }
    }
    return false;
}

void ToolCommandLine::AddText(ns3::CommandLine& cmd, const std::string& name, const std::string& help,
                              std::string& value) {
    cmd.AddValue(name, help, value);
    m_text[name] = &value;
}

void ToolCommandLine::AddTextNonOption(ns3::CommandLine& cmd, const std::string& name,
                                       const std::string& help, std::string& value) {
    cmd.AddNonOption(name, help, value);
    m_textNonOptions.push_back(&value);
}

bool ToolCommandLine::Parse(ns3::CommandLine& cmd, int argc, char** argv) {
    int kept = 1;
    std::size_t positional = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind('-', 0) != 0 && !m_textNonOptions.empty()) {
            // cmd knows the positional arguments too (for its help) and would take a stray one as the first.
            if (positional == m_textNonOptions.size()) {
                m_error = m_tool + ": unexpected argument '" + arg +
                          "' (options take their value after '=', e.g. --seed=5)";
                return false;
            }
            *m_textNonOptions[positional++] = arg;
            continue;
        }
        const std::size_t dashes = arg.rfind("--", 0) == 0 ? 2 : arg.rfind('-', 0) == 0 ? 1 : 0;
        const std::size_t eq = arg.find('=');
        const auto text =
            dashes && eq != std::string::npos ? m_text.find(arg.substr(dashes, eq - dashes)) : m_text.end();
        if (text == m_text.end()) {
            argv[kept++] = argv[i];
            continue;
        }
        *text->second = arg.substr(eq + 1);
    }
    argv[kept] = nullptr;
    cmd.Parse(kept, argv);
    return CheckNoExtraArguments(cmd);
}

bool ToolCommandLine::CheckNoExtraArguments(const ns3::CommandLine& cmd) {
    if (cmd.GetNExtraNonOptions() == 0) {
        return true;
    }
    m_error = m_tool + ": unexpected argument '" + cmd.GetExtraNonOption(0) +
              "' (options take their value after '=', e.g. --seed=5)";
    return false;
}

}  // namespace mlnet::roce

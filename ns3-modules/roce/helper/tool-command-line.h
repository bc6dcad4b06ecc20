// What ns3::CommandLine leaves to its users, done once for every ns-3 tool of the project. Attribute
// arguments
// (--Namespace::Class::Attribute=value) are checked and applied before CommandLine sees them: CommandLine
// aborts inside ns-3 on a value the attribute rejects, and says nothing about the range. After parsing, stray
// positional arguments are usage errors, including the value of an option written "--name value". Numeric
// options are declared as text and read through CliNumbers (util/cli-options.h), whole and in range. Text
// options (paths, names, numbers as typed) are declared with AddText and taken whole before CommandLine
// parses: it reads a std::string through operator>>, which stops at the first space ("--output-dir=my out"
// would write into "my").
#ifndef MLNET_ROCE_TOOL_COMMAND_LINE_H
#define MLNET_ROCE_TOOL_COMMAND_LINE_H

#include <map>
#include <string>
#include <vector>

#include "ns3/command-line.h"

namespace mlnet::roce {

class ToolCommandLine {
public:
    explicit ToolCommandLine(std::string tool) : m_tool(std::move(tool)) {}

    // Applies (Config::SetDefault) and removes every attribute argument of argv. False, with error() naming
    // the argument, the attribute's type and range, for an unknown attribute or a value it does not accept.
    bool TakeAttributes(int& argc, char** argv);
    // The attribute arguments applied, as "Namespace::Class::Attribute=value".
    const std::vector<std::string>& Attributes() const { return m_attributes; }
    // Whether any applied attribute belongs to the TypeId `typeName` (e.g. "mlnet::roce::RoceCcConfig").
    bool AnyAttributeOf(const std::string& typeName) const;

    // Before cmd.Parse: false (error() set) when a flag is given a value other than 0, 1, false or true
    // (CommandLine reads "--quiet=1e99" as true). "--quiet" alone stays CommandLine's: true.
    bool CheckFlags(int argc, char** argv, const std::vector<std::string>& flags);

    // Declares a text option: listed by cmd's help, its value taken whole by Parse.
    void AddText(ns3::CommandLine& cmd, const std::string& name, const std::string& help, std::string& value);
    // Declares the next positional text argument (in declaration order), taken whole by Parse.
    void AddTextNonOption(ns3::CommandLine& cmd, const std::string& name, const std::string& help,
                          std::string& value);
    // Takes the text options out of argv ("--name=value" or "-name=value", the last one given wins), then
    // runs cmd.Parse on the rest; false (error() set) for stray positional arguments.
    bool Parse(ns3::CommandLine& cmd, int argc, char** argv);

    // After cmd.Parse: false (error() set) when there were positional arguments beyond the declared ones.
    bool CheckNoExtraArguments(const ns3::CommandLine& cmd);

    const std::string& error() const { return m_error; }

private:
    std::string m_tool;
    std::vector<std::string> m_attributes;
    std::map<std::string, std::string*> m_text;
    std::vector<std::string*> m_textNonOptions;
    std::string m_error;
};

}  // namespace mlnet::roce

#endif

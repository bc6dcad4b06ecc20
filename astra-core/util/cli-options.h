// Numeric command-line options, checked whole and in range by the one units reader, so every tool answers a
// bad number the same way: "TOOL: --name=TEXT: <reason>; expected <what>", and a usage exit. Values arrive as
// text (boost::program_options with std::string values), never through operator>> which accepts "12abc".
#ifndef MLNET_UTIL_CLI_OPTIONS_H
#define MLNET_UTIL_CLI_OPTIONS_H

#include <cstdint>
#include <string>
#include <string_view>

namespace mlnet {

// Collects the first bad option's message; the tool prints it and exits 1.
class CliNumbers {
public:
    explicit CliNumbers(std::string tool) : m_tool(std::move(tool)) {}

    // A whole number in [min, max].
    bool count(std::string_view name, std::string_view text, uint64_t min, uint64_t max, uint64_t& out);
    // A finite real in [min, max] (minExclusive: in (min, max]).
    bool real(std::string_view name, std::string_view text, double min, double max, double& out,
              bool minExclusive = false);
    // A data rate ("100Gbps") above zero.
    bool rateBps(std::string_view name, std::string_view text, uint64_t& out);
    // A time with a unit ("5ms", "2s"), whole nanoseconds; zero only when allowed.
    bool durationNs(std::string_view name, std::string_view text, bool allowZero, uint64_t& out);
    // 0 / 1 / false / true; with emptyIsTrue, also the option given without a value ("--quiet").
    bool flag(std::string_view name, std::string_view text, bool& out, bool emptyIsTrue = false);
    // A byte size ("64KB", "1MiB", "4096") above zero.
    bool bytes(std::string_view name, std::string_view text, uint64_t& out);

    bool ok() const { return m_error.empty(); }
    const std::string& error() const { return m_error; }

private:
    bool fail(std::string_view name, std::string_view text, const std::string& why,
              const std::string& expected);

    std::string m_tool;
    std::string m_error;
};

}  // namespace mlnet

#endif

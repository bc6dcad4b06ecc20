#include "cli-options.h"

#include <cmath>
#include <sstream>

#include "units.h"

namespace mlnet {

namespace {

std::string formatReal(double v) {
    std::ostringstream out;
    out << v;
    return out.str();
}

}  // namespace

bool CliNumbers::fail(std::string_view name, std::string_view text, const std::string& why,
                      const std::string& expected) {
    if (m_error.empty()) {
        m_error = m_tool + ": --" + std::string(name) + "=" + std::string(text) + ": " + why + "; expected " +
                  expected;
    }
    return false;
}

bool CliNumbers::count(std::string_view name, std::string_view text, uint64_t min, uint64_t max,
                       uint64_t& out) {
    const std::string expected = "a whole number in " + std::to_string(min) + ".." + std::to_string(max);
    uint64_t value = 0;
    const NumberStatus status = parseUnsignedInteger(text, value);
    if (status != NumberStatus::Ok) {
        return fail(name, text, describeNumberStatus(status), expected);
    }
    if (value < min || value > max) {
        return fail(name, text, "is out of range", expected);
    }
    out = value;
    return true;
}

bool CliNumbers::real(std::string_view name, std::string_view text, double min, double max, double& out,
                      bool minExclusive) {
    const std::string expected = "a number in " + std::string(minExclusive ? "(" : "[") + formatReal(min) +
                                 ", " + formatReal(max) + "]";
    double value = 0;
    if (!parsePlainReal(text, value) || !std::isfinite(value)) {
        return fail(name, text, "is not a number", expected);
    }
    if (value < min || value > max || (minExclusive && value == min)) {
        return fail(name, text, "is out of range", expected);
    }
    out = value;
    return true;
}

bool CliNumbers::rateBps(std::string_view name, std::string_view text, uint64_t& out) {
    uint64_t value = 0;
    const NumberStatus status = parseDataRateBps(text, value);
    if (status != NumberStatus::Ok) {
        return fail(name, text, describeNumberStatus(status), "a data rate such as 100Gbps");
    }
    if (value == 0) {
        return fail(name, text, "is zero", "a data rate above zero such as 100Gbps");
    }
    out = value;
    return true;
}

bool CliNumbers::durationNs(std::string_view name, std::string_view text, bool allowZero, uint64_t& out) {
    uint64_t value = 0;
    const NumberStatus status = parseTimeNs(text, value);
    const char* expected = allowZero ? "a time with a unit such as 5ms or 2s, in whole ns"
                                     : "a time above zero with a unit such as 5ms or 2s, in whole ns";
    if (status != NumberStatus::Ok) {
        return fail(name, text, describeNumberStatus(status), expected);
    }
    if (value == 0 && !allowZero) {
        return fail(name, text, "is zero", expected);
    }
    out = value;
    return true;
}

bool CliNumbers::flag(std::string_view name, std::string_view text, bool& out, bool emptyIsTrue) {
    if (text == "1" || text == "true" || (emptyIsTrue && text.empty())) {
        out = true;
        return true;
    }
    if (text == "0" || text == "false") {
        out = false;
        return true;
    }
    return fail(name, text, "is not a truth value", "0, 1, false or true");
}

bool CliNumbers::bytes(std::string_view name, std::string_view text, uint64_t& out) {
    uint64_t value = 0;
    const NumberStatus status = parseByteSize(text, value);
    if (status != NumberStatus::Ok) {
        return fail(name, text, describeNumberStatus(status), "a size such as 64KB, 1MiB or 4096");
    }
    if (value == 0) {
        return fail(name, text, "is zero", "a size of at least 1 byte");
    }
    out = value;
    return true;
}

}  // namespace mlnet

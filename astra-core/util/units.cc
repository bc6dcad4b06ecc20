#include "units.h"

#include "time.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace mlnet {

namespace {

// 128 bits hold a 25-digit significand shifted by the largest binary prefix (2^43), so exact scaling never
// needs a double.
using U128 = Uint128;
constexpr U128 kU64Max = std::numeric_limits<uint64_t>::max();
// Longer significands are cut to this many digits; the cut digits only matter for rounding far below any
// unit.
constexpr std::size_t kMaxSignificantDigits = 25;

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

NumberStatus scaleDecimal(std::string_view text, int pow10, unsigned pow2, bool allowRounding,
                          uint64_t& out) {
    std::size_t i = 0;
    bool negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
        negative = text[i] == '-';
        ++i;
    }
    std::string digits;
    int64_t fractionDigits = 0;
    bool anyDigit = false;
    for (; i < text.size() && isDigit(text[i]); ++i) {
        digits += text[i];
        anyDigit = true;
    }
    if (i < text.size() && text[i] == '.') {
        for (++i; i < text.size() && isDigit(text[i]); ++i) {
            digits += text[i];
            ++fractionDigits;
            anyDigit = true;
        }
    }
    if (!anyDigit) {
        return NumberStatus::NotANumber;
    }
    int64_t exponent = 0;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool exponentNegative = false;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
            exponentNegative = text[i] == '-';
            ++i;
        }
        if (i == text.size() || !isDigit(text[i])) {
            return NumberStatus::NotANumber;
        }
        for (; i < text.size() && isDigit(text[i]); ++i) {
            // Clamped: any exponent this large already overflows or rounds to zero.
            exponent = std::min<int64_t>(exponent * 10 + (text[i] - '0'), 100000);
        }
        exponent = exponentNegative ? -exponent : exponent;
    }
    if (i != text.size()) {
        return NumberStatus::NotANumber;
    }
    const std::size_t first = digits.find_first_not_of('0');
    if (first == std::string::npos) {
        out = 0;
        return NumberStatus::Ok;
    }
    if (negative) {
        return NumberStatus::Negative;
    }
    digits.erase(0, first);
    int64_t scale = exponent - fractionDigits + pow10;
    while (digits.back() == '0') {
        digits.pop_back();
        ++scale;
    }
    bool inexact = false;
    if (digits.size() > kMaxSignificantDigits) {
        inexact = digits.find_first_not_of('0', kMaxSignificantDigits) != std::string::npos;
        scale += static_cast<int64_t>(digits.size() - kMaxSignificantDigits);
        digits.resize(kMaxSignificantDigits);
    }
    U128 value = 0;
    for (char c : digits) {
        value = value * 10 + static_cast<unsigned>(c - '0');
    }
    value <<= pow2;
    if (scale >= 0) {
        for (int64_t k = 0; k < scale; ++k) {
            if (value > kU64Max / 10) {
                return NumberStatus::TooLarge;
            }
            value *= 10;
        }
    } else if (scale < -38) {
        // value < 2^127 < 10^39 / 2, so the quotient is 0 and rounds to 0.
        inexact = true;
        value = 0;
    } else {
        U128 divisor = 1;
        for (int64_t k = 0; k < -scale; ++k) {
            divisor *= 10;
        }
        const U128 remainder = value % divisor;
        value /= divisor;
        if (remainder != 0) {
            inexact = true;
            if (remainder * 2 >= divisor) {
                ++value;
            }
        }
    }
    if (value > kU64Max) {
        return NumberStatus::TooLarge;
    }
    if (inexact && !allowRounding) {
        return NumberStatus::NotWhole;
    }
    out = static_cast<uint64_t>(value);
    return inexact ? NumberStatus::Rounded : NumberStatus::Ok;
}

// Splits "20Mb/s" into "20" and "Mb/s". The number may carry an exponent; no unit starts with e or E.
std::pair<std::string_view, std::string_view> splitUnit(std::string_view text) {
    const std::size_t n = std::min(text.find_first_not_of("0123456789.+-eE"), text.size());
    return {text.substr(0, n), text.substr(n)};
}

}  // namespace

// Plain digits only: "1.0" or "1e3" for a count is almost certainly a mistake in the file.
NumberStatus parseUnsignedInteger(std::string_view text, uint64_t& out) {
    const bool negative = !text.empty() && text[0] == '-';
    const std::string_view digits = negative ? text.substr(1) : text;
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), isDigit)) {
        return NumberStatus::NotANumber;
    }
    if (negative) {
        return digits.find_first_not_of('0') == std::string_view::npos ? (out = 0, NumberStatus::Ok)
                                                                       : NumberStatus::Negative;
    }
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
    return ec == std::errc::result_out_of_range ? NumberStatus::TooLarge : NumberStatus::Ok;
}

// strtod limited to plain decimals (no inf, nan or hex floats).
bool parsePlainReal(std::string_view text, double& out) {
    if (text.empty() || text.find_first_not_of("0123456789.+-eE") != std::string_view::npos) {
        return false;
    }
    const std::string copy(text);
    char* end = nullptr;
    out = std::strtod(copy.c_str(), &end);
    return end == copy.c_str() + copy.size() && std::isfinite(out);
}

NumberStatus parseScaledDecimal(std::string_view text, int scalePow10, bool allowRounding, uint64_t& out) {
    return scaleDecimal(text, scalePow10, 0, allowRounding, out);
}

NumberStatus parseDataRateBps(std::string_view text, uint64_t& bps, bool bareIsBitsPerSecond) {
    const auto [number, unit] = splitUnit(text);
    if (number.empty()) {
        return NumberStatus::NotANumber;
    }
    if (unit.empty()) {
        // ns-3 reads a bare rate as integer bits/s
        const NumberStatus status = parseUnsignedInteger(number, bps);
        return status == NumberStatus::Ok && !bareIsBitsPerSecond ? NumberStatus::NoUnit : status;
    }
    struct Prefix {
        const char* text;
        int pow10;
        unsigned pow2;
    };
    // Two-letter prefixes first so that "Mi" is not taken for "M".
    static const Prefix prefixes[] = {{"Ki", 0, 10}, {"Mi", 0, 20}, {"Gi", 0, 30}, {"Ti", 0, 40}, {"k", 3, 0},
                                      {"K", 3, 0},   {"M", 6, 0},   {"G", 9, 0},   {"T", 12, 0},  {"", 0, 0}};
    for (const Prefix& prefix : prefixes) {
        const std::string_view p(prefix.text);
        if (unit.substr(0, p.size()) != p) {
            continue;
        }
        const std::string_view base = unit.substr(p.size());
        if (base == "bps" || base == "b/s" || base == "Bps" || base == "B/s") {
            const unsigned bytes = base[0] == 'B' ? 3 : 0;
            return scaleDecimal(number, prefix.pow10, prefix.pow2 + bytes, false, bps);
        }
    }
    return NumberStatus::BadUnit;
}

namespace {

NumberStatus parseTime(std::string_view text, int scale, uint64_t& out) {
    const auto [number, unit] = splitUnit(text);
    if (number.empty()) {
        return NumberStatus::NotANumber;
    }
    static const std::pair<const char*, int> units[] = {
        {"s", 9}, {"ms", 6}, {"us", 3}, {"ns", 0}, {"ps", -3}};
    for (const auto& [name, pow10] : units) {
        if (unit == name) {
            return scaleDecimal(number, pow10 + scale, 0, false, out);
        }
    }
    return NumberStatus::BadUnit;
}

}  // namespace

NumberStatus parseTimeNs(std::string_view text, uint64_t& ns) {
    return parseTime(text, 0, ns);
}

NumberStatus parseTimePs(std::string_view text, uint64_t& ps) {
    return parseTime(text, 3, ps);
}

NumberStatus parseByteSize(std::string_view text, uint64_t& bytes, bool bareIsBytes) {
    const auto [number, unit] = splitUnit(text);
    if (number.empty()) {
        return NumberStatus::NotANumber;
    }
    if (unit.empty()) {
        const NumberStatus status = parseUnsignedInteger(number, bytes);
        return status == NumberStatus::Ok && !bareIsBytes ? NumberStatus::NoUnit : status;
    }
    struct Unit {
        const char* text;
        int pow10;
        unsigned pow2;
    };
    static const Unit units[] = {{"B", 0, 0},    {"KB", 3, 0},   {"MB", 6, 0},   {"GB", 9, 0},  {"TB", 12, 0},
                                 {"KiB", 0, 10}, {"MiB", 0, 20}, {"GiB", 0, 30}, {"TiB", 0, 40}};
    for (const Unit& u : units) {
        if (unit == u.text) {
            return scaleDecimal(number, u.pow10, u.pow2, false, bytes);
        }
    }
    return NumberStatus::BadUnit;
}

const char* describeNumberStatus(NumberStatus status) {
    switch (status) {
        case NumberStatus::Ok:
            return "is valid";
        case NumberStatus::Rounded:
            return "was rounded to the unit";
        case NumberStatus::NotANumber:
            return "is not a number";
        case NumberStatus::Negative:
            return "is negative";
        case NumberStatus::TooLarge:
            return "does not fit in 64 bits";
        case NumberStatus::NotWhole:
            return "is not a whole number of the unit";
        case NumberStatus::BadUnit:
            return "has an unknown unit";
        case NumberStatus::NoUnit:
            return "has no unit";
    }
    return "is invalid";
}

}  // namespace mlnet

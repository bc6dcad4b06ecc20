// The one reader of numbers with units in every text input (configuration keys, topology and flow files,
// network descriptions, command-line options): exact decimal scaling through 128-bit integers instead of
// doubles, so "2.000000001" seconds is exactly 2000000001 ns and "100Gbps" exactly 10^11 b/s, with a status
// that says what is wrong instead of a silent truncation.
#ifndef MLNET_UTIL_UNITS_H
#define MLNET_UTIL_UNITS_H

#include <cstdint>
#include <string_view>

namespace mlnet {

enum class NumberStatus {
    Ok,
    Rounded,     // had digits below the unit; rounded half-up (only when rounding was allowed)
    NotANumber,  // not a plain decimal (digits, optional '.', optional exponent)
    Negative,
    TooLarge,  // does not fit in 64 bits
    NotWhole,  // digits below the unit and rounding not allowed
    BadUnit,   // a rate, time or size with an unknown unit
    NoUnit,    // a bare number where the value needs a unit
};

// text × 10^scalePow10 as an exact integer, from the decimal digits rather than through a double, so that
// "2.000000001" with scale 9 is exactly 2000000001. Accepts an optional '+', fraction and exponent.
NumberStatus parseScaledDecimal(std::string_view text, int scalePow10, bool allowRounding, uint64_t& out);

// ns-3 DataRate strings, exactly: units bps, b/s, Bps, B/s with the SI prefixes k, K, M, G, T or the binary
// prefixes Ki, Mi, Gi, Ti ("20Mb/s", "100Gbps", "1.5KiB/s"). A value that is not a whole number of bits/s is
// NotWhole (ns-3 truncates it silently). A bare integer is NoUnit ("100" is rarely meant as 100 b/s) unless
// bareIsBitsPerSecond, for the formats that define it so (ns-3 attribute values, config.txt's rate maps).
NumberStatus parseDataRateBps(std::string_view text, uint64_t& bps, bool bareIsBitsPerSecond = false);

// ns-3 Time strings with a unit: s, ms, us, ns, ps ("1000ns", "0.001ms", "1us"); the result must be whole ns.
NumberStatus parseTimeNs(std::string_view text, uint64_t& ns);

// The reason, for messages: e.g. "is negative".
const char* describeNumberStatus(NumberStatus status);

// ns-3 Time strings to whole picoseconds ("0.5us", "936.25ns"); finer digits are NotWhole.
NumberStatus parseTimePs(std::string_view text, uint64_t& ps);

// Byte sizes: a number with B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024):
// "32MB", "1.5MiB", or a bare integer of bytes ("4096") unless bareIsBytes is false (network descriptions,
// where every size names its unit: NoUnit). The result must be whole bytes.
NumberStatus parseByteSize(std::string_view text, uint64_t& bytes, bool bareIsBytes = true);

// Digits only, no sign, fraction or exponent ("-0" is 0): counts and ids. TooLarge beyond 64 bits.
NumberStatus parseUnsignedInteger(std::string_view text, uint64_t& out);

// A finite decimal real (no inf, nan or hex floats), the whole string.
bool parsePlainReal(std::string_view text, double& out);

}  // namespace mlnet

#endif

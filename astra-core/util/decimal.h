// The one rule for integer fields in every text input (topology and flow files, pg_name, comm-group keys,
// command-line counts): the whole string is decimal digits (no sign, space or base prefix) and fits the type.
#ifndef MLNET_UTIL_DECIMAL_H
#define MLNET_UTIL_DECIMAL_H

#include <charconv>
#include <string_view>
#include <type_traits>

namespace mlnet {

template <typename Unsigned>
bool parseDecimal(std::string_view text, Unsigned& value) {
    static_assert(std::is_unsigned_v<Unsigned>, "decimal fields are non-negative");
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace mlnet

#endif

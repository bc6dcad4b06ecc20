#include "wire-check.h"

#include <google/protobuf/descriptor.h>

namespace mlnet {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

bool isValidUtf8(const char* text, std::size_t sizeBytes) {
    const auto* s = reinterpret_cast<const unsigned char*>(text);
    std::size_t i = 0;
    while (i < sizeBytes) {
        unsigned char c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t extra;
        uint32_t cp;
        if ((c & 0xe0) == 0xc0) {
            extra = 1;
            cp = c & 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            extra = 2;
            cp = c & 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            extra = 3;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (i + extra >= sizeBytes) {  // sequence cut off by the end of the string
            return false;
        }
        for (std::size_t k = 1; k <= extra; ++k) {
            if ((s[i + k] & 0xc0) != 0x80) {
                return false;
            }
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        static constexpr uint32_t kMinForLength[] = {0, 0x80, 0x800, 0x10000};
        if (cp < kMinForLength[extra] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
            return false;  // overlong form, beyond Unicode, or a surrogate
        }
        i += extra + 1;
    }
    return true;
}

namespace {

const char* wireTypeName(int wireType) {
    static const char* names[] = {"varint",    "64-bit", "length-delimited", "start-group",
                                  "end-group", "32-bit", "invalid(6)",       "invalid(7)"};
    return names[wireType & 7];
}

int expectedWireType(const FieldDescriptor* field) {
    switch (field->type()) {
        case FieldDescriptor::TYPE_DOUBLE:
        case FieldDescriptor::TYPE_FIXED64:
        case FieldDescriptor::TYPE_SFIXED64:
            return 1;
        case FieldDescriptor::TYPE_FLOAT:
        case FieldDescriptor::TYPE_FIXED32:
        case FieldDescriptor::TYPE_SFIXED32:
            return 5;
        case FieldDescriptor::TYPE_STRING:
        case FieldDescriptor::TYPE_BYTES:
        case FieldDescriptor::TYPE_MESSAGE:
            return 2;
        case FieldDescriptor::TYPE_GROUP:
            return 3;
        default:
            return 0;
    }
}

class WireWalker {
public:
    explicit WireWalker(const uint8_t* data) : m_base(data) {}

    std::string walk(std::size_t begin, std::size_t end, const Descriptor* type, const std::string& path) {
        std::size_t pos = begin;
        while (pos < end) {
            const std::size_t fieldStart = pos;
            uint64_t key;
            if (!readVarint(pos, end, key)) {
                return at(fieldStart, path, "truncated or over-long field key");
            }
            const int wireType = static_cast<int>(key & 7);
            const uint64_t number = key >> 3;
            if (number == 0) {
                return at(fieldStart, path, "field number 0 is not allowed");
            }
            if (wireType == 6 || wireType == 7) {
                return at(
                    fieldStart, path,
                    "invalid wire type " + std::to_string(wireType) + " for field " + std::to_string(number));
            }
            const FieldDescriptor* field =
                number <= 536870911 ? type->FindFieldByNumber(static_cast<int>(number)) : nullptr;
            std::string problem = field ? walkKnown(pos, end, field, wireType, path)
                                        : skipUnknown(pos, end, wireType, number, path);
            if (!problem.empty()) {
                return problem;
            }
        }
        return {};
    }

private:
    bool readVarint(std::size_t& pos, std::size_t end, uint64_t& value) const {
        value = 0;
        for (int i = 0; i < 10; ++i) {
            if (pos >= end) {
                return false;
            }
            uint8_t byte = m_base[pos++];
            value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
            if (!(byte & 0x80)) {
                return true;
            }
        }
        return false;
    }

    std::string at(std::size_t offset, const std::string& path, const std::string& what) const {
        return "record byte " + std::to_string(offset) + (path.empty() ? "" : " (in " + path + ")") + ": " +
               what;
    }

    // Reads a length prefix and checks that the payload fits in [pos, end).
    bool readLength(std::size_t& pos, std::size_t end, std::size_t& payloadEnd) const {
        uint64_t length;
        if (!readVarint(pos, end, length) || length > end - pos) {
            return false;
        }
        payloadEnd = pos + static_cast<std::size_t>(length);
        return true;
    }

    std::string walkKnown(std::size_t& pos, std::size_t end, const FieldDescriptor* field, int wireType,
                          const std::string& path) {
        const std::size_t valueStart = pos;
        const std::string fieldPath = (path.empty() ? "" : path + ".") + field->name();
        const int expected = expectedWireType(field);
        if (field->is_packable() && wireType == 2) {
            std::size_t payloadEnd;
            if (!readLength(pos, end, payloadEnd)) {
                return at(valueStart, fieldPath, "packed length runs past the end of the enclosing message");
            }
            if (expected == 0) {
                while (pos < payloadEnd) {
                    uint64_t ignored;
                    if (!readVarint(pos, payloadEnd, ignored)) {
                        return at(pos, fieldPath, "malformed packed varint");
                    }
                }
            } else {
                const std::size_t width = expected == 1 ? 8 : 4;
                if ((payloadEnd - pos) % width != 0) {
                    return at(valueStart, fieldPath,
                              "packed data is not a multiple of " + std::to_string(width) + " bytes");
                }
                pos = payloadEnd;
            }
            return {};
        }
        if (wireType != expected) {
            return at(
                valueStart, fieldPath,
                std::string("wire type ") + wireTypeName(wireType) + ", expected " + wireTypeName(expected));
        }
        switch (wireType) {
            case 0: {
                uint64_t ignored;
                return readVarint(pos, end, ignored) ? std::string()
                                                     : at(valueStart, fieldPath, "truncated varint");
            }
            case 1:
            case 5: {
                const std::size_t width = wireType == 1 ? 8 : 4;
                if (end - pos < width) {
                    return at(valueStart, fieldPath, "truncated fixed-width value");
                }
                pos += width;
                return {};
            }
            case 2: {
                std::size_t payloadEnd;
                if (!readLength(pos, end, payloadEnd)) {
                    return at(valueStart, fieldPath, "length runs past the end of the enclosing message");
                }
                std::size_t payloadBegin = pos;
                pos = payloadEnd;
                if (field->type() == FieldDescriptor::TYPE_STRING &&
                    !isValidUtf8(reinterpret_cast<const char*>(m_base + payloadBegin),
                                 payloadEnd - payloadBegin)) {
                    return at(payloadBegin, fieldPath, "string is not valid UTF-8");
                }
                if (field->type() == FieldDescriptor::TYPE_MESSAGE) {
                    return walk(payloadBegin, payloadEnd, field->message_type(), fieldPath);
                }
                return {};
            }
            default:
                return at(valueStart, fieldPath, "group encoding is not used by this schema");
        }
    }

    std::string skipUnknown(std::size_t& pos, std::size_t end, int wireType, uint64_t number,
                            const std::string& path) {
        const std::size_t valueStart = pos;
        const std::string what = "unknown field " + std::to_string(number);
        switch (wireType) {
            case 0: {
                uint64_t ignored;
                return readVarint(pos, end, ignored) ? std::string()
                                                     : at(valueStart, path, what + ": truncated varint");
            }
            case 1:
            case 5: {
                const std::size_t width = wireType == 1 ? 8 : 4;
                if (end - pos < width) {
                    return at(valueStart, path, what + ": truncated fixed-width value");
                }
                pos += width;
                return {};
            }
            case 2: {
                std::size_t payloadEnd;
                if (!readLength(pos, end, payloadEnd)) {
                    return at(valueStart, path, what + ": length runs past the end of the enclosing message");
                }
                pos = payloadEnd;
                return {};
            }
            case 3: {
                // A group ends with an end-group key of the same number; nested groups are skipped
                // recursively.
                while (pos < end) {
                    uint64_t key;
                    std::size_t keyStart = pos;
                    if (!readVarint(pos, end, key)) {
                        return at(keyStart, path, what + ": truncated key inside group");
                    }
                    int innerType = static_cast<int>(key & 7);
                    if (innerType == 4) {
                        if ((key >> 3) == number) {
                            return {};
                        }
                        return at(keyStart, path, what + ": mismatched end-group");
                    }
                    if (innerType == 6 || innerType == 7 || (key >> 3) == 0) {
                        return at(keyStart, path, what + ": invalid key inside group");
                    }
                    std::string inner = skipUnknown(pos, end, innerType, key >> 3, path);
                    if (!inner.empty()) {
                        return inner;
                    }
                }
                return at(valueStart, path, what + ": group is not terminated");
            }
            default:
                return at(valueStart, path, what + ": unexpected end-group");
        }
    }

    const uint8_t* m_base;
};

}  // namespace

std::string explainWireError(const uint8_t* data, std::size_t sizeBytes, const Descriptor* type) {
    WireWalker walker(data);
    return walker.walk(0, sizeBytes, type, "");
}

}  // namespace mlnet

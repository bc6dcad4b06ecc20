// Explains why protobuf refused to parse a record. libprotobuf only answers "parse failed"; users need to
// know which field at which byte is wrong, so on failure we walk the bytes again against the message
// descriptor.
#ifndef MLNET_WORKLOAD_WIRE_CHECK_H
#define MLNET_WORKLOAD_WIRE_CHECK_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace google::protobuf {
class Descriptor;
}

namespace mlnet {

// Empty when `data` is a well-formed encoding of `type`; otherwise "<byte offset within the record>:
// <problem>".
std::string explainWireError(const uint8_t* data, std::size_t sizeBytes,
                             const google::protobuf::Descriptor* type);

bool isValidUtf8(const char* text, std::size_t sizeBytes);

}  // namespace mlnet

#endif

// A completion callback without heap allocation: a function pointer, an object and one integer. The simulator
// creates hundreds of millions of these, so they must be trivially copyable and small (24 bytes).
#ifndef MLNET_COMMON_CALLBACK_H
#define MLNET_COMMON_CALLBACK_H

#include <cstdint>

namespace mlnet {

struct Callback {
    using Fn = void (*)(void* object, uint64_t arg);

    Fn fn = nullptr;
    void* object = nullptr;
    uint64_t arg = 0;

    void operator()() const { fn(object, arg); }
    explicit operator bool() const { return fn != nullptr; }
};

// Callback to a member function: makeCallback<&Class::method>(object, arg), method signature void(uint64_t).
template <auto Method, typename T>
Callback makeCallback(T* object, uint64_t arg = 0) {
    return Callback{[](void* o, uint64_t a) { (static_cast<T*>(o)->*Method)(a); }, object, arg};
}

}  // namespace mlnet

#endif

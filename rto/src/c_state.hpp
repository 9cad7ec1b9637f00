#pragma once
// What the two C APIs (rto/rto.h over librto, rto/retry/retry.h over
// librto_retry) share, header-only so that neither library links the other:
// a C state is a struct of private bytes holding a C++ object built in it by
// placement new, and a validation message is copied into the caller's buffer.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>

namespace rto::c_state {

/// Whether a C state S (a union of private bytes) can hold a T: size and alignment.
template <class S, class T>
constexpr bool fits = sizeof(T) <= sizeof(S) && alignof(T) <= alignof(S);

/// The C++ object living in a C state's bytes.
template <class T, class S>
T& impl(S* s) {
  return *std::launder(reinterpret_cast<T*>(s->private_.bytes_));
}
template <class T, class S>
const T& impl(const S* s) {
  return *std::launder(reinterpret_cast<const T*>(s->private_.bytes_));
}

/// Copies `what` into message[0, size), truncated and NUL-terminated; nothing
/// when message is NULL or size is 0.
inline void copy_message(const char* what, char* message, std::size_t size) {
  if (message == nullptr || size == 0) return;
  const std::size_t n = std::min(std::strlen(what), size - 1);
  std::memcpy(message, what, n);
  message[n] = '\0';
}

}  // namespace rto::c_state

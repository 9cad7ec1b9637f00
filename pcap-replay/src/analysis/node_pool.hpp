#pragma once
// An allocator for node containers (std::set, std::map) that keeps the
// nodes it is given back on a free list of its thread and hands them out
// again: a container that adds and removes one element per packet (the SACK
// scoreboard) then costs no malloc/free in steady state. Requests for more
// than one object go to operator new as usual. The nodes on the free list
// go back to operator delete only when the thread ends: until then the list
// holds at most the peak of the nodes of type T in use at once on the thread.
// No container using it may outlive its thread's list (none is static).

#include <cstddef>
#include <new>

namespace replay {

/// The allocator (stateless: every instance shares its thread's list, so
/// containers using it compare equal and may swap and splice).
template <class T>
struct NodePool {
  using value_type = T;
  NodePool() = default;
  template <class U>
  NodePool(const NodePool<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n == 1 && head() != nullptr) {
      Free* f = head();
      head() = f->next;
      return reinterpret_cast<T*>(f);
    }
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n != 1) {
      ::operator delete(p);
      return;
    }
    head() = ::new (static_cast<void*>(p)) Free{head()};  // the node's storage now holds the link
  }
  friend bool operator==(const NodePool&, const NodePool&) noexcept { return true; }

 private:
  struct Free {
    Free* next;
  };
  static_assert(sizeof(T) >= sizeof(Free) && alignof(T) >= alignof(Free), "a free node holds the list's link");
  // The thread's list; its nodes are freed when the thread ends.
  struct List {
    Free* first = nullptr;
    ~List() {
      while (first != nullptr) {
        Free* next = first->next;
        ::operator delete(static_cast<void*>(first));
        first = next;
      }
    }
  };
  static Free*& head() noexcept {
    thread_local List list;
    return list.first;
  }
};

}  // namespace replay

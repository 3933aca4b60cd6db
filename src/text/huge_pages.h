// Memory for the large tables a tokenizer builds while loading (~40 MB: the parsed vocabulary and
// merge lists, the string arena, the hash indexes). On virtual machines a page fault costs ~10 us,
// and with 4 KiB pages those faults were more than a third of the load time. Allocations of 1 MiB
// or more are therefore mapped directly, 2 MiB-aligned and advised for transparent huge pages:
// one fault per 2 MiB. Smaller ones use the ordinary heap. Where huge pages are unavailable the
// advice is ignored and memory behaves as usual.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace affordance::text {

namespace huge_pages {

inline constexpr size_t kHugePage = size_t{2} << 20;
inline constexpr size_t kThreshold = size_t{1} << 20;

inline size_t RoundUp(size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }

inline void* Map(size_t bytes) {
  const size_t length = RoundUp(bytes);
  // Over-map by one huge page, then trim so the region starts on a 2 MiB boundary.
  void* raw = mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1);
  if (aligned > start) munmap(raw, aligned - start);
  if (const size_t tail = start + length + kHugePage - (aligned + length); tail > 0)
    munmap(reinterpret_cast<void*>(aligned + length), tail);
  madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

inline void Unmap(void* p, size_t bytes) { munmap(p, RoundUp(bytes)); }

}  // namespace huge_pages

template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}

  T* allocate(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
    const size_t bytes = n * sizeof(T);
    if (bytes < huge_pages::kThreshold) return std::allocator<T>().allocate(n);
    return static_cast<T*>(huge_pages::Map(bytes));
  }
  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < huge_pages::kThreshold) return std::allocator<T>().deallocate(p, n);
    huge_pages::Unmap(p, bytes);
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
};

template <class T>
using BigVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace affordance::text

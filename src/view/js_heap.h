// JsHeap: the allocator behind one View's QuickJS runtime (internal to src/view).
//
// A render allocates and frees thousands of small JS values (strings, arrays, element objects,
// shapes); with the C library's malloc that bookkeeping was a fifth of an act + re-render. JsHeap
// keeps small blocks (up to kMaxPooled bytes) on free lists per 16-byte size class, carved from
// 64 KiB slabs that live as long as the heap; larger blocks go to malloc. Every block has a
// 16-byte header (its class, or 0 for a malloc'd block), so alignment stays 16.
//
// The runtime's memory limit is enforced here exactly as QuickJS's default allocator does: the
// bytes handed out (usable size + 8 per block) are counted in JSMallocState and an allocation that
// would pass malloc_limit fails. Freed pooled blocks are reused, not returned to the system, until
// the heap is destroyed (after its runtime).
//
// Built without pooling under AddressSanitizer, so the sanitizers see every JS allocation.
// Not thread-safe (one runtime, one thread at a time, like the View).
#pragma once

#include <quickjs.h>

#include <cstddef>
#include <vector>

namespace affordance::view {

class JsHeap {
 public:
  JsHeap() = default;
  ~JsHeap();
  JsHeap(const JsHeap&) = delete;
  JsHeap& operator=(const JsHeap&) = delete;

  // The functions for JS_NewRuntime2(&JsHeap::kFunctions, heap).
  static const JSMallocFunctions kFunctions;

  static constexpr size_t kGrain = 16;
  static constexpr size_t kClasses = 32;
  static constexpr size_t kMaxPooled = kGrain * kClasses;  // 512 bytes
  static constexpr size_t kSlabBytes = 64u << 10;

  size_t slabs() const { return slabs_.size(); }

 private:
  static void* Malloc(JSMallocState* s, size_t size);
  static void Free(JSMallocState* s, void* ptr);
  static void* Realloc(JSMallocState* s, void* ptr, size_t size);
  static size_t UsableSize(const void* ptr);

  void* Take(size_t size);  // a block with at least `size` usable bytes; nullptr when out
  void Give(void* ptr);     // returns a block from Take
  void* Carve(size_t cls);  // a fresh block of class `cls` from the current slab

  struct FreeBlock {
    FreeBlock* next;
  };
  FreeBlock* free_[kClasses + 1] = {};
  std::vector<void*> slabs_;
  char* bump_ = nullptr;
  char* bump_end_ = nullptr;
};

}  // namespace affordance::view

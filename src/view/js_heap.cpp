#include "view/view_impl.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>

#if defined(__SANITIZE_ADDRESS__)
#define AFFORDANCE_JS_HEAP_POOL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define AFFORDANCE_JS_HEAP_POOL 0
#endif
#endif
#ifndef AFFORDANCE_JS_HEAP_POOL
#define AFFORDANCE_JS_HEAP_POOL 1
#endif

namespace affordance::view {
namespace {

constexpr size_t kHeader = 16;   // keeps payloads 16-byte aligned
constexpr size_t kOverhead = 8;  // counted per block, like QuickJS's MALLOC_OVERHEAD

// The header word: the size class (1..kClasses) of a pooled block, 0 for a malloc'd one.
size_t& ClassOf(void* payload) {
  return *reinterpret_cast<size_t*>(static_cast<char*>(payload) - kHeader);
}
size_t ClassOf(const void* payload) {
  return *reinterpret_cast<const size_t*>(static_cast<const char*>(payload) - kHeader);
}

}  // namespace

const JSMallocFunctions JsHeap::kFunctions = {&JsHeap::Malloc, &JsHeap::Free, &JsHeap::Realloc,
                                              &JsHeap::UsableSize};

JsHeap::~JsHeap() {
  for (void* slab : slabs_) std::free(slab);
}

size_t JsHeap::UsableSize(const void* ptr) {
  if (ptr == nullptr) return 0;
  const size_t cls = ClassOf(ptr);
  if (cls != 0) return cls * kGrain;
  return malloc_usable_size(const_cast<char*>(static_cast<const char*>(ptr) - kHeader)) - kHeader;
}

void* JsHeap::Carve(size_t cls) {
  const size_t bytes = kHeader + cls * kGrain;
  if (bump_ == nullptr || static_cast<size_t>(bump_end_ - bump_) < bytes) {
    void* slab = std::malloc(kSlabBytes);
    if (slab == nullptr) return nullptr;
    slabs_.push_back(slab);
    bump_ = static_cast<char*>(slab);
    bump_end_ = bump_ + kSlabBytes;
  }
  void* payload = bump_ + kHeader;
  bump_ += bytes;
  ClassOf(payload) = cls;
  return payload;
}

void* JsHeap::Take(size_t size) {
  if (AFFORDANCE_JS_HEAP_POOL && size <= kMaxPooled) {
    const size_t cls = size == 0 ? 1 : (size + kGrain - 1) / kGrain;
    if (FreeBlock* b = free_[cls]) {
      free_[cls] = b->next;
      return b;  // its header still holds cls
    }
    return Carve(cls);
  }
  char* raw = static_cast<char*>(std::malloc(kHeader + size));
  if (raw == nullptr) return nullptr;
  *reinterpret_cast<size_t*>(raw) = 0;
  return raw + kHeader;
}

void JsHeap::Give(void* ptr) {
  const size_t cls = ClassOf(ptr);
  if (cls == 0) {
    std::free(static_cast<char*>(ptr) - kHeader);
    return;
  }
  auto* b = static_cast<FreeBlock*>(ptr);
  b->next = free_[cls];
  free_[cls] = b;
}

void* JsHeap::Malloc(JSMallocState* s, size_t size) {
  if (s->malloc_size + size > s->malloc_limit) return nullptr;
  void* p = static_cast<JsHeap*>(s->opaque)->Take(size);
  if (p == nullptr) return nullptr;
  s->malloc_count++;
  s->malloc_size += UsableSize(p) + kOverhead;
  return p;
}

void JsHeap::Free(JSMallocState* s, void* ptr) {
  if (ptr == nullptr) return;
  s->malloc_count--;
  s->malloc_size -= UsableSize(ptr) + kOverhead;
  static_cast<JsHeap*>(s->opaque)->Give(ptr);
}

void* JsHeap::Realloc(JSMallocState* s, void* ptr, size_t size) {
  if (ptr == nullptr) return size == 0 ? nullptr : Malloc(s, size);
  if (size == 0) {
    Free(s, ptr);
    return nullptr;
  }
  const size_t old_usable = UsableSize(ptr);
  if (ClassOf(ptr) != 0 && size <= old_usable) return ptr;  // fits its block
  if (size > old_usable && s->malloc_size + (size - old_usable) > s->malloc_limit) return nullptr;
  if (ClassOf(ptr) == 0 && (!AFFORDANCE_JS_HEAP_POOL || size > kMaxPooled)) {
    char* raw = static_cast<char*>(std::realloc(static_cast<char*>(ptr) - kHeader, kHeader + size));
    if (raw == nullptr) return nullptr;
    void* p = raw + kHeader;
    s->malloc_size = s->malloc_size - old_usable + UsableSize(p);
    return p;
  }
  void* p = static_cast<JsHeap*>(s->opaque)->Take(size);
  if (p == nullptr) return nullptr;
  std::memcpy(p, ptr, old_usable < size ? old_usable : size);
  s->malloc_size = s->malloc_size - old_usable + UsableSize(p);
  static_cast<JsHeap*>(s->opaque)->Give(ptr);
  return p;
}

}  // namespace affordance::view

#pragma once
// The huge-page allocator of `dcsim flows`' large arrays (the flows read, the outcomes); private
// to src/network (flows_csv.cpp, flows_tool.cpp).

#include <cstddef>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace sim::net::flows_impl {

// An allocator for the large arrays `dcsim flows` writes once, in order, soon after allocating
// them (the flows read, the outcomes): from 1 MB on, the memory is aligned to 2 MB and the kernel
// asked for transparent huge pages over it. A 4 kB page fault costs ~2.5 us on the machines
// measured, and those two arrays took ~1,600 of a cloud run's ~2,800 faults. A huge page is only
// taken when one of its bytes is written, so pages reserved and never written still cost
// nothing, and what is used grows by at most the last partly written 2 MB. Where the kernel does
// not offer MADV_HUGEPAGE (or refuses it), the pages are ordinary ones.
template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHuge = std::size_t{1} << 21;
  static constexpr std::size_t kFrom = std::size_t{1} << 20;

  HugePageAllocator() = default;
  template <class U>
  explicit HugePageAllocator(const HugePageAllocator<U>& /*other*/) {}

  T* allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kFrom) return std::allocator<T>().allocate(n);
    const std::size_t rounded = (bytes + kHuge - 1) & ~(kHuge - 1);
    void* p = std::aligned_alloc(kHuge, rounded);
    if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    (void)::madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) {
    if (n * sizeof(T) < kFrom) {
      std::allocator<T>().deallocate(p, n);
    } else {
      std::free(p);
    }
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>& /*other*/) const {
    return true;
  }
};

}  // namespace sim::net::flows_impl

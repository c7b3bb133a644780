#pragma once
/// The callable an event runs: a move-only `void()` function object with 32 bytes of inline
/// storage, used by the event queue instead of std::function.
///
/// Why not std::function: the queue moves every callback twice (into its slot, out to the run
/// loop) and destroys it once; for std::function each of these is an indirect call through its
/// manager. Here a callable that fits inline and is trivially copyable (the usual `[this]`,
/// `[this, id]` or `[this, a, b, c]` lambdas) is moved by copying bytes and needs no
/// destructor call, so scheduling and running an event make one indirect call: the callback.
/// Larger callables, or ones needing more than pointer alignment, live on the heap (as with
/// std::function); other callables that fit are moved through their move constructor.
///
/// It is built implicitly from any callable, including a std::function or a function pointer;
/// an empty std::function or a null pointer gives an empty EventCallback.

#include <cstddef>
#include <cstring>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

namespace sim {

namespace detail {
template <class T>
inline constexpr bool kIsStdFunction = false;
template <class R, class... A>
inline constexpr bool kIsStdFunction<std::function<R(A...)>> = true;
}  // namespace detail

class EventCallback {
 public:
  /// Inline storage: four pointers' worth, enough for a lambda capturing `this` and three more
  /// words (std::function's is two).
  static constexpr std::size_t kInlineSize = 32;

  EventCallback() = default;
  EventCallback(std::nullptr_t) {}  // NOLINT(google-explicit-constructor): like std::function

  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, EventCallback> &&
                                              std::is_invocable_r_v<void, std::decay_t<F>&>>>
  EventCallback(F&& f) {  // NOLINT(google-explicit-constructor): like std::function
    construct(std::forward<F>(f));
  }

  /// Replaces the callable by `f`, built in place (no intermediate EventCallback to move).
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, EventCallback> &&
                                              std::is_invocable_r_v<void, std::decay_t<F>&>>>
  void assign(F&& f) {
    reset();
    construct(std::forward<F>(f));
  }
  void assign(EventCallback&& o) noexcept { *this = std::move(o); }
  void assign(std::nullptr_t) noexcept { reset(); }

  /// Whether a callable of type F may make an empty EventCallback (a null pointer, an empty
  /// std::function or EventCallback): only then need a caller test the result.
  template <class F>
  static constexpr bool kMayBeEmpty =
      std::is_pointer_v<std::decay_t<F>> || std::is_member_pointer_v<std::decay_t<F>> ||
      detail::kIsStdFunction<std::decay_t<F>> || std::is_same_v<std::decay_t<F>, EventCallback> ||
      std::is_same_v<std::decay_t<F>, std::nullptr_t>;
  /// assign() without the tests and stores of a reset, for a callback known to hold nothing
  /// to destroy: builds `f` (precondition: empty, as a free slot of the event queue), or takes
  /// `o` (precondition: !needs_destroy(), as the run loop's holder of the last callback).
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, EventCallback> &&
                                              std::is_invocable_r_v<void, std::decay_t<F>&>>>
  void assign_empty(F&& f) {
    construct(std::forward<F>(f));
  }
  void assign_empty(EventCallback&& o) noexcept { take(o); }
  void assign_empty(std::nullptr_t) noexcept {}

  EventCallback(EventCallback&& o) noexcept { take(o); }
  EventCallback& operator=(EventCallback&& o) noexcept {
    if (this != &o) {
      reset();
      take(o);
    }
    return *this;
  }
  EventCallback& operator=(std::nullptr_t) noexcept {
    reset();
    return *this;
  }
  EventCallback(const EventCallback&) = delete;
  EventCallback& operator=(const EventCallback&) = delete;
  ~EventCallback() { reset(); }

  explicit operator bool() const { return invoke_ != nullptr; }
  /// Whether dropping the callable needs a call (a destructor, or freeing a heap copy); false
  /// for the usual small trivially copyable lambda, and when empty.
  [[nodiscard]] bool needs_destroy() const { return manage_ != nullptr; }
  /// Calls the callable. Precondition: not empty.
  void operator()() const { invoke_(storage_); }
  /// A hint, no effect on behaviour: prefetches what the stored word at the front of the
  /// callable points to, taken as an address (a lambda's first capture, usually `this`, or a
  /// heap-stored callable). The event queue calls it for the next event while this one runs,
  /// so that the object the next callback starts on (an execution unit, a queue) is on its way
  /// to the cache. A word that is no address is harmless: a prefetch never faults.
  void prefetch_target() const noexcept {
    if (invoke_ == nullptr) return;
    const void* p = nullptr;
    std::memcpy(&p, storage_, sizeof p);
    __builtin_prefetch(p);
  }

 private:
  enum class Op { kMove, kDestroy };
  using Invoke = void (*)(void*);
  /// kMove: move-construct the callable at `dst` from `src` and destroy `src`'s; kDestroy:
  /// destroy the callable at `src`. Null when the stored bytes can be copied and dropped.
  using Manage = void (*)(Op, void* dst, void* src);

  template <class D>
  static constexpr bool kFitsInline =
      sizeof(D) <= kInlineSize &&
      alignof(D) <= alignof(void*) && std::is_nothrow_move_constructible_v<D>;

  template <class D>
  static void invoke_inline(void* s) {
    (*std::launder(static_cast<D*>(s)))();
  }
  template <class D>
  static void manage_inline(Op op, void* dst, void* src) {
    D* from = std::launder(static_cast<D*>(src));
    if (op == Op::kMove) ::new (dst) D(std::move(*from));
    from->~D();
  }
  template <class D>
  static D* heap_object(void* s) {
    D* p = nullptr;
    std::memcpy(&p, s, sizeof p);
    return p;
  }
  template <class D>
  static void invoke_heap(void* s) {
    (*heap_object<D>(s))();
  }
  template <class D>
  static void manage_heap(Op op, void* dst, void* src) {
    if (op == Op::kMove) {
      std::memcpy(dst, src, sizeof(D*));  // the object stays where it is; only its address moves
    } else {
      delete heap_object<D>(src);
    }
  }

  /// Precondition: empty.
  template <class F>
  void construct(F&& f) {
    using D = std::decay_t<F>;
    if constexpr (std::is_pointer_v<D> || std::is_member_pointer_v<D> ||
                  detail::kIsStdFunction<D>) {
      if (!f) return;
    }
    if constexpr (kFitsInline<D>) {
      // A callable shorter than a word: prefetch_target() reads defined bytes.
      if constexpr (sizeof(D) < sizeof(void*)) std::memset(storage_, 0, sizeof(void*));
      ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
      invoke_ = &invoke_inline<D>;
      if constexpr (!(std::is_trivially_copyable_v<D> && std::is_trivially_destructible_v<D>)) {
        manage_ = &manage_inline<D>;
      }
    } else {
      D* p = new D(std::forward<F>(f));
      std::memcpy(storage_, &p, sizeof p);
      invoke_ = &invoke_heap<D>;
      manage_ = &manage_heap<D>;
    }
  }

  void take(EventCallback& o) noexcept {
    if (o.manage_ != nullptr) {
      o.manage_(Op::kMove, storage_, o.storage_);
    } else {
      std::memcpy(storage_, o.storage_, kInlineSize);
    }
    invoke_ = o.invoke_;
    manage_ = o.manage_;
    o.invoke_ = nullptr;
    o.manage_ = nullptr;
  }
  void reset() noexcept {
    if (manage_ != nullptr) manage_(Op::kDestroy, nullptr, storage_);
    invoke_ = nullptr;
    manage_ = nullptr;
  }

  Invoke invoke_ = nullptr;
  Manage manage_ = nullptr;
  alignas(void*) mutable unsigned char storage_[kInlineSize];
};

}  // namespace sim

// A header of a small formatting library: .h, but C++, with the library's macros before, between and
// after declarations.
#include <string>

LIB_BEGIN_NAMESPACE
namespace detail {

template <typename OutputIt, typename Char, typename F>
LIB_CONSTEXPR auto write_padded(OutputIt out, const spec<Char>& s, size_t width, F&& f) -> OutputIt {
  static_assert(sizeof(Char) > 0, "");
  return f(out);
}

template <typename Char, typename OutputIt,
          LIB_ENABLE_IF(std::is_same<Char, char>::value)>
LIB_CONSTEXPR LIB_INLINE auto write(OutputIt out, Char value) -> OutputIt {
  return out;
}

LIB_EXPORT template <typename T> LIB_NODISCARD auto view_of(const T& v) -> int { return 0; }

}  // namespace detail

LIB_NON_NULL(1) void check_path(const char* p) { }
LIB_API void report(int code, const char* msg);

template <typename T, typename Char>
struct formatter<T, Char, enable_if_t<is_int<T>::value>> : base<T> {
  template <typename Ctx>
  LIB_CONSTEXPR auto format(const T& val, Ctx& ctx) const -> decltype(ctx.out()) {
    return ctx.out();
  }
  LIB_CONSTEXPR formatter() noexcept : width(0) {}
  LIB_CONSTEXPR20 formatter(int w) : width(w) {}
  template <typename U> formatter(U w, int fill) : width(w) {}
  LIB_CONSTEXPR ~formatter() {}
  int width;
};

LIB_TPL_DECLARATION
class basic_value {
 public:
  LIB_NODISCARD static basic_value parse(int v) { return {}; }
  basic_value(const basic_value& o) : v(o.v) {}
  int v;
};

class LIB_API registry : public base {
 public:
  void clear() LIB_NOEXCEPT { }
  int size() const LIB_OVERRIDE;
  void add(int k) LIB_LOCKS_EXCLUDED(mu_);
  void remove(int k) LIB_LOCKS_EXCLUDED(mu_) { }
  bool operator==(const registry& o) const { return true; }
  ~registry() override;
  Callback* callback_ LIB_GUARDED_BY(mu_);
  int count_ = 0;
};

size_t LIB_INLINE pool::queue_size() { return 0; }
template <>
bool is_exponent<10>(char ch) { return ch == 'e'; }
Builder::Rep::Rep(const Rep& r) : s(r.s) {}

LIB_END_NAMESPACE

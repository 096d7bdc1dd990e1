#pragma once
// The one place that picks std::expected (C++23) or tl::expected.
#if __has_include(<expected>) && __cplusplus > 202002L
#include <expected>
namespace mem0 {
template <class T, class E> using expected = std::expected<T, E>;
template <class E> auto unexpected(E e) { return std::unexpected<E>(std::move(e)); }
} // namespace mem0
#else
#include <tl/expected.hpp>
namespace mem0 {
template <class T, class E> using expected = tl::expected<T, E>;
template <class E> auto unexpected(E e) { return tl::unexpected<E>(std::move(e)); }
} // namespace mem0
#endif

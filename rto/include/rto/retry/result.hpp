#pragma once
// rto::Result<T, E>: a value or an error, for a callable given to rto::retry()
// (call.hpp) to say how its attempt ended. The shape of C++23's
// std::expected (has_value(), value(), error()), which C++20 lacks; retry()
// accepts either, or any type of that shape.

#include <cstddef>
#include <optional>
#include <utility>
#include <variant>

namespace rto {

/// A value of type T, or an error of type E (T and E may be the same type:
/// the factories say which one is meant). value() and error() require the
/// matching alternative (checked: std::bad_variant_access, or abort without
/// exceptions).
template <class T, class E>
class [[nodiscard]] Result {
 public:
  using value_type = T;
  using error_type = E;

  static Result success(T value) { return Result(std::in_place_index<0>, std::move(value)); }
  static Result failure(E error) { return Result(std::in_place_index<1>, std::move(error)); }

  bool has_value() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  E& error() & { return std::get<1>(v_); }
  const E& error() const& { return std::get<1>(v_); }
  E&& error() && { return std::get<1>(std::move(v_)); }

 private:
  template <std::size_t I, class A>
  Result(std::in_place_index_t<I> i, A&& a) : v_(i, std::forward<A>(a)) {}
  std::variant<T, E> v_;
};

/// An operation that returns nothing on success, or an error of type E.
template <class E>
class [[nodiscard]] Result<void, E> {
 public:
  using value_type = void;
  using error_type = E;

  static Result success() { return Result(); }
  static Result failure(E error) { return Result(std::move(error)); }

  bool has_value() const noexcept { return !error_.has_value(); }
  explicit operator bool() const noexcept { return has_value(); }

  E& error() & { return error_.value(); }
  const E& error() const& { return error_.value(); }
  E&& error() && { return std::move(error_).value(); }

 private:
  Result() = default;
  explicit Result(E e) : error_(std::move(e)) {}
  std::optional<E> error_;
};

}  // namespace rto

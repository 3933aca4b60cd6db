// Errors as values across part boundaries.
//
// Every failure a user can cause is reported as an Error with a stable machine-readable `code`
// (dotted, lower-case: "tokenizer.invalid_utf8"), a one-sentence human `message`, and an optional
// `detail` (e.g. a file:line:column or the offending input). Result<T> holds either a value or an
// Error. Exceptions never cross a part's public interface.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace affordance {

struct Error {
  std::string code;
  std::string message;
  std::string detail;

  // "message (detail)" or just "message"; what a person reads.
  std::string ToString() const { return detail.empty() ? message : message + " (" + detail + ")"; }
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const {
    assert(!ok_);
    return error_;
  }

 private:
  Error error_;
  bool ok_ = true;
};

using Status = Result<void>;

inline Error MakeError(std::string code, std::string message, std::string detail = {}) {
  return Error{std::move(code), std::move(message), std::move(detail)};
}

}  // namespace affordance

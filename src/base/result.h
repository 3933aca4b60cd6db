// Errors as values across part boundaries.
//
// Every failure a user can cause is reported as an Error with a stable machine-readable `code`
// (dotted, lower-case: "tokenizer.invalid_utf8"), a one-sentence human `message`, an optional
// `detail` (e.g. a file:line:column or the offending input), and its `kind`: a closed category
// (in the spirit of LevelDB's Status and gRPC's codes) set where the error is made. Every door
// derives what it shows from the kind, here and only here: the HTTP status (HttpStatusOf), the
// CLI exit code (ExitCodeOf) and the `category` field of an error body at every door (HTTP, MCP,
// `--json`). An error made without a kind is kInternal (500, exit 1). Result<T> holds either a
// value or an Error. Exceptions never cross a part's public interface.
#pragma once

#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace affordance {

enum class ErrorKind {
  kInternal,          // a fault of ours or of something we depend on          500, exit 1
  kInvalid,           // the input is malformed or breaks a rule              400, exit 2
  kUnauthenticated,   // no credential, or an expired one                     401, exit 1
  kForbidden,         // refused: the caller may not do this                  403, exit 1
  kNotFound,          // what the caller named does not exist                 404, exit 2
  kNotAllowed,        // the method is not served on this path               405, exit 2
  kTimeout,           // the caller was too slow                              408, exit 1
  kConflict,          // the current state does not allow it (now)            409, exit 2
  kTooLarge,          // the input is over a size limit                       413, exit 2
  kUnsupportedMedia,  // the body is not of a type this door reads            415, exit 2
  kMisdirected,       // the request was addressed to another server          421, exit 1
  kTooManyRequests,   // too many tries (wrong credentials): wait, then retry   429, exit 1
  kUnavailable,       // busy or stopping: try again later                    503, exit 1
};

// "internal", "invalid", "unauthenticated", "forbidden", "not_found", "not_allowed", "timeout",
// "conflict", "too_large", "unsupported_media", "misdirected", "too_many_requests", "unavailable".
constexpr std::string_view ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInternal:
      return "internal";
    case ErrorKind::kInvalid:
      return "invalid";
    case ErrorKind::kUnauthenticated:
      return "unauthenticated";
    case ErrorKind::kForbidden:
      return "forbidden";
    case ErrorKind::kNotFound:
      return "not_found";
    case ErrorKind::kNotAllowed:
      return "not_allowed";
    case ErrorKind::kTimeout:
      return "timeout";
    case ErrorKind::kConflict:
      return "conflict";
    case ErrorKind::kTooLarge:
      return "too_large";
    case ErrorKind::kUnsupportedMedia:
      return "unsupported_media";
    case ErrorKind::kMisdirected:
      return "misdirected";
    case ErrorKind::kTooManyRequests:
      return "too_many_requests";
    case ErrorKind::kUnavailable:
      return "unavailable";
  }
  return "internal";
}

constexpr int HttpStatusOf(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInternal:
      return 500;
    case ErrorKind::kInvalid:
      return 400;
    case ErrorKind::kUnauthenticated:
      return 401;
    case ErrorKind::kForbidden:
      return 403;
    case ErrorKind::kNotFound:
      return 404;
    case ErrorKind::kNotAllowed:
      return 405;
    case ErrorKind::kTimeout:
      return 408;
    case ErrorKind::kConflict:
      return 409;
    case ErrorKind::kTooLarge:
      return 413;
    case ErrorKind::kUnsupportedMedia:
      return 415;
    case ErrorKind::kMisdirected:
      return 421;
    case ErrorKind::kTooManyRequests:
      return 429;
    case ErrorKind::kUnavailable:
      return 503;
  }
  return 500;
}

// 2 (a bad invocation, input or request for this state: change the command) or 1 (it failed: see
// the message, or prove who you are).
constexpr int ExitCodeOf(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalid:
    case ErrorKind::kNotFound:
    case ErrorKind::kNotAllowed:
    case ErrorKind::kConflict:
    case ErrorKind::kTooLarge:
    case ErrorKind::kUnsupportedMedia:
      return 2;
    default:
      return 1;
  }
}

struct Error {
  std::string code;
  std::string message;
  std::string detail;
  ErrorKind kind = ErrorKind::kInternal;

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
inline Error MakeError(ErrorKind kind, std::string code, std::string message,
                       std::string detail = {}) {
  return Error{std::move(code), std::move(message), std::move(detail), kind};
}

}  // namespace affordance

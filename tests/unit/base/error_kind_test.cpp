// ErrorKind (base/result.h): the one place an error's category becomes an HTTP status, an exit
// code and the `category` name every door writes.
#include "base/json_limits.h"
#include "base/result.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace affordance {
namespace {

constexpr ErrorKind kAll[] = {
    ErrorKind::kInternal,         ErrorKind::kInvalid,     ErrorKind::kUnauthenticated,
    ErrorKind::kForbidden,        ErrorKind::kNotFound,    ErrorKind::kNotAllowed,
    ErrorKind::kTimeout,          ErrorKind::kConflict,    ErrorKind::kTooLarge,
    ErrorKind::kUnsupportedMedia, ErrorKind::kMisdirected, ErrorKind::kUnavailable};

TEST(ErrorKind, EachKindHasItsOwnNameAndStatusAndAnExitCodeOfOneOrTwo) {
  std::set<std::string> names;
  std::set<int> statuses;
  for (ErrorKind k : kAll) {
    names.insert(std::string(ErrorKindName(k)));
    statuses.insert(HttpStatusOf(k));
    const int exit = ExitCodeOf(k);
    EXPECT_TRUE(exit == 1 || exit == 2) << ErrorKindName(k);
    // Usage (2) is exactly the caller's own request: a 4xx that is not about credentials, time or
    // the address.
    const int s = HttpStatusOf(k);
    const bool usage = s == 400 || s == 404 || s == 405 || s == 409 || s == 413 || s == 415;
    EXPECT_EQ(exit == 2, usage) << ErrorKindName(k);
  }
  EXPECT_EQ(names.size(), std::size(kAll));
  EXPECT_EQ(statuses.size(), std::size(kAll));
  EXPECT_EQ(HttpStatusOf(ErrorKind::kInvalid), 400);
  EXPECT_EQ(HttpStatusOf(ErrorKind::kMisdirected), 421);
  EXPECT_EQ(ErrorKindName(ErrorKind::kNotFound), "not_found");
}

TEST(ErrorKind, AnErrorMadeWithoutAKindIsInternalAndTheKindTravelsWithTheError) {
  EXPECT_EQ(MakeError("x.y", "m").kind, ErrorKind::kInternal);
  const Error e = MakeError(ErrorKind::kConflict, "server.turn_active", "busy", "t1");
  EXPECT_EQ(e.kind, ErrorKind::kConflict);
  EXPECT_EQ(e.code, "server.turn_active");
  EXPECT_EQ(e.ToString(), "busy (t1)");
  Result<int> r = e;
  EXPECT_EQ(r.error().kind, ErrorKind::kConflict);
}

TEST(ErrorKind, InputTooDeepOrNotJsonIsInvalidAtEveryDoor) {
  const std::string deep(200, '[');
  auto too_deep = ParseJson<nlohmann::json>(deep, "door.too_deep", "door.bad_json", "the body");
  ASSERT_FALSE(too_deep.ok());
  EXPECT_EQ(too_deep.error().kind, ErrorKind::kInvalid);
  auto bad = ParseJson<nlohmann::json>("{", "door.too_deep", "door.bad_json", "the body");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "door.bad_json");
  EXPECT_EQ(bad.error().kind, ErrorKind::kInvalid);
}

}  // namespace
}  // namespace affordance

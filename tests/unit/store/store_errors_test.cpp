// Errors a caller or a damaged file can cause: bad input and unknown ids (checked before anything
// is written, messages checked), and columns corrupted by hand (read back as store.io naming the
// row).
#include "base/json_limits.h"
#include "support.h"

namespace affordance::store {
namespace {

using nlohmann::json;
using testing::StoreFixture;

// ---- bad input ----------------------------------------------------------------------------------

class StoreBadInput : public StoreFixture {};

TEST_F(StoreBadInput, UnknownIdsAreNotFoundNamingTheId) {
  auto expect_not_found = [](const auto& r, const std::string& what) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "store.not_found");
    EXPECT_EQ(r.error().message, what);
  };
  expect_not_found(store_->GetThread("t_nope"), "no thread \"t_nope\" in the store");
  expect_not_found(store_->RenameThread("t_nope", "x"), "no thread \"t_nope\" in the store");
  expect_not_found(store_->DeleteThread("t_nope"), "no thread \"t_nope\" in the store");
  expect_not_found(store_->LoadThread("t_nope"), "no thread \"t_nope\" in the store");
  expect_not_found(store_->AddMessage("t_nope", "user", "complete", {}),
                   "no thread \"t_nope\" in the store");
  expect_not_found(store_->UpdateMessage("m_nope", "complete", {}),
                   "no message \"m_nope\" in the store");
  expect_not_found(store_->PutPart("m_nope", Part(0, "x")), "no message \"m_nope\" in the store");
  expect_not_found(store_->PutStep("m_nope", StepRecord{}), "no message \"m_nope\" in the store");
  expect_not_found(store_->LoadMessage("m_nope"), "no message \"m_nope\" in the store");
  EXPECT_EQ(Raw("SELECT count(*) FROM threads"), "0");  // nothing was written on the way
}

TEST_F(StoreBadInput, RolesStatusesKindsAndPayloads) {
  auto t = NewThread();
  auto m = NewMessage(t.id);
  auto expect_bad = [](const auto& r, const std::string& message) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "store.bad_input");
    EXPECT_EQ(r.error().message, message);
  };
  expect_bad(store_->AddMessage(t.id, "system", "complete", {}),
             "message role \"system\" is not one of user, assistant");
  expect_bad(store_->AddMessage(t.id, "", "complete", {}),
             "message role \"\" is not one of user, assistant");
  expect_bad(store_->AddMessage(t.id, "user", "done", {}),
             "message status \"done\" is not one of running, complete, interrupted");
  expect_bad(store_->UpdateMessage(m.id, "finished", {}),
             "message status \"finished\" is not one of running, complete, interrupted");
  expect_bad(store_->AddMessage(t.id, "user", "complete", json::array({1})),
             "message meta must be a JSON object, not array");
  PartRecord p = Part(3, "x");
  p.kind = "";
  expect_bad(store_->PutPart(m.id, p), "part 3 of message " + m.id + ": kind is empty");
  p = Part(-1, "x");
  expect_bad(store_->PutPart(m.id, p), "part -1 of message " + m.id + ": seq must not be negative");
  p = Part(0, "x");
  p.data = "just a string";
  expect_bad(store_->PutPart(m.id, p),
             "part 0 of message " + m.id + ": data must be a JSON object, not string");
  p.data = {{"text", std::string("\xff\xfe not utf-8")}};
  auto r = store_->PutPart(m.id, p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "store.bad_input");
  EXPECT_NE(r.error().message.find("part 0 of message " + m.id + ": data cannot be stored"),
            std::string::npos)
      << r.error().message;
  StepRecord s;
  s.status = "done";
  expect_bad(store_->PutStep(m.id, s),
             "step status \"done\" is not one of running, finished, error, aborted, interrupted");
  s.status = "finished";
  s.index = -2;
  expect_bad(store_->PutStep(m.id, s),
             "step -2 of message " + m.id + ": index must not be negative");
  auto loaded = store_->LoadMessage(m.id);
  ASSERT_TRUE(loaded.ok());
  EXPECT_TRUE(loaded->parts.empty());
  EXPECT_TRUE(loaded->steps.empty());
  EXPECT_EQ(store_->GetThread(t.id)->messages, 1);
}

// Issue 24: every stored value reads back, so one nested deeper than kMaxStoredJsonDepth is
// refused when written (dump would recurse over it), and nothing is written on the way.
TEST_F(StoreBadInput, ValuesNestedTooDeepAreRefusedAndTheLimitIsStored) {
  auto t = NewThread();
  auto m = NewMessage(t.id);
  PartRecord p = Part(0, "x");
  json* inner = &p.data["deep"];
  for (int i = 0; i < 1000000; ++i) inner = &(*inner)["k"];  // built without recursion
  auto r = store_->PutPart(m.id, p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "store.too_deep");
  EXPECT_EQ(r.error().message, "part 0 of message " + m.id +
                                   ": data nests deeper than 256 levels of arrays and objects; it "
                                   "cannot be stored");
  EXPECT_EQ(Raw("SELECT count(*) FROM parts"), "0");
  p.data = json::object();
  inner = &p.data;
  for (int i = 1; i < 256; ++i) inner = &(*inner)["k"];
  *inner = json::array();  // 256 levels with the data object
  STORE_ASSERT_OK(store_->PutPart(m.id, p));
  auto loaded = store_->LoadMessage(m.id);
  ASSERT_TRUE(loaded.ok()) << loaded.error().ToString();
  EXPECT_EQ(JsonValueDepth(loaded->parts.at(0).data, 1000), 256);
}

// ---- corrupted columns --------------------------------------------------------------------------

class StoreCorruption : public StoreFixture {};

TEST_F(StoreCorruption, MalformedJsonReadsBackAsIoErrorNamingTheRow) {
  auto t = NewThread();
  auto m = NewMessage(t.id);
  STORE_ASSERT_OK(store_->PutPart(m.id, Part(0, "fine")));
  STORE_ASSERT_OK(store_->PutPart(m.id, Part(1, "soon broken")));
  ASSERT_EQ(Raw("UPDATE parts SET data = '{\"text\": \"oops' WHERE seq = 1"), "");
  auto check = [&](const Error& e) {
    EXPECT_EQ(e.code, "store.io");
    EXPECT_EQ(e.message,
              "the data of part 1 of message " + m.id + " is corrupted: not a JSON object");
    EXPECT_EQ(e.detail, "{\"text\": \"oops");
  };
  auto message = store_->LoadMessage(m.id);
  ASSERT_FALSE(message.ok());
  check(message.error());
  auto thread = store_->LoadThread(t.id);
  ASSERT_FALSE(thread.ok());
  check(thread.error());
  ASSERT_EQ(Raw("UPDATE parts SET data = '{}' WHERE seq = 1"), "");
  ASSERT_EQ(Raw("UPDATE messages SET meta = 'not json'"), "");
  auto r = store_->LoadThread(t.id);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "the meta of message " + m.id + " is corrupted: not a JSON object");
  ASSERT_EQ(Raw("UPDATE messages SET meta = '{}'"), "");
  STORE_ASSERT_OK(store_->PutStep(m.id, StepRecord{}));
  ASSERT_EQ(Raw("UPDATE steps SET detail = '[1,2'"), "");
  r = store_->LoadThread(t.id);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "the detail of step 0 of message " + m.id + " is corrupted: not a JSON object");
  ASSERT_EQ(Raw("UPDATE steps SET detail = '{}', tokens = x'0102030405'"), "");
  auto one = store_->LoadMessage(m.id);
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.error().code, "store.io");
  EXPECT_EQ(one.error().message, "step 0 of message " + m.id +
                                     " is corrupted: its tokens are 5 bytes, not a multiple of 4");
  // The store stays usable.
  ASSERT_EQ(Raw("UPDATE steps SET tokens = x''"), "");
  EXPECT_TRUE(store_->LoadThread(t.id).ok());
}

// A file edited by hand (or damaged) can hold a column a million levels deep: it reads back as a
// typed error naming the row, before it is parsed, and the store stays usable.
TEST_F(StoreCorruption, AColumnNestedTooDeepReadsBackAsTooDeepNamingTheRow) {
  auto t = NewThread();
  auto m = NewMessage(t.id);
  STORE_ASSERT_OK(store_->PutPart(m.id, Part(0, "soon deep")));
  ASSERT_EQ(Raw("UPDATE parts SET data = '{\"a\": ' || replace(hex(zeroblob(1000000)), '00', '[')"
                " || replace(hex(zeroblob(1000000)), '00', ']') || '}'"),
            "");
  ASSERT_EQ(Raw("SELECT length(data) FROM parts"), "2000007");
  auto r = store_->LoadMessage(m.id);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "store.too_deep");
  EXPECT_EQ(r.error().message, "the data of part 0 of message " + m.id +
                                   " is corrupted: it nests deeper than 256 levels of arrays and "
                                   "objects");
  ASSERT_EQ(Raw("UPDATE parts SET data = '{}'"), "");
  EXPECT_TRUE(store_->LoadThread(t.id).ok());
}

}  // namespace
}  // namespace affordance::store

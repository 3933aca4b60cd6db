// Artifacts in the store (schema version 3): versions, lineage, slugs, the head's compare-and-set,
// and fail-closed saves under a simulated disk error.
#include "faulty_vfs.h"
#include "support.h"

namespace affordance::store::testing {
namespace {

class StoreArtifacts : public StoreFixture {
 protected:
  static void SetUpTestSuite() { FaultyVfs::Install(); }
  void TearDown() override { FaultyVfs::FailWrites(false); }

  static ArtifactRecord Artifact(const std::string& id, const std::string& kind = "inline",
                                 const std::string& slug = "") {
    ArtifactRecord a;
    a.id = id;
    a.kind = kind;
    a.app_slug = slug;
    a.title = "t";
    return a;
  }
  static ArtifactVersionRecord Version(const std::string& id, int64_t v, int64_t parent,
                                       const std::string& body) {
    ArtifactVersionRecord r;
    r.artifact_id = id;
    r.version = v;
    r.parent = parent;
    r.body = body;
    r.bindings = {{"queries", nlohmann::json::array()}};
    return r;
  }
};

TEST_F(StoreArtifacts, VersionsKeepTheirExactBodiesAndLineage) {
  auto a = Artifact("a_1", "panel");
  STORE_ASSERT_OK(store_->SaveArtifactVersion(a, Version("a_1", 1, 0, "root = Card([])")));
  auto v2 = Version("a_1", 2, 1, "root = Card([], \"x\")");
  v2.patch = "root = Card([], \"x\")";
  STORE_ASSERT_OK(store_->SaveArtifactVersion(a, v2));
  Reopen();
  auto got = store_->GetArtifact("a_1");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->head, 2);
  EXPECT_EQ(got->kind, "panel");
  auto versions = store_->ArtifactVersions("a_1");
  ASSERT_TRUE(versions.ok());
  ASSERT_EQ(versions->size(), 2u);
  EXPECT_EQ((*versions)[0].body, "root = Card([])");
  EXPECT_EQ((*versions)[0].parent, 0);
  EXPECT_EQ((*versions)[1].parent, 1);
  EXPECT_EQ((*versions)[1].patch, "root = Card([], \"x\")");
  auto head = store_->GetArtifactVersion("a_1", 0);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->version, 2);
  auto first = store_->GetArtifactVersion("a_1", 1);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->body, "root = Card([])");
}

TEST_F(StoreArtifacts, LiveAppsOpenBySlugAndSlugsAreUnique) {
  STORE_ASSERT_OK(
      store_->SaveArtifactVersion(Artifact("a_1", "live_app", "week"), Version("a_1", 1, 0, "b")));
  auto by_slug = store_->GetArtifact("week");
  ASSERT_TRUE(by_slug.ok());
  EXPECT_EQ(by_slug->id, "a_1");
  Status taken =
      store_->SaveArtifactVersion(Artifact("a_2", "live_app", "week"), Version("a_2", 1, 0, "b"));
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.error().code, "store.conflict");
  EXPECT_EQ(taken.error().message, "the app slug \"week\" belongs to artifact a_1");
  EXPECT_EQ(store_->GetArtifact("a_2").error().code, "store.not_found");
}

TEST_F(StoreArtifacts, AStaleHeadIsAConflictAndWritesNothing) {
  auto a = Artifact("a_1");
  STORE_ASSERT_OK(store_->SaveArtifactVersion(a, Version("a_1", 1, 0, "one")));
  STORE_ASSERT_OK(store_->SaveArtifactVersion(a, Version("a_1", 2, 1, "two")));
  Status stale = store_->SaveArtifactVersion(a, Version("a_1", 2, 1, "other two"));
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.error().code, "store.conflict");
  Status skip = store_->SaveArtifactVersion(a, Version("a_1", 4, 3, "four"));
  ASSERT_FALSE(skip.ok());
  EXPECT_EQ(skip.error().message, "artifact a_1 is at version 2, not 3");
  EXPECT_EQ(store_->GetArtifactVersion("a_1", 0)->body, "two");
}

TEST_F(StoreArtifacts, BadInputIsRefusedWithMessages) {
  auto bad_kind = store_->SaveArtifactVersion(Artifact("a_1", "popup"), Version("a_1", 1, 0, "b"));
  EXPECT_EQ(bad_kind.error().message,
            "artifact kind \"popup\" is not one of inline, panel, live_app");
  auto no_slug =
      store_->SaveArtifactVersion(Artifact("a_1", "live_app"), Version("a_1", 1, 0, "b"));
  EXPECT_EQ(no_slug.error().message, "a live_app artifact needs an app_slug");
  auto empty = store_->SaveArtifactVersion(Artifact("a_1"), Version("a_1", 1, 0, ""));
  EXPECT_EQ(empty.error().message, "an artifact version needs a body");
  auto loop = store_->SaveArtifactVersion(Artifact("a_1"), Version("a_1", 1, 1, "b"));
  EXPECT_EQ(loop.error().code, "store.bad_input");
  auto unknown = store_->ArtifactVersions("a_nope");
  EXPECT_EQ(unknown.error().message, "no artifact \"a_nope\" in the store");
}

TEST_F(StoreArtifacts, ADiskErrorDuringASaveLeavesThePreviousVersionWhole) {
  auto a = Artifact("a_1", "live_app", "week");
  STORE_ASSERT_OK(store_->SaveArtifactVersion(a, Version("a_1", 1, 0, "root = Card([])")));
  FaultyVfs::FailWrites(true);
  const int before = FaultyVfs::failures();
  Status failed = store_->SaveArtifactVersion(a, Version("a_1", 2, 1, std::string(20000, 'x')));
  FaultyVfs::FailWrites(false);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, "store.io");
  EXPECT_GT(FaultyVfs::failures(), before);  // the disk really refused a write
  // The same store keeps working, and the file (reopened) holds version 1 only, untouched.
  auto head = store_->GetArtifactVersion("a_1", 0);
  ASSERT_TRUE(head.ok()) << head.error().ToString();
  EXPECT_EQ(head->version, 1);
  Reopen();
  ASSERT_TRUE(store_);
  EXPECT_EQ(store_->GetArtifact("week")->head, 1);
  EXPECT_EQ(store_->ArtifactVersions("a_1")->size(), 1u);
  EXPECT_EQ(store_->GetArtifactVersion("a_1", 0)->body, "root = Card([])");
  EXPECT_EQ(RawSql(path_, "PRAGMA integrity_check"), "ok");
  // And the next save after the disk recovered is version 2.
  STORE_ASSERT_OK(store_->SaveArtifactVersion(a, Version("a_1", 2, 1, "root = Card([], \"y\")")));
  EXPECT_EQ(store_->GetArtifact("a_1")->head, 2);
}

TEST_F(StoreArtifacts, ListIsNewestFirst) {
  auto one = Version("a_1", 1, 0, "b");
  one.created_ms = 1000;
  auto two = Version("a_2", 1, 0, "b");
  two.created_ms = 2000;
  STORE_ASSERT_OK(store_->SaveArtifactVersion(Artifact("a_1"), one));
  STORE_ASSERT_OK(store_->SaveArtifactVersion(Artifact("a_2"), two));
  auto list = store_->ListArtifacts();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].id, "a_2");
  EXPECT_EQ((*list)[1].id, "a_1");
}

}  // namespace
}  // namespace affordance::store::testing

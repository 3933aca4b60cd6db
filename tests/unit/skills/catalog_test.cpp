// The skill catalog (src/skills/catalog.cpp) over real folders in a temporary directory: sources
// in precedence order, the digest of exactly the bytes loaded (checked against sha256sum), a new
// digest after an edit, and every bad file refused with its code while the others still load.
#include "skills/catalog.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace affordance::skills {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "affordance-skills-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void Write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string Skill(const std::string& name, const std::string& description,
                  const std::string& body = "Do the thing.\n") {
  return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body;
}

// The digest as an independent program computes it.
std::string Sha256Sum(const std::string& path) {
  std::string cmd = "sha256sum '" + path + "'";
  FILE* p = popen(cmd.c_str(), "r");
  char buf[65] = {};
  const size_t n = p ? fread(buf, 1, 64, p) : 0;
  if (p) pclose(p);
  return std::string(buf, n);
}

const RefusedSkill* Refused(const SkillCatalog& c, const std::string& name) {
  for (const auto& r : c.refused()) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

std::vector<std::string> Names(const SkillCatalog& c) {
  std::vector<std::string> out;
  for (const auto& s : c.ready()) out.push_back(s.name);
  return out;
}

TEST(SkillNames, AreLowercaseWordsJoinedBySingleHyphensAndNeverPaths) {
  for (const char* good : {"a", "pdf-forms", "x1-2y", "abc123"}) {
    EXPECT_TRUE(IsValidSkillName(good)) << good;
  }
  EXPECT_TRUE(IsValidSkillName(std::string(64, 'a')));
  for (const char* bad : {"", "../x", "/etc/passwd", "a/b", ".", "..", ".hidden", "A", "a_b", "-a",
                          "a-", "a--b", "a b", "a.md", "~", "a\\b"}) {
    EXPECT_FALSE(IsValidSkillName(bad)) << bad;
  }
  EXPECT_FALSE(IsValidSkillName(std::string(65, 'a')));
}

TEST(SkillCatalog, TheDigestIsTheSha256OfTheFileAndAnEditChangesItOnTheNextLoad) {
  TempDir dir;
  const std::string file = dir / "skills/pdf-forms/SKILL.md";
  Write(file, Skill("pdf-forms", "Fill PDF forms.") + "Step one.\n");
  Write(dir / "skills/pdf-forms/reference.md", "beside it\n");
  auto catalog = SkillCatalog::Scan({{dir / "skills", "--skills"}});
  ASSERT_THAT(Names(catalog), ElementsAre("pdf-forms"));
  const std::string before = Sha256Sum(file);
  ASSERT_EQ(before.size(), 64u);
  EXPECT_EQ(catalog.ready()[0].sha256, before);
  auto loaded = catalog.Load("pdf-forms");
  ASSERT_TRUE(loaded.ok()) << loaded.error().ToString();
  EXPECT_EQ(loaded->skill.sha256, before);
  EXPECT_EQ(loaded->skill.bytes, static_cast<int64_t>(fs::file_size(file)));
  EXPECT_EQ(loaded->text, Skill("pdf-forms", "Fill PDF forms.") + "Step one.\n");
  EXPECT_EQ(loaded->skill.origin, "--skills");

  // Edited after the scan: the load reads the file now.
  Write(file, Skill("pdf-forms", "Fill PDF forms.") + "Step one, then two.\n");
  auto again = catalog.Load("pdf-forms");
  ASSERT_TRUE(again.ok());
  EXPECT_NE(again->skill.sha256, before);
  EXPECT_EQ(again->skill.sha256, Sha256Sum(file));
  EXPECT_EQ(Sha256Hex(again->text), again->skill.sha256);
}

TEST(SkillCatalog, EachBadFileGetsItsCodeAndTheOthersStillLoad) {
  TempDir dir;
  const std::string s = dir / "skills";
  Write(s + "/good/SKILL.md", Skill("good", "A good skill."));
  Write(s + "/yaml/SKILL.md", "---\nname: yaml\ndescription: Use when: asked\n---\n");
  Write(s + "/nodesc/SKILL.md", "---\nname: nodesc\n---\n");
  Write(s + "/other/SKILL.md", Skill("another", "Misnamed."));
  Write(s + "/huge/SKILL.md",
        Skill("huge", "Too big.", std::string(static_cast<size_t>(kMaxSkillBytes), 'x')));
  Write(s + "/latin1/SKILL.md", Skill("latin1", "caf\xe9"));
  Write(s + "/Upper/SKILL.md", Skill("upper", "Bad folder name."));
  fs::create_directories(s + "/nofile");
  Write(s + "/badtools/SKILL.md",
        "---\nname: badtools\ndescription: x\ntools: [ok_tool, \"no spaces\"]\n---\n");
  Write(s + "/longdesc/SKILL.md", Skill("longdesc", std::string(kMaxDescriptionChars + 1, 'd')));
  Write(s + "/README.md", "not a skill: files beside the skill folders are ignored\n");
  Write(s + "/.git/SKILL.md", Skill("git", "hidden folders are ignored"));
  // A link out of the source, and one that stays inside it.
  Write(dir / "outside/SKILL.md", Skill("escape", "Outside the source."));
  fs::create_directories(s + "/escape");
  fs::create_symlink(dir / "outside/SKILL.md", s + "/escape/SKILL.md");
  fs::create_directory_symlink(dir / "outside", s + "/escapedir");
  fs::create_directories(s + "/inside");
  fs::create_symlink(s + "/good/SKILL.md", s + "/inside/SKILL.md");

  auto catalog = SkillCatalog::Scan({{s, "data"}});
  EXPECT_THAT(Names(catalog), ElementsAre("good"));
  const struct {
    const char* folder;
    const char* code;
    const char* message;
  } expected[] = {
      {"yaml", "skills.bad_front_matter", "line 3: \": \" inside a value"},
      {"nodesc", "skills.bad_front_matter", "needs a description"},
      {"other", "skills.name_mismatch", "is named \"another\""},
      {"huge", "skills.too_large", "over 16000 bytes"},
      {"latin1", "skills.bad_utf8", "not valid UTF-8"},
      {"Upper", "skills.bad_name", "not a skill name"},
      {"nofile", "skills.no_skill_file", "has no SKILL.md"},
      {"badtools", "skills.bad_front_matter", "\"no spaces\" in tools is not a tool name"},
      {"longdesc", "skills.bad_front_matter", "over 1024 characters"},
      {"escape", "skills.outside_source", "leads out of its source"},
      {"escapedir", "skills.outside_source", "leads out of its source"},
      {"inside", "skills.name_mismatch", "is named \"good\""},
  };
  for (const auto& e : expected) {
    const RefusedSkill* r = Refused(catalog, e.folder);
    ASSERT_NE(r, nullptr) << e.folder;
    EXPECT_EQ(r->error.code, e.code) << e.folder;
    EXPECT_THAT(r->error.message, HasSubstr(e.message)) << e.folder;
    EXPECT_EQ(r->origin, "data");
    // Loading it says why it was refused.
    if (IsValidSkillName(e.folder)) {
      auto load = catalog.Load(e.folder);
      ASSERT_FALSE(load.ok()) << e.folder;
      EXPECT_EQ(load.error().code, e.code);
      EXPECT_THAT(load.error().message, HasSubstr("was refused"));
    }
  }
  EXPECT_EQ(catalog.refused().size(), std::size(expected));
  EXPECT_EQ(Refused(catalog, "README.md"), nullptr);
  EXPECT_EQ(Refused(catalog, ".git"), nullptr);
  EXPECT_TRUE(catalog.Load("good").ok());
}

TEST(SkillCatalog, TheFirstSourceClaimsANameEvenWhenItsFileIsRefused) {
  TempDir dir;
  Write(dir / "a/one/SKILL.md", Skill("one", "From a."));
  Write(dir / "b/one/SKILL.md", Skill("one", "From b."));
  Write(dir / "b/two/SKILL.md", Skill("two", "From b."));
  Write(dir / "c/two/SKILL.md", "---\nbroken\n");  // c comes first for two: refused, b's too
  Write(dir / "c/three/SKILL.md", Skill("three", "From c."));
  auto catalog = SkillCatalog::Scan(
      {{dir / "c", "--skills"}, {dir / "a", "$AFFORDANCE_SKILLS"}, {dir / "b", "data"}});
  EXPECT_THAT(Names(catalog), ElementsAre("one", "three"));
  EXPECT_EQ(catalog.Find("one")->description, "From a.");
  EXPECT_EQ(catalog.Find("one")->origin, "$AFFORDANCE_SKILLS");
  ASSERT_EQ(catalog.refused().size(), 3u);
  EXPECT_EQ(catalog.refused()[0].name, "two");
  EXPECT_EQ(catalog.refused()[0].error.code, "skills.bad_front_matter");
  EXPECT_EQ(catalog.refused()[1].name, "one");
  EXPECT_EQ(catalog.refused()[1].error.code, "skills.duplicate_name");
  EXPECT_EQ(catalog.refused()[1].error.kind, ErrorKind::kConflict);
  EXPECT_THAT(catalog.refused()[1].error.detail, HasSubstr(dir / "a/one"));
  EXPECT_EQ(catalog.refused()[2].name, "two");
  EXPECT_EQ(catalog.refused()[2].error.code, "skills.duplicate_name");
  // The same folder named twice is one source.
  auto twice = SkillCatalog::Scan({{dir / "a", "--skills"}, {dir / "a/../a", "data"}});
  EXPECT_THAT(Names(twice), ElementsAre("one"));
  EXPECT_TRUE(twice.refused().empty());
}

TEST(SkillCatalog, AFileThatVanishesAfterTheScanIsAnErrorAtLoad) {
  TempDir dir;
  Write(dir / "s/gone/SKILL.md", Skill("gone", "Soon gone."));
  auto catalog = SkillCatalog::Scan({{dir / "s", "--skills"}});
  ASSERT_THAT(Names(catalog), ElementsAre("gone"));
  fs::remove_all(dir / "s/gone");
  auto load = catalog.Load("gone");
  ASSERT_FALSE(load.ok());
  EXPECT_EQ(load.error().code, "skills.vanished");
  EXPECT_EQ(load.error().kind, ErrorKind::kNotFound);
  EXPECT_THAT(load.error().message, HasSubstr("gone since the skills were listed"));
  // A file that became bad since the scan is refused at load with its code.
  Write(dir / "s/gone/SKILL.md", "---\nname: gone\n");
  EXPECT_EQ(catalog.Load("gone").error().code, "skills.bad_front_matter");
}

TEST(SkillCatalog, LoadTakesOnlyANameOfTheCatalogNeverAPath) {
  TempDir dir;
  Write(dir / "s/real/SKILL.md", Skill("real", "Real."));
  Write(dir / "secret/SKILL.md", Skill("secret", "Not a source."));
  auto catalog = SkillCatalog::Scan({{dir / "s", "--skills"}});
  for (const std::string& name :
       std::vector<std::string>{"../secret", "/etc/passwd", dir / "secret", "real/../real",
                                "real/SKILL.md", "", "REAL", "real\n"}) {
    auto load = catalog.Load(name);
    ASSERT_FALSE(load.ok()) << name;
    EXPECT_EQ(load.error().code, "skills.bad_name") << name;
  }
  auto unknown = catalog.Load("secret");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, "skills.not_found");
  EXPECT_EQ(unknown.error().kind, ErrorKind::kNotFound);
  EXPECT_EQ(unknown.error().detail, "skills: real");
}

TEST(SkillSources, ComeInPrecedenceOrderAndANamedFolderMustExist) {
  TempDir dir;
  for (const char* d : {"f1", "f2", "e1", "e2", "data/skills"}) fs::create_directories(dir / d);
  auto sources = SkillSources({dir / "f1", dir / "f2"}, ":" + (dir / "e1") + "::" + (dir / "e2"),
                              dir / "data/skills");
  ASSERT_TRUE(sources.ok()) << sources.error().ToString();
  std::vector<std::string> order;
  for (const auto& s : *sources) order.push_back(s.origin + " " + s.dir);
  EXPECT_THAT(
      order, ElementsAre("--skills " + (dir / "f1"), "--skills " + (dir / "f2"),
                         "$AFFORDANCE_SKILLS " + (dir / "e1"), "$AFFORDANCE_SKILLS " + (dir / "e2"),
                         "data " + (dir / "data/skills")));
  // <data>/skills may be absent; a named folder may not.
  auto no_data = SkillSources({}, "", dir / "nowhere/skills");
  ASSERT_TRUE(no_data.ok());
  EXPECT_TRUE(no_data->empty());
  auto flag = SkillSources({dir / "missing"}, "", dir / "data/skills");
  ASSERT_FALSE(flag.ok());
  EXPECT_EQ(flag.error().code, "skills.no_source");
  EXPECT_EQ(flag.error().kind, ErrorKind::kInvalid);
  EXPECT_THAT(flag.error().message, HasSubstr("(--skills)"));
  auto env = SkillSources({}, dir / "missing", dir / "data/skills");
  ASSERT_FALSE(env.ok());
  EXPECT_THAT(env.error().message, HasSubstr("($AFFORDANCE_SKILLS)"));
  Write(dir / "file", "x");
  EXPECT_EQ(SkillSources({dir / "file"}, "", "").error().code, "skills.no_source");
  if (geteuid() != 0) {
    fs::permissions(dir / "data", fs::perms::none);
    auto locked = SkillSources({}, "", dir / "data/skills");
    fs::permissions(dir / "data", fs::perms::owner_all);
    ASSERT_FALSE(locked.ok());
    EXPECT_EQ(locked.error().code, "skills.unreadable_source");
    EXPECT_EQ(locked.error().kind, ErrorKind::kForbidden);
  }
}

}  // namespace
}  // namespace affordance::skills

// Skills: instructions an operator writes for kinds of tasks, in the Agent Skills folder
// convention, that enter a model's context by digest (docs/HARNESS.md "Skills").
//
//   <source>/<name>/SKILL.md    YAML front matter (front_matter.h: name, description, tools?) and
//                               the body; other files may sit beside it
//
// Sources, in precedence order (SkillSources): every `--skills DIR` in the order given, then every
// entry of $AFFORDANCE_SKILLS (colon-separated, left to right; empty entries are skipped), then
// <data>/skills. A folder named twice (the same canonical path) is scanned once, where it first
// appears. The first folder `<source>/<name>/` that holds a SKILL.md claims the name, even when
// its file is then refused: every later one of that name is refused "skills.duplicate_name"
// (which names the one that came first), so a broken override never falls back silently to an
// older skill.
//
// Skills are trusted operator files: only these folders add one. Nothing a model, a connector or
// a tool returns can add a skill, and loading one takes an exact, validated name that is looked up
// in the scanned catalog (never a path built from model text).
//
// Not thread-safe for writes; a scanned catalog may be read from many threads.
#pragma once

#include "base/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::skills {

// A SKILL.md over this many bytes is refused ("skills.too_large"): with the marker and the schemas
// of the tools it attaches, its body must fit in one tool result (24,000 characters,
// harness/frame_text.h kToolResultCap) and is never cut.
inline constexpr int64_t kMaxSkillBytes = 16000;
// The description is at most this many characters (Unicode code points), as in Agent Skills.
inline constexpr size_t kMaxDescriptionChars = 1024;
// A skill names at most this many deferred tools to attach with it.
inline constexpr size_t kMaxSkillTools = 16;

struct SkillSource {
  std::string dir;     // as configured
  std::string origin;  // "--skills", "$AFFORDANCE_SKILLS" or "data"
};

// The sources in precedence order (see the file comment). `flags`: the --skills values; `env`: the
// value of $AFFORDANCE_SKILLS ("" when unset); `data_skills`: <data>/skills. Errors:
// "skills.no_source" (kInvalid) when a --skills or $AFFORDANCE_SKILLS folder does not exist or is
// not a folder; "skills.unreadable_source" (kForbidden) when a folder, <data>/skills included,
// cannot be read. A <data>/skills that does not exist is no source, not an error.
Result<std::vector<SkillSource>> SkillSources(const std::vector<std::string>& flags,
                                              std::string_view env, const std::string& data_skills);

// True for 1-64 lowercase ASCII letters and digits in groups joined by single hyphens
// (^[a-z0-9]+(-[a-z0-9]+)*$, the Agent Skills rule): no '/', '.', space or path of any kind.
bool IsValidSkillName(std::string_view name);

// The lowercase hex SHA-256 of `bytes` (OpenSSL).
std::string Sha256Hex(std::string_view bytes);

struct Skill {
  std::string name;
  std::string description;
  std::vector<std::string> tools;  // deferred tools attached with it
  std::string path;                // canonical path of its SKILL.md
  std::string source;              // canonical path of its source folder
  std::string origin;              // its source's origin
  int64_t bytes = 0;               // size of SKILL.md when it was read
  std::string sha256;              // digest of SKILL.md when it was read
};

// A folder of a source that is not a ready skill, and why.
struct RefusedSkill {
  std::string name;  // the folder's name ("" when a whole source could not be read)
  std::string path;
  std::string origin;
  Error error;
};

// A skill read for a model: the exact bytes of its SKILL.md, and what they say.
struct LoadedSkill {
  Skill skill;       // parsed from `text`; sha256 and bytes describe `text`
  std::string text;  // every byte of the file, front matter included
};

class SkillCatalog {
 public:
  // Reads every source now (see the file comment). Never fails: a folder that is not a ready
  // skill is in refused() with its error:
  //   skills.bad_name          the folder's name is not a skill name
  //   skills.no_skill_file     the folder has no SKILL.md
  //   skills.duplicate_name    an earlier source or folder already claimed the name
  //   skills.outside_source    SKILL.md (or its folder) is a link that leads out of the source
  //   skills.too_large         SKILL.md is over kMaxSkillBytes
  //   skills.bad_utf8          SKILL.md is not valid UTF-8
  //   skills.bad_front_matter  the front matter is outside the subset, or a field is missing or
  //                            wrong (name, description, tools)
  //   skills.name_mismatch     the front matter's name is not the folder's name
  //   skills.unreadable_source a source folder could not be listed
  static SkillCatalog Scan(const std::vector<SkillSource>& sources);

  const std::vector<Skill>& ready() const { return ready_; }             // sorted by name
  const std::vector<RefusedSkill>& refused() const { return refused_; }  // in scan order
  bool empty() const { return ready_.empty() && refused_.empty(); }

  // The ready skill of that name, or null.
  const Skill* Find(std::string_view name) const;

  // Reads the skill's SKILL.md again, now, and returns its exact bytes with their digest: an edit
  // since Scan() is what loads (a new digest); a file that became bad is refused with the codes
  // above. Errors also: "skills.bad_name" (not a skill name: `../x`, `/etc/passwd`, `A`),
  // "skills.not_found" (no such skill; the detail names the ready ones), the refusal of a refused
  // skill of that name, and "skills.vanished" (kNotFound) when the file is gone since Scan().
  Result<LoadedSkill> Load(std::string_view name) const;

 private:
  std::vector<Skill> ready_;
  std::vector<RefusedSkill> refused_;
};

}  // namespace affordance::skills

#include "skills/catalog.h"

#include "skills/front_matter.h"

#include <openssl/evp.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

namespace fs = std::filesystem;

namespace affordance::skills {

bool IsValidSkillName(std::string_view name) {
  if (name.empty() || name.size() > 64 || name.front() == '-' || name.back() == '-') return false;
  char previous = 0;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok || (c == '-' && previous == '-')) return false;
    previous = c;
  }
  return true;
}

std::string Sha256Hex(std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * len);
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[md[i] >> 4]);
    out.push_back(kHex[md[i] & 0xF]);
  }
  return out;
}

namespace {

// Strict UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.
bool IsUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 1, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3, cp = c & 0x07;
    } else {
      return false;
    }
    for (size_t k = 1; k <= n; ++k) {
      if (i + k >= s.size()) return false;
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n + 1;
  }
  return true;
}

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// True when `path` is `root` or lies under it (both canonical).
bool Within(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p) {
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

bool IsToolName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

Error BadField(const std::string& message) {
  return MakeError(ErrorKind::kInvalid, "skills.bad_front_matter", message);
}

// name, description and tools from the front matter; other fields are allowed and not read.
Status ReadFields(const FrontMatter& fm, Skill& skill) {
  using Kind = FrontMatterValue::Kind;
  const FrontMatterValue* name = fm.Find("name");
  if (name == nullptr || name->kind != Kind::kScalar || name->scalar.empty()) {
    return BadField("the front matter needs a name: the skill's folder name");
  }
  if (!IsValidSkillName(name->scalar)) {
    return BadField("the name \"" + name->scalar.substr(0, 80) +
                    "\" is not a skill name (1-64 lowercase letters, digits and single hyphens)");
  }
  skill.name = name->scalar;
  const FrontMatterValue* description = fm.Find("description");
  if (description == nullptr || description->kind != Kind::kScalar ||
      description->scalar.find_first_not_of(" \t\n\r") == std::string::npos) {
    return BadField("the front matter needs a description: what the skill is for");
  }
  if (CodePoints(description->scalar) > kMaxDescriptionChars) {
    return BadField("the description is over " + std::to_string(kMaxDescriptionChars) +
                    " characters");
  }
  skill.description = description->scalar;
  skill.tools.clear();
  if (const FrontMatterValue* tools = fm.Find("tools"); tools && tools->kind != Kind::kNull) {
    if (tools->kind != Kind::kSequence) {
      return BadField("tools is a list of deferred tool names: [name, ...] or \"- name\" lines");
    }
    if (tools->items.size() > kMaxSkillTools) {
      return BadField("tools names more than " + std::to_string(kMaxSkillTools) + " tools");
    }
    std::set<std::string> seen;
    for (const auto& t : tools->items) {
      if (!IsToolName(t)) {
        return BadField("\"" + t.substr(0, 80) + "\" in tools is not a tool name (1-64 letters, " +
                        "digits, '_' or '-')");
      }
      if (!seen.insert(t).second) return BadField("tools names \"" + t + "\" twice");
      skill.tools.push_back(t);
    }
  }
  return {};
}

// Reads <source>/<folder>/SKILL.md and checks everything a ready skill promises.
Result<LoadedSkill> ReadSkill(const fs::path& source, const std::string& folder,
                              const std::string& origin) {
  const fs::path file = source / folder / "SKILL.md";
  std::error_code ec;
  const auto status = fs::status(file, ec);
  if (!fs::exists(status) && fs::exists(fs::symlink_status(file, ec))) {
    return MakeError(ErrorKind::kInvalid, "skills.no_skill_file",
                     "the SKILL.md of \"" + folder + "\" is a link that leads nowhere",
                     file.string());
  }
  if (!fs::exists(status)) {
    return MakeError(ErrorKind::kNotFound, "skills.vanished",
                     "the SKILL.md of \"" + folder + "\" is gone since the skills were listed",
                     file.string());
  }
  const fs::path real = fs::canonical(file, ec);
  if (ec || !Within(real, source)) {
    return MakeError(ErrorKind::kInvalid, "skills.outside_source",
                     "the SKILL.md of \"" + folder + "\" is a link that leads out of its source " +
                         "folder; add that folder with --skills instead",
                     file.string() + " -> " + real.string());
  }
  if (!fs::is_regular_file(status)) {
    return MakeError(ErrorKind::kInvalid, "skills.no_skill_file",
                     "the SKILL.md of \"" + folder + "\" is not a file", file.string());
  }
  // Read one byte past the cap, so a file that grows after the size check is still caught.
  std::ifstream in(real, std::ios::binary);
  std::string text(static_cast<size_t>(kMaxSkillBytes) + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad() || !in.is_open()) {
    return MakeError(ErrorKind::kNotFound, "skills.vanished",
                     "the SKILL.md of \"" + folder + "\" could not be read", file.string());
  }
  text.resize(static_cast<size_t>(in.gcount()));
  if (static_cast<int64_t>(text.size()) > kMaxSkillBytes) {
    return MakeError(ErrorKind::kTooLarge, "skills.too_large",
                     "the SKILL.md of \"" + folder + "\" is over " +
                         std::to_string(kMaxSkillBytes) +
                         " bytes; move detail into files beside it",
                     file.string());
  }
  if (!IsUtf8(text)) {
    return MakeError(ErrorKind::kInvalid, "skills.bad_utf8",
                     "the SKILL.md of \"" + folder + "\" is not valid UTF-8", file.string());
  }
  auto fm = ParseFrontMatter(text);
  if (!fm) {
    Error e = fm.error();
    e.message =
        "the front matter of \"" + folder + "\" is not in the accepted subset: " + e.message;
    e.detail = file.string();
    return e;
  }
  LoadedSkill loaded;
  if (Status s = ReadFields(*fm, loaded.skill); !s) {
    Error e = s.error();
    e.message = "the front matter of \"" + folder + "\": " + e.message;
    e.detail = file.string();
    return e;
  }
  if (loaded.skill.name != folder) {
    return MakeError(ErrorKind::kInvalid, "skills.name_mismatch",
                     "the skill in the folder \"" + folder + "\" is named \"" + loaded.skill.name +
                         "\"; a skill's name is its folder's name",
                     file.string());
  }
  loaded.skill.path = real.string();
  loaded.skill.source = source.string();
  loaded.skill.origin = origin;
  loaded.skill.bytes = static_cast<int64_t>(text.size());
  loaded.skill.sha256 = Sha256Hex(text);
  loaded.text = std::move(text);
  return loaded;
}

Result<fs::path> CheckSource(const std::string& dir, const std::string& origin, bool optional) {
  std::error_code ec;
  const auto status = fs::status(dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory) {
    return MakeError(ErrorKind::kForbidden, "skills.unreadable_source",
                     "cannot read the skills folder " + dir + " (" + origin + ")", ec.message());
  }
  if (!fs::exists(status) && optional) return fs::path();
  if (!fs::is_directory(status)) {
    return MakeError(ErrorKind::kInvalid, "skills.no_source",
                     "no skills folder at " + dir + " (" + origin + ")");
  }
  fs::directory_iterator probe(dir, ec);
  if (ec) {
    return MakeError(ErrorKind::kForbidden, "skills.unreadable_source",
                     "cannot read the skills folder " + dir + " (" + origin + ")", ec.message());
  }
  return fs::canonical(dir, ec);
}

}  // namespace

Result<std::vector<SkillSource>> SkillSources(const std::vector<std::string>& flags,
                                              std::string_view env,
                                              const std::string& data_skills) {
  std::vector<SkillSource> out;
  auto add = [&](const std::string& dir, const char* origin, bool optional) -> Status {
    auto checked = CheckSource(dir, origin, optional);
    if (!checked) return checked.error();
    if (!checked->empty()) out.push_back({dir, origin});
    return {};
  };
  for (const auto& dir : flags) {
    if (dir.empty()) continue;
    if (Status s = add(dir, "--skills", false); !s) return s.error();
  }
  size_t start = 0;
  while (start <= env.size()) {
    const size_t colon = env.find(':', start);
    const std::string dir(env.substr(
        start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
    if (!dir.empty()) {
      if (Status s = add(dir, "$AFFORDANCE_SKILLS", false); !s) return s.error();
    }
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (Status s = add(data_skills, "data", true); !s) return s.error();
  return out;
}

SkillCatalog SkillCatalog::Scan(const std::vector<SkillSource>& sources) {
  SkillCatalog catalog;
  std::set<fs::path> scanned;
  std::vector<std::pair<std::string, std::string>> claimed;  // name -> the path that claimed it
  for (const auto& source : sources) {
    std::error_code ec;
    const fs::path root = fs::canonical(source.dir, ec);
    if (ec) {
      catalog.refused_.push_back({"", source.dir, source.origin,
                                  MakeError(ErrorKind::kNotFound, "skills.unreadable_source",
                                            "the skills folder is gone", source.dir)});
      continue;
    }
    if (!scanned.insert(root).second) continue;
    std::vector<std::string> names;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
      names.push_back(it->path().filename().string());
    }
    if (ec) {
      catalog.refused_.push_back({"", source.dir, source.origin,
                                  MakeError(ErrorKind::kForbidden, "skills.unreadable_source",
                                            "cannot list the skills folder", ec.message())});
      continue;
    }
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
      const fs::path folder = root / name;
      if (name.front() == '.' || !fs::is_directory(folder, ec)) continue;  // not a skill folder
      auto refuse = [&](Error e) {
        catalog.refused_.push_back({name, folder.string(), source.origin, std::move(e)});
      };
      if (!IsValidSkillName(name)) {
        refuse(MakeError(ErrorKind::kInvalid, "skills.bad_name",
                         "the folder name \"" + name.substr(0, 80) +
                             "\" is not a skill name (1-64 lowercase letters, digits and single "
                             "hyphens)"));
        continue;
      }
      if (!fs::exists(fs::symlink_status(folder / "SKILL.md", ec))) {
        refuse(MakeError(ErrorKind::kInvalid, "skills.no_skill_file",
                         "the folder \"" + name + "\" has no SKILL.md"));
        continue;
      }
      auto first = std::find_if(claimed.begin(), claimed.end(),
                                [&](const auto& c) { return c.first == name; });
      if (first != claimed.end()) {
        refuse(MakeError(ErrorKind::kConflict, "skills.duplicate_name",
                         "another skill named \"" + name + "\" comes first in the search order",
                         "used: " + first->second));
        continue;
      }
      claimed.emplace_back(name, folder.string());
      auto loaded = ReadSkill(root, name, source.origin);
      if (!loaded) {
        refuse(loaded.error());
        continue;
      }
      catalog.ready_.push_back(std::move(loaded->skill));
    }
  }
  std::sort(catalog.ready_.begin(), catalog.ready_.end(),
            [](const Skill& a, const Skill& b) { return a.name < b.name; });
  return catalog;
}

const Skill* SkillCatalog::Find(std::string_view name) const {
  for (const auto& s : ready_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

Result<LoadedSkill> SkillCatalog::Load(std::string_view name) const {
  if (!IsValidSkillName(name)) {
    return MakeError(ErrorKind::kInvalid, "skills.bad_name",
                     "a skill name is 1-64 lowercase letters, digits and single hyphens (never a "
                     "path)",
                     std::string(name.substr(0, 80)));
  }
  const Skill* skill = Find(name);
  if (skill == nullptr) {
    for (const auto& r : refused_) {
      if (r.name == name) {
        Error e = r.error;
        e.message = "the skill \"" + std::string(name) + "\" was refused: " + e.message;
        return e;
      }
    }
    std::string known;
    for (const auto& s : ready_) known += (known.empty() ? "" : ", ") + s.name;
    return MakeError(ErrorKind::kNotFound, "skills.not_found",
                     "no skill is named \"" + std::string(name) + "\"",
                     known.empty() ? "there are no skills" : "skills: " + known);
  }
  return ReadSkill(skill->source, skill->name, skill->origin);
}

}  // namespace affordance::skills

// The person's data stays theirs: the folders that hold it are 0700 and its files 0600, whatever
// the umask, so no other local user can read threads, connector rows or secrets.
//
// Why tighten rather than refuse: every data folder made before this rule is 0755 with 0644
// files, and refusing to start would break each of them over a problem we caused. So a folder or
// file that others can reach is tightened when the effective user owns it, and one line on stderr
// says what changed (once: the next run finds it private). A folder that is not ours to change (a
// shared sticky folder such as /tmp, or another user's) is left as it is, and stderr says why its
// files are still private. Nothing here follows a symbolic link for a file it creates.
//
// Thread safety: the functions may be called from any thread; the notice is written with one
// call per line.
#pragma once

#include "base/result.h"

#include <filesystem>
#include <string_view>

namespace affordance {

inline constexpr unsigned kPrivateDirMode = 0700;
inline constexpr unsigned kPrivateFileMode = 0600;

// Creates `dir` with mode 0700 (missing parents get the usual mode: they are not ours), or
// tightens an existing `dir` as described above. Errors (code `error_code`): the folder cannot be
// created or is not a folder.
Status EnsurePrivateDir(const std::filesystem::path& dir, std::string_view error_code);

// Creates `file` empty with mode 0600 when it is missing, so that SQLite, which gives a
// database's -wal and -shm files the mode of the database file, creates those 0600 too; tightens
// an existing `file` and its "-wal" / "-shm" companions as described above. Errors (code
// `error_code`): the file cannot be created, or is not a regular file.
Status EnsurePrivateFile(const std::filesystem::path& file, std::string_view error_code);

}  // namespace affordance

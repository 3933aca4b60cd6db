// A SQLite VFS that passes every call through to the default VFS, except that it can be told to
// fail writes (xWrite, xSync, xTruncate answer SQLITE_IOERR_*) to simulate a disk error under the
// store. Registered as the default VFS by Install(), so the store opens files through it without
// knowing; with the fault off it behaves exactly as the default.
#pragma once

#include <sqlite3.h>

#include <atomic>
#include <cstring>

namespace affordance::store::testing {

class FaultyVfs {
 public:
  // Installs it once per process as the default VFS.
  static void Install() {
    static bool installed = [] {
      base_ = sqlite3_vfs_find(nullptr);
      vfs_ = *base_;
      vfs_.zName = "faulty";
      vfs_.szOsFile = static_cast<int>(sizeof(File)) + base_->szOsFile;
      vfs_.xOpen = &Open;
      sqlite3_vfs_register(&vfs_, 1);
      return true;
    }();
    (void)installed;
  }
  static void FailWrites(bool on) { fail_.store(on); }
  static int failures() { return failures_.load(); }

 private:
  struct File {
    sqlite3_file base;
    sqlite3_file* real;  // the default VFS's file, allocated right after this struct
  };

  static sqlite3_file* Real(sqlite3_file* f) { return reinterpret_cast<File*>(f)->real; }
  static bool Fault() {
    if (!fail_.load()) return false;
    failures_.fetch_add(1);
    return true;
  }

  static int Open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags,
                  int* out_flags) {
    File* f = reinterpret_cast<File*>(file);
    std::memset(f, 0, sizeof(File));
    f->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(f) + sizeof(File));
    int rc = base_->xOpen(base_, name, f->real, flags, out_flags);
    if (rc != SQLITE_OK) return rc;
    f->base.pMethods = &methods_;
    return SQLITE_OK;
  }
  static int Close(sqlite3_file* f) { return Real(f)->pMethods->xClose(Real(f)); }
  static int Read(sqlite3_file* f, void* buf, int n, sqlite3_int64 off) {
    return Real(f)->pMethods->xRead(Real(f), buf, n, off);
  }
  static int Write(sqlite3_file* f, const void* buf, int n, sqlite3_int64 off) {
    if (Fault()) return SQLITE_IOERR_WRITE;
    return Real(f)->pMethods->xWrite(Real(f), buf, n, off);
  }
  static int Truncate(sqlite3_file* f, sqlite3_int64 size) {
    if (Fault()) return SQLITE_IOERR_TRUNCATE;
    return Real(f)->pMethods->xTruncate(Real(f), size);
  }
  static int Sync(sqlite3_file* f, int flags) {
    if (Fault()) return SQLITE_IOERR_FSYNC;
    return Real(f)->pMethods->xSync(Real(f), flags);
  }
  static int FileSize(sqlite3_file* f, sqlite3_int64* size) {
    return Real(f)->pMethods->xFileSize(Real(f), size);
  }
  static int Lock(sqlite3_file* f, int l) { return Real(f)->pMethods->xLock(Real(f), l); }
  static int Unlock(sqlite3_file* f, int l) { return Real(f)->pMethods->xUnlock(Real(f), l); }
  static int CheckReservedLock(sqlite3_file* f, int* out) {
    return Real(f)->pMethods->xCheckReservedLock(Real(f), out);
  }
  static int FileControl(sqlite3_file* f, int op, void* arg) {
    return Real(f)->pMethods->xFileControl(Real(f), op, arg);
  }
  static int SectorSize(sqlite3_file* f) { return Real(f)->pMethods->xSectorSize(Real(f)); }
  static int DeviceCharacteristics(sqlite3_file* f) {
    return Real(f)->pMethods->xDeviceCharacteristics(Real(f));
  }
  static int ShmMap(sqlite3_file* f, int region, int size, int extend, void volatile** out) {
    return Real(f)->pMethods->xShmMap(Real(f), region, size, extend, out);
  }
  static int ShmLock(sqlite3_file* f, int offset, int n, int flags) {
    return Real(f)->pMethods->xShmLock(Real(f), offset, n, flags);
  }
  static void ShmBarrier(sqlite3_file* f) { Real(f)->pMethods->xShmBarrier(Real(f)); }
  static int ShmUnmap(sqlite3_file* f, int del) {
    return Real(f)->pMethods->xShmUnmap(Real(f), del);
  }
  static inline sqlite3_vfs* base_ = nullptr;
  static inline sqlite3_vfs vfs_{};
  static inline std::atomic<bool> fail_{false};
  static inline std::atomic<int> failures_{0};
  // Version 2 (no mmap fetch): the store does not use memory-mapped I/O.
  static inline const sqlite3_io_methods methods_ = {2,
                                                     &Close,
                                                     &Read,
                                                     &Write,
                                                     &Truncate,
                                                     &Sync,
                                                     &FileSize,
                                                     &Lock,
                                                     &Unlock,
                                                     &CheckReservedLock,
                                                     &FileControl,
                                                     &SectorSize,
                                                     &DeviceCharacteristics,
                                                     &ShmMap,
                                                     &ShmLock,
                                                     &ShmBarrier,
                                                     &ShmUnmap,
                                                     nullptr,
                                                     nullptr};
};

}  // namespace affordance::store::testing

// Nothing is lost (issue 11): every write is atomic and never replaces what is not a regular
// file, and a write that fails midway — injected through the swappable write(2) — leaves the old
// file exactly as it was, with no temporary behind.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>

#include "core/io.h"
#include "core/proto/error.h"

namespace parity {
namespace {

namespace fs = std::filesystem;

std::string Dir(const std::string& name) {
  const fs::path dir = fs::path(std::getenv("TEST_TMPDIR")) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

int FilesIn(const std::string& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++n;
  return n;
}

ErrorKind KindOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no error";
  return ErrorKind::kInternal;
}

// Restores the real write(2) when the test ends.
struct InjectedWrite {
  explicit InjectedWrite(WriteFunction fault) : previous(SetWriteFunctionForTesting(fault)) {}
  ~InjectedWrite() { SetWriteFunctionForTesting(previous); }
  WriteFunction previous;
};

TEST(AtomicWrite, FailedWriteLeavesTheOldFileIntact) {
  const std::string dir = Dir("enospc");
  const std::string path = dir + "/out.pbtxt";
  WriteFileAtomic(path, "old contents");
  for (int fail_after : {0, 5}) {
    int written = 0;
    InjectedWrite fault([&](int fd, const void* data, size_t size) -> ssize_t {
      if (written >= fail_after) {
        errno = ENOSPC;
        return -1;
      }
      size = std::min<size_t>(size, 3);  // short writes first
      written += static_cast<int>(size);
      return ::write(fd, data, size);
    });
    EXPECT_EQ(KindOf([&] { WriteFileAtomic(path, std::string(1000, 'x')); }), ErrorKind::kIo);
    EXPECT_EQ(ReadFileBytes(path), "old contents");
    EXPECT_EQ(FilesIn(dir), 1) << "a temporary was left behind";
  }
}

TEST(AtomicWrite, SymlinkIsWrittenThroughAndStaysALink) {
  const std::string dir = Dir("symlink");
  WriteFileAtomic(dir + "/target.txt", "old");
  fs::create_symlink("target.txt", dir + "/link.txt");
  WriteFileAtomic(dir + "/link.txt", "new");
  EXPECT_TRUE(fs::is_symlink(dir + "/link.txt"));
  EXPECT_EQ(ReadFileBytes(dir + "/target.txt"), "new");
  // A dangling link: the file it names is created.
  fs::create_symlink("later.txt", dir + "/dangling.txt");
  WriteFileAtomic(dir + "/dangling.txt", "made");
  EXPECT_TRUE(fs::is_symlink(dir + "/dangling.txt"));
  EXPECT_EQ(ReadFileBytes(dir + "/later.txt"), "made");
}

TEST(AtomicWrite, RefusesToReplaceWhatIsNotARegularFile) {
  const std::string dir = Dir("special");
  fs::create_directories(dir + "/a_directory");
  ASSERT_EQ(::mkfifo((dir + "/a_fifo").c_str(), 0644), 0);
  fs::create_symlink("a_directory", dir + "/link_to_directory");
  for (const std::string name : {"a_directory", "a_fifo", "link_to_directory"}) {
    try {
      WriteFileAtomic(dir + "/" + name, "x");
      ADD_FAILURE() << name << " was replaced";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kIo);
      EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(fs::is_directory(dir + "/a_directory"));
  EXPECT_TRUE(fs::is_fifo(dir + "/a_fifo"));
  EXPECT_EQ(KindOf([] { WriteFileAtomic("/dev/full", "x"); }), ErrorKind::kIo);
}

TEST(AtomicRead, DirectoriesAndEmptyFilesAreClearErrors) {
  const std::string dir = Dir("read");
  try {
    LoadNetDef(dir);
    ADD_FAILURE() << "a directory loaded as a net";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIo);
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  WriteFileAtomic(dir + "/empty.pb", "");
  try {
    LoadNetDef(dir + "/empty.pb");
    ADD_FAILURE() << "an empty file loaded as a net";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidNet);
    EXPECT_NE(std::string(e.what()).find("empty.pb is empty"), std::string::npos) << e.what();
  }
}

// onnx import's -o and --init: when the second file cannot be written, the first keeps its old
// contents and no temporary is left beside either.
TEST(AtomicWrite, SeveralFilesAreAllOrNothing) {
  const std::string dir = Dir("all_or_nothing");
  const std::string net = dir + "/net.pbtxt", init = dir + "/init.pbtxt";
  WriteFileAtomic(net, "old net");
  WriteFileAtomic(init, "old init");
  fs::create_directories(dir + "/adir");
  EXPECT_EQ(KindOf([&] { WriteFilesAtomic({{net, "new net"}, {dir + "/adir", "x"}}); }),
            ErrorKind::kIo);
  EXPECT_EQ(ReadFileBytes(net), "old net");
  EXPECT_EQ(FilesIn(dir), 3);  // net, init, adir: no temporary left
  {
    // A failing write of the second file (a full disk) leaves the first unreplaced as well.
    int calls = 0;
    InjectedWrite fault([&](int fd, const void* data, size_t size) -> ssize_t {
      if (++calls == 1) return ::write(fd, data, size);
      errno = ENOSPC;
      return -1;
    });
    EXPECT_EQ(KindOf([&] { WriteFilesAtomic({{net, "new net"}, {init, "new init"}}); }),
              ErrorKind::kIo);
  }
  EXPECT_EQ(ReadFileBytes(net), "old net");
  EXPECT_EQ(ReadFileBytes(init), "old init");
  EXPECT_EQ(FilesIn(dir), 3);
  WriteFilesAtomic({{net, "new net"}, {init, "new init"}});
  EXPECT_EQ(ReadFileBytes(net), "new net");
  EXPECT_EQ(ReadFileBytes(init), "new init");
  EXPECT_EQ(FilesIn(dir), 3);
}

}  // namespace
}  // namespace parity

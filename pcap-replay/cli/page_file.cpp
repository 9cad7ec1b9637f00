#include "page_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

namespace replay::cli {

namespace {

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

}  // namespace

PageFile::PageFile(std::string path, std::string temporary)
    : path_(std::move(path)), target_(path_), temporary_(std::move(temporary)) {}

PageFile::PageFile(PageFile&& other) noexcept
    : path_(std::move(other.path_)),
      target_(std::move(other.target_)),
      temporary_(std::move(other.temporary_)),
      out_(std::move(other.out_)),
      done_(other.done_) {
  other.done_ = true;  // the moved-from one removes nothing
}

PageFile::~PageFile() { discard(); }

std::optional<PageFile> PageFile::open(const std::string& path, const std::vector<struct stat>& inputs,
                                       std::string& error) {
  const auto fail = [&](const std::string& why) {
    error = "--html " + path + ": " + why;
    return std::nullopt;
  };
  if (path.empty()) {
    error = "--html: no file name given";
    return std::nullopt;
  }
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists) {
    struct stat out {};
    if (::fstat(STDOUT_FILENO, &out) == 0 && same_file(out, st))
      return fail("it is the standard output, where the report goes: give the page a file of its own");
    for (const struct stat& in : inputs)
      if (same_file(in, st)) return fail("it is one of the files read: the page would replace it");
    if (S_ISDIR(st.st_mode)) return fail("cannot write the file: it is a directory");
    if (!S_ISREG(st.st_mode)) {  // a pipe, a terminal, /dev/null: written in place
      PageFile p(path, {});
      p.out_.open(path, std::ios::binary);
      if (!p.out_) return fail(std::string("cannot write the file: ") + std::strerror(errno));
      return p;
    }
  }
  // Beside the file (behind a symbolic link: beside its target), renamed
  // over it once written whole.
  std::string target = path;
  if (exists) {
    if (char* real = ::realpath(path.c_str(), nullptr)) {
      target = real;
      std::free(real);
    }
  }
  const std::filesystem::path t(target);
  const std::string dir = t.has_parent_path() ? t.parent_path().string() : std::string(".");
  std::string name = dir + "/." + t.filename().string() + ".XXXXXX";
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return fail(std::string("cannot write the file: ") + std::strerror(errno));
  // The mode a new file gets (0666 less the umask), or the replaced one's.
  mode_t mode = 0;
  if (exists) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  const int chmod_failed = ::fchmod(fd, mode);
  ::close(fd);
  PageFile p(path, name);
  p.target_ = target;
  if (chmod_failed != 0) {
    const int e = errno;
    return fail(std::string("cannot write the file: ") + std::strerror(e));  // (p removes it)
  }
  p.out_.open(name, std::ios::binary | std::ios::trunc);
  if (!p.out_) return fail(std::string("cannot write the file: ") + std::strerror(errno));
  return p;
}

bool PageFile::commit(std::string& error) {
  out_.close();
  if (!out_) {
    error = "--html " + path_ + ": writing the file failed (disk full?)" +
            std::string(temporary_.empty() ? "" : "; the file is left as it was");
    discard();
    return false;
  }
  if (!temporary_.empty() && ::rename(temporary_.c_str(), target_.c_str()) != 0) {
    error = "--html " + path_ + ": cannot write the file: " + std::strerror(errno);
    discard();
    return false;
  }
  done_ = true;
  return true;
}

void PageFile::discard() {
  if (done_) return;
  done_ = true;
  if (out_.is_open()) out_.close();
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
}

}  // namespace replay::cli

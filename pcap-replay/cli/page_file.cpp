#include "page_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace replay::cli {

namespace {

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

}  // namespace

std::vector<struct stat> read_files(const std::vector<std::string>& files) {
  std::vector<struct stat> out;
  for (const std::string& f : files) {
    struct stat st {};
    if (f == "-" ? ::fstat(STDIN_FILENO, &st) == 0 : ::stat(f.c_str(), &st) == 0) out.push_back(st);
  }
  return out;
}

std::optional<PageFile> PageFile::check(const std::string& path, const std::vector<struct stat>& inputs,
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
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return fail("cannot write the file: it is a directory");
    // (A terminal or /dev/null may be both; a file or a pipe cannot.)
    struct stat out {};
    if ((S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)) && ::fstat(STDOUT_FILENO, &out) == 0 && same_file(out, st))
      return fail("it is the standard output, where the report goes: give the page a file of its own");
    for (const struct stat& in : inputs)
      if (same_file(in, st)) return fail("it is one of the files read: the page would replace it");
    if (::access(path.c_str(), W_OK) != 0) return fail(std::string("cannot write the file: ") + std::strerror(errno));
    return PageFile(path);
  }
  if (errno != ENOENT) return fail(std::string("cannot write the file: ") + std::strerror(errno));
  // A new file (or one a dangling link names): its directory must let it be made.
  const std::filesystem::path p(path);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : std::string(".");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return fail(std::string("cannot write the file: ") + std::strerror(errno));
  return PageFile(path);
}

bool PageFile::write(const std::function<void(std::ostream&)>& fill, std::string& error) const {
  std::ofstream out(path_, std::ios::binary | std::ios::trunc);
  if (!out) {
    error = "--html " + path_ + ": cannot write the file: " + std::strerror(errno);
    return false;
  }
  // What a failed write left of a regular file goes (a pipe's reader has
  // it); behind a symbolic link, the link stays and its file is emptied.
  const auto remove_partial = [&] {
    struct stat st {}, link {};
    if (::stat(path_.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
    if (::lstat(path_.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
      (void)::truncate(path_.c_str(), 0);
    else
      ::unlink(path_.c_str());
  };
  try {
    fill(out);
  } catch (...) {
    out.close();
    remove_partial();
    throw;
  }
  out.close();
  if (!out) {
    error = "--html " + path_ + ": writing the file failed (disk full?); the page is not written";
    remove_partial();
    return false;
  }
  return true;
}

}  // namespace replay::cli

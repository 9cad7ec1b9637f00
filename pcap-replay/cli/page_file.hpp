#pragma once
// The file `--html FILE` writes (check, merge). Checked before the report
// goes anywhere, so that a page that cannot be written is said first and
// nothing else is written: it must be writable (or its directory, to create
// it), and neither standard output nor a file the command reads. Written
// at the end, in place (its owner, links and permissions stay); a write that
// fails (a full disk) removes what it left of a regular file, and says so.
// Nothing is created before then: a run that stops early (an unusable
// input, a signal) leaves FILE as it was.

#include <sys/stat.h>

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace replay::cli {

class PageFile {
 public:
  /// `path`, checked; nullopt with `error` set ("--html PATH: cannot write
  /// the file: REASON") when it cannot be the page: an empty path, a
  /// directory, a file or directory not writable, the standard output (a
  /// regular file or a pipe), or one of `inputs` (stat() of the files the
  /// command reads, standard input's among them when it reads it).
  static std::optional<PageFile> check(const std::string& path, const std::vector<struct stat>& inputs,
                                       std::string& error);
  /// Writes the page (`fill` gives it): false with `error` set when the file
  /// cannot be opened or a write fails (what was written of a regular file
  /// is then removed). Exceptions from `fill` remove it too, and pass.
  bool write(const std::function<void(std::ostream&)>& fill, std::string& error) const;

 private:
  explicit PageFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

/// stat() of what a command reads: its files, standard input's for "-".
std::vector<struct stat> read_files(const std::vector<std::string>& files);

}  // namespace replay::cli

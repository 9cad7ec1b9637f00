#pragma once
// The file `--html FILE` writes (check, merge): opened before the report
// goes to standard output, so that a page that cannot be written is said
// before anything else is; written to a temporary file beside it and renamed
// over it at the end, so that a failed write (a full disk) leaves no partial
// page and the old one, if any, as it was. A FILE that is not a regular file
// (a pipe, a terminal, /dev/null) is written in place.

#include <sys/stat.h>

#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace replay::cli {

class PageFile {
 public:
  /// Opens `path` for the page; on failure returns nullopt and sets `error`
  /// ("--html PATH: cannot write the file: REASON"). Refused as well: an
  /// empty path, and a file that is the standard output or one of `inputs`
  /// (stat() of files the command reads: the page would replace it).
  static std::optional<PageFile> open(const std::string& path, const std::vector<struct stat>& inputs,
                                      std::string& error);
  PageFile(PageFile&& other) noexcept;
  PageFile& operator=(PageFile&&) = delete;
  PageFile(const PageFile&) = delete;
  ~PageFile();  // removes the temporary file unless committed

  std::ostream& stream() { return out_; }
  /// Closes the page and puts it in place: false (and `error` set) when a
  /// write failed or the rename did; the temporary file is then removed.
  bool commit(std::string& error);
  /// Gives the page up: the temporary file is removed, FILE left as it was.
  void discard();

 private:
  PageFile(std::string path, std::string temporary);
  std::string path_;       // as given (for messages)
  std::string target_;     // where the page goes (symbolic links resolved)
  std::string temporary_;  // empty: written in place
  std::ofstream out_;
  bool done_ = false;
};

}  // namespace replay::cli

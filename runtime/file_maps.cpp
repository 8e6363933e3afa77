#include "runtime/file_maps.h"

#include <fstream>
#include <sstream>

namespace asc {

std::vector<FileMap> file_maps() {
  std::vector<FileMap> r;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream ls(line);
    std::string range, perms, offset, dev, path;
    uint64_t inode = 0;
    if (!(ls >> range >> perms >> offset >> dev >> inode) || inode == 0 || perms.size() < 2)
      continue;
    ls >> path;
    const size_t dash = range.find('-');
    if (dash == std::string::npos) continue;
    r.push_back({std::stoull(range.substr(0, dash), nullptr, 16),
                 std::stoull(range.substr(dash + 1), nullptr, 16), perms[1] == '-', path});
  }
  return r;
}

}  // namespace asc

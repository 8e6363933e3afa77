// The file-backed mappings of this process, from /proc/self/maps: where a constant's bytes come
// from (precision.cpp releases the pages of read-only ones; weight_cache.cpp keys on their files).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace asc {

struct FileMap {
  uintptr_t begin = 0, end = 0;  // [begin, end) addresses
  bool read_only = false;
  std::string path;  // empty when the kernel names none
};

// Every mapping with a file (inode != 0), in address order.
std::vector<FileMap> file_maps();

}  // namespace asc

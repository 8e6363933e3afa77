// The on-disk cache of compiled kernels the ascend and ascend-emu devices share: one file per
// kernel source and compile command, under $ASC_ASCEND_CACHE (default ~/.cache/asc/ascend).
// Concurrent processes share it: a compile writes a temporary name and renames it.
#pragma once

#include <functional>
#include <string>

namespace asc::ascend {

// FNV-1a, 64 bits, as 16 hex digits: the cache key of a source and its compile command.
std::string hash_hex(const std::string& s);

// The cache directory `sub` (e.g. "emu"), created on first use; Error when it cannot be.
std::string kernel_cache_dir(const std::string& sub);

// The path of the compiled kernel `key` + `ext` in `dir`: compiled first when absent. `source`
// is written to <key>.cpp; `compile(src, out)` returns the shell command that compiles src into
// out (its output goes to <key>.log). Error naming `what`, the command and the log on failure.
std::string compile_cached(
    const std::string& dir, const std::string& key, const std::string& ext,
    const std::string& source, const std::string& what,
    const std::function<std::string(const std::string& src, const std::string& out)>& compile);

}  // namespace asc::ascend
